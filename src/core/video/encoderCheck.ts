import type { VideoEncoderName } from '../../shared/models';
import type { VideoInfo } from '../remote/types';

/** The encoders of a machine, best first, as its probe found them by test encodes. */
export interface VideoEncoderChoice {
  best: VideoEncoderName | null;
  renderNode?: string;
  /** Why none works (no ffmpeg, no H.264 encoder): shown in the viewer when video cannot start. */
  why?: string;
}

/**
 * Video mode's encoder: the probe's own answer (remote/probeScript.ts, its video section: a one-frame
 * test encode of each encoder, best first), so the probe's findings and the stream never disagree.
 */
export function encoderChoice(v: VideoInfo): VideoEncoderChoice {
  if (!v.ffmpeg) return { best: null, why: 'ffmpeg is not installed' };
  if (!v.best) return { best: null, why: `no H.264 encoder works (${v.encoders.map((x) => `${x.name}: ${x.error ?? 'failed'}`).join('; ')})` };
  return { best: v.best, ...(v.best === 'h264_vaapi' && v.renderNode ? { renderNode: v.renderNode.path } : {}) };
}
