import { GpuDeskError } from '../errors';
import { shScript } from '../remote/shellQuote';
import type { VideoEncoderName } from '../../shared/models';
import { evenSize } from '../../shared/videoFrames';

/** What one video stream is made of: the session's display, its size, and the encoder's budget. */
export interface VideoStreamSpec {
  display: number;
  width: number;
  height: number;
  fps: number;
  bitrateKbps: number;
  encoder: VideoEncoderName;
  /** The render node for h264_vaapi (the probe's first /dev/dri/renderD*). */
  renderNode?: string;
}

export const VIDEO_LIMITS = {
  maxWidth: 8192,
  maxHeight: 8192,
  minFps: 1,
  maxFps: 120,
  minKbps: 250,
  maxKbps: 200_000,
} as const;

/**
 * The encoder's own low-latency settings, best practice for each: no B-frames (a B-frame waits for
 * the frame after it), rate control that follows the link's budget with a buffer of about one frame
 * (so a burst never queues seconds of video), and periodic intra refresh instead of fixed IDR frames
 * (an IDR every N frames is a 10x spike the link cannot carry in one frame time). A new key frame is
 * asked for by starting a new stream, whose first access unit always is one.
 */
function encoderArgs(s: VideoStreamSpec): string[] {
  const kbps = `${s.bitrateKbps}k`;
  // One frame's worth of bits as the VBV buffer: the stream never runs ahead of the link by more.
  const buf = `${Math.max(64, Math.round(s.bitrateKbps / s.fps) * 2)}k`;
  switch (s.encoder) {
    case 'libx264':
      return [
        // Fewer captures a second (a thin link, shared/videoFrames.ts) leave more time for each: superfast
        // gives the same SSIM for ~20 % fewer bits than ultrafast, for ~4 ms more of a core a 1280x960
        // frame (measured on bench:video's spheres), so at 20 a second or fewer it costs no more CPU a
        // second than ultrafast at 30.
        '-c:v', 'libx264', '-preset', s.fps <= 20 ? 'superfast' : 'ultrafast', '-tune', 'zerolatency', '-bf', '0',
        // Capped CRF: quality 17 with the link's budget as its ceiling, so the budget (which the capture
        // rate gives ~0.25 bit a pixel: shared/videoFrames.ts) sets the quality where motion fills it;
        // CRF 23 and 21 stopped short of it (SSIM 0.9896 and 0.9890 in bench:video). A still screen then costs next to nothing (plain ABR spends the whole budget on it,
        // re-coding the intra-refresh wave ever finer), which is also how Auto sees that motion stopped.
        '-intra-refresh', '1', '-g', String(s.fps * 2), '-crf', '17', '-maxrate', kbps, '-bufsize', buf,
        '-pix_fmt', 'yuv420p', '-profile:v', 'baseline',
      ];
    case 'h264_nvenc':
      return [
        '-c:v', 'h264_nvenc', '-preset', 'p1', '-tune', 'ull', '-zerolatency', '1', '-bf', '0', '-rc', 'cbr',
        '-b:v', kbps, '-maxrate', kbps, '-bufsize', buf, '-g', String(s.fps * 60), '-intra-refresh', '1',
        '-pix_fmt', 'yuv420p', '-profile:v', 'main',
      ];
    case 'h264_vaapi':
      return ['-c:v', 'h264_vaapi', '-bf', '0', '-rc_mode', 'CBR', '-b:v', kbps, '-maxrate', kbps, '-g', String(s.fps * 60)];
  }
}

export function checkVideoSpec(s: VideoStreamSpec): void {
  const L = VIDEO_LIMITS;
  const bad = (what: string) => new GpuDeskError('BAD_ARGUMENT', `Video mode cannot start: ${what}`, 'reconnect the viewer; if it persists, switch the codec to VNC');
  if (!Number.isInteger(s.display) || s.display < 0 || s.display > 9999) throw bad(`display :${s.display} is not a display number`);
  if (!Number.isInteger(s.width) || !Number.isInteger(s.height) || s.width < 16 || s.height < 16 || s.width > L.maxWidth || s.height > L.maxHeight) throw bad(`the screen size ${s.width}x${s.height} is outside 16x16–${L.maxWidth}x${L.maxHeight}`);
  if (s.renderNode !== undefined && !/^\/dev\/dri\/renderD[0-9]+$/.test(s.renderNode)) throw bad(`${s.renderNode} is not a render node`);
}

/**
 * The remote command: ffmpeg grabs the session's X display (x11grab, the cursor left out: the viewer
 * draws its own) and writes H.264 in FLV, whose tags give each frame's length, so the core hands a
 * frame on the moment it is whole (raw H.264 would only end at the next frame's start). ffmpeg runs in the background and the script waits on
 * its stdin: when the viewer closes the channel, stdin ends and ffmpeg is killed, so nothing keeps
 * running on the server (ffmpeg would otherwise only notice at its next write, or never if x11grab blocks).
 */
export function encoderCommand(s: VideoStreamSpec): string {
  checkVideoSpec(s);
  // yuv420p needs even sizes: an odd last column or row stays as RFB drew it.
  const w = evenSize(s.width);
  const h = evenSize(s.height);
  // The filter chain the encoder itself needs (vaapi: frames uploaded to the GPU as NV12).
  const vf = s.encoder === 'h264_vaapi' ? 'format=nv12,hwupload' : '';
  const argv = [
    vf,
    '-hide_banner', '-nostdin', '-loglevel', 'error',
    ...(s.encoder === 'h264_vaapi' ? ['-vaapi_device', s.renderNode ?? '/dev/dri/renderD128'] : []),
    '-f', 'x11grab', '-draw_mouse', '0', '-framerate', String(s.fps), '-video_size', `${w}x${h}`, '-i', `:${s.display}`,
    ...encoderArgs(s),
  ];
  const script = [
    'PATH="$PATH:/usr/local/bin"',
    'command -v ffmpeg >/dev/null 2>&1 || { echo "gpu-desk: ffmpeg is not installed on this server" >&2; exit 127; }',
    `DISPLAY=:${s.display}; export DISPLAY`,
    'vf=$1; shift',
    // Frames that repeat the last one sent are dropped before the encoder (mpdecimate, in every GPL
    // build of ffmpeg; without it every capture is encoded): a program drawing 20 frames a second
    // costs 20 encodes and 20 decodes on the desk, not 30. At most half a second of drops in a row,
    // so a change too faint to count still shows within that.
    `if ffmpeg -hide_banner -filters </dev/null 2>/dev/null | grep -q ' mpdecimate '; then vf="mpdecimate=max=${Math.max(1, Math.floor(s.fps / 2))}\${vf:+,$vf}"; fi`,
    'if [ -n "$vf" ]; then set -- "$@" -vf "$vf"; fi',
    // A background job's stdin is /dev/null in sh: the channel's stdin goes to the watcher as fd 3.
    'exec 3<&0',
    // FLV: every frame in a tag that says its length, written the moment it is encoded (flvUnits.ts).
    'ffmpeg "$@" -flush_packets 1 -flvflags no_duration_filesize+no_metadata -f flv pipe:1 </dev/null 3<&- &',
    'p=$!',
    // The viewer's end of the channel closing is the only way this stream stops.
    '{ cat <&3 >/dev/null 2>&1; kill "$p" 2>/dev/null; } >/dev/null 2>&1 &',
    'w=$!',
    'exec 3<&-',
    'wait "$p"; rc=$?',
    'kill "$w" 2>/dev/null',
    'exit "$rc"',
  ].join('\n');
  return shScript(script, argv);
}
