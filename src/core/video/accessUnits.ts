/**
 * H.264 Annex B → access units. The encoder command (encoderCommand.ts) puts an access-unit
 * delimiter (NAL type 9) before every frame, so a frame ends exactly where the next delimiter's start
 * code begins: no slice parsing, and a frame goes out as soon as the next one starts.
 *
 * The same framing as the desk's parser (src/shared/videoFrames.ts): the channel carries these
 * messages, not raw H.264, so the viewer never has to look for boundaries in bytes from a server.
 */
import { VIDEO_FRAME, videoFrameHeader } from '../../shared/videoFrames';

/** One frame larger than this is a hostile or broken stream, not a picture (8K intra at q0 is ~20 MB). */
export const MAX_ACCESS_UNIT_BYTES = 16 << 20;

export interface AccessUnit {
  data: Buffer;
  key: boolean;
}

export class AccessUnitSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  /** Bytes of `parts` already searched for a delimiter (a start code may straddle two chunks). */
  private searched = 0;

  /** Feeds bytes; returns the access units completed by them. Throws on an oversized unit. */
  push(chunk: Buffer): AccessUnit[] {
    this.parts.push(chunk);
    this.size += chunk.length;
    const out: AccessUnit[] = [];
    let buf = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.size);
    // The current unit's own delimiter starts at 0 (a 3- or 4-byte start code): look from 2 on.
    let from = Math.max(2, this.searched - 4);
    for (;;) {
      const at = nextDelimiter(buf, from);
      if (at < 0) break;
      out.push(unit(buf.subarray(0, at)));
      buf = buf.subarray(at);
      from = 2;
    }
    this.parts = buf.length ? [buf] : [];
    this.size = buf.length;
    this.searched = buf.length;
    if (this.size > MAX_ACCESS_UNIT_BYTES) throw new Error(`an H.264 frame over ${MAX_ACCESS_UNIT_BYTES >> 20} MiB`);
    return out;
  }

  /** The last unit, once the stream has ended. */
  flush(): AccessUnit | null {
    if (!this.size) return null;
    const buf = Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    this.searched = 0;
    return unit(buf);
  }
}

/** The start of the next `00 00 01 09` (including a leading 00 of a 4-byte start code), or -1. */
function nextDelimiter(b: Buffer, from: number): number {
  for (let i = b.indexOf(0, from); i >= 0 && i + 3 < b.length; i = b.indexOf(0, i + 1)) {
    if (b[i + 1] === 0 && b[i + 2] === 1 && (b[i + 3] & 0x1f) === 9) return b[i - 1] === 0 ? i - 1 : i;
  }
  return -1;
}

/** An access unit is a key frame when it carries an IDR slice (NAL type 5). */
export function nalTypes(b: Buffer): number[] {
  const types: number[] = [];
  for (let i = b.indexOf(1); i >= 2 && i + 1 < b.length; i = b.indexOf(1, i + 1)) {
    if (b[i - 1] === 0 && b[i - 2] === 0) types.push(b[i + 1] & 0x1f);
  }
  return types;
}

function unit(data: Buffer): AccessUnit {
  return { data, key: nalTypes(data).includes(5) };
}

/** One message of the video channel: its header, then the payload. */
export function frameMessage(type: number, payload: Buffer, flags = 0): Buffer {
  return Buffer.concat([Buffer.from(videoFrameHeader(type, payload.length, flags)), payload]);
}

export function accessUnitMessage(u: AccessUnit): Buffer {
  return frameMessage(VIDEO_FRAME.accessUnit, u.data, u.key ? VIDEO_FRAME.keyFlag : 0);
}

export function jsonMessage(type: number, value: unknown): Buffer {
  return frameMessage(type, Buffer.from(JSON.stringify(value), 'utf8'));
}
