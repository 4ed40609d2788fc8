/**
 * H.264 access units (Annex B, one frame each: flvUnits.ts cuts them from the encoder's output) and
 * the video channel's messages. The same framing as the desk's parser (src/shared/videoFrames.ts):
 * the channel carries these messages, not raw H.264, so the viewer never has to look for boundaries
 * in bytes from a server.
 */
import { VIDEO_FRAME, videoFrameHeader } from '../../shared/videoFrames';

export interface AccessUnit {
  data: Buffer;
  key: boolean;
}

/** An access unit is a key frame when it carries an IDR slice (NAL type 5). */
export function nalTypes(b: Buffer): number[] {
  const types: number[] = [];
  for (let i = b.indexOf(1); i >= 2 && i + 1 < b.length; i = b.indexOf(1, i + 1)) {
    if (b[i - 1] === 0 && b[i - 2] === 0) types.push(b[i + 1] & 0x1f);
  }
  return types;
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
