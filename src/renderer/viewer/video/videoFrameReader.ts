import { VIDEO_FRAME } from '../../../shared/videoFrames';

export interface VideoMessage {
  type: number;
  flags: number;
  payload: Uint8Array;
}

/** A larger frame than this from a server is not a picture: the stream is ended, the renderer kept. */
export const MAX_MESSAGE_BYTES = VIDEO_FRAME.maxPayloadBytes;
/** Held bytes of partial messages at most (one frame, its header and the next's start). */
const MAX_HELD = MAX_MESSAGE_BYTES + (1 << 20);

/**
 * The video channel's messages (src/shared/videoFrames.ts) from WebSocket chunks, which may cut or
 * join them anywhere. Throws on a message over the limit or a header that is not one of ours, so a
 * hostile server ends video mode instead of growing the page's memory.
 */
export class VideoFrameReader {
  private held: Uint8Array[] = [];
  private size = 0;

  push(chunk: Uint8Array): VideoMessage[] {
    this.held.push(chunk);
    this.size += chunk.length;
    if (this.size > MAX_HELD) throw new Error('the video stream sent more than one frame\'s worth without a frame boundary');
    const out: VideoMessage[] = [];
    let buf = this.join();
    let at = 0;
    while (buf.length - at >= VIDEO_FRAME.headerBytes) {
      const view = new DataView(buf.buffer, buf.byteOffset + at, VIDEO_FRAME.headerBytes);
      const len = view.getUint32(0);
      const type = buf[at + 4];
      if (type !== VIDEO_FRAME.accessUnit && type !== VIDEO_FRAME.info && type !== VIDEO_FRAME.end) throw new Error(`the video stream sent a message of unknown type ${type}`);
      if (buf[at + 6] !== 0 || buf[at + 7] !== 0) throw new Error('the video stream sent a malformed header');
      if (len > MAX_MESSAGE_BYTES) throw new Error(`the video stream sent a frame of ${len} bytes (limit ${MAX_MESSAGE_BYTES})`);
      if (buf.length - at < VIDEO_FRAME.headerBytes + len) break;
      const start = at + VIDEO_FRAME.headerBytes;
      out.push({ type, flags: buf[at + 5], payload: buf.subarray(start, start + len) });
      at = start + len;
    }
    buf = buf.subarray(at);
    this.held = buf.length ? [buf] : [];
    this.size = buf.length;
    return out;
  }

  private join(): Uint8Array {
    if (this.held.length === 1) return this.held[0];
    const b = new Uint8Array(this.size);
    let o = 0;
    for (const h of this.held) {
      b.set(h, o);
      o += h.length;
    }
    return b;
  }
}

/** WebCodecs' codec string for an H.264 stream, from its SPS (profile, constraint flags, level). */
export function avcCodecString(au: Uint8Array): string | null {
  for (let i = 2; i + 4 < au.length; i++) {
    if (au[i] === 1 && au[i - 1] === 0 && au[i - 2] === 0 && (au[i + 1] & 0x1f) === 7) {
      const hex = (n: number) => n.toString(16).padStart(2, '0').toUpperCase();
      return `avc1.${hex(au[i + 2])}${hex(au[i + 3])}${hex(au[i + 4])}`;
    }
  }
  return null;
}
