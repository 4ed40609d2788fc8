import type { VideoEncoderChoice } from '../app/videoStreams';
import type { VideoInfo } from '../remote/types';

/**
 * Video mode's encoder: the probe's own answer (remote/probeScript.ts, its video section: a one-frame
 * test encode of each encoder, best first), so the probe's findings and the stream never disagree.
 */
export function encoderChoice(v: VideoInfo): VideoEncoderChoice {
  if (!v.ffmpeg) return { best: null, why: 'ffmpeg is not installed' };
  if (!v.best) return { best: null, why: `no H.264 encoder works (${v.encoders.map((x) => `${x.name}: ${x.error ?? 'failed'}`).join('; ')})` };
  return { best: v.best, ...(v.best === 'h264_vaapi' && v.renderNode ? { renderNode: v.renderNode.path } : {}) };
}
