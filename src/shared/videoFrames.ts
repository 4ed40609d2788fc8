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
} as const;

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
