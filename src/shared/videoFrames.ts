/**
 * The video channel's framing, written by the core (core/video/accessUnits.ts) and read by the
 * viewer (renderer/viewer/video/videoFrameReader.ts): an 8-byte header — payload length (u32, big
 * endian), type (u8), flags (u8), two reserved zero bytes — then the payload. The WebSocket may cut
 * or join messages anywhere; the header says where each ends.
 */
export const VIDEO_FRAME = {
  headerBytes: 8,
  /** An H.264 access unit (Annex B, one frame); flags & keyFlag: it starts with an IDR. */
  accessUnit: 1,
  /** JSON: what the stream is (VideoStreamInfo), sent first. */
  info: 2,
  /** JSON: why the stream ended ({ reason }), sent last when the encoder stopped on its own. */
  end: 3,
  keyFlag: 1,
  /**
   * The largest payload either side accepts: one frame larger than this is a hostile or broken stream,
   * not a picture (8K intra at q0 is ~20 MB). The core drops the stream, the viewer ends video mode.
   */
  maxPayloadBytes: 16 << 20,
} as const;

/**
 * The encoder's picture size for a desktop of `px` pixels, across or down: yuv420p needs even sizes,
 * so an odd last column or row stays as RFB drew it. The encoder, the stream's ticket and the viewer's
 * "is this stream my size" all use this one rule.
 */
export function evenSize(px: number): number {
  return px & ~1;
}

export interface VideoStreamInfo {
  encoder: string;
  width: number;
  height: number;
  fps: number;
  bitrateKbps: number;
}

export function videoFrameHeader(type: number, length: number, flags = 0): Uint8Array {
  const h = new Uint8Array(VIDEO_FRAME.headerBytes);
  new DataView(h.buffer).setUint32(0, length);
  h[4] = type;
  h[5] = flags;
  return h;
}

/** The encoder's capture rates: the most a stream asks for, and the least it drops to on a thin budget. */
export const VIDEO_FPS = { max: 30, min: 12 } as const;
/**
 * Bits a frame of moving 3D content needs, per pixel, for the SSIM of the JPEG quality gpu-desk's VNC
 * mode uses (0.9916): ~38 KiB a 1280x960 frame of glxspheres at 12–15 frames a second (bench:video:
 * 29 KiB gave 0.9890; at 30 a second ~32 KiB give 0.9915, ../shared/docs §10 — fewer frames move
 * further between them and need more).
 */
const BITS_PER_PIXEL = 0.25;

/**
 * How many frames a second a stream of `kbps` captures at `width`x`height`: 30 where the budget gives
 * each frame what it needs to stay sharp, fewer where it does not, down to 12. On a thin link a person
 * gets fewer sharp frames rather than 30 blurry ones (what TurboVNC's quality-first JPEG does too;
 * measured in docs/bench-video.md: 4000 kbps spread over 30 captures gave 13 KiB a frame and SSIM
 * 0.982), and the server's encoder does less work. Below 12 motion stops reading as motion, so there
 * the bitrate gives way instead (x264's rate cap lowers quality).
 */
export function videoFps(kbps: number, width: number, height: number): number {
  const perFrame = BITS_PER_PIXEL * Math.max(1, width * height);
  const fps = Math.floor((kbps * 1000) / perFrame);
  return Math.max(VIDEO_FPS.min, Math.min(VIDEO_FPS.max, fps));
}
