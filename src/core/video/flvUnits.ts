/**
 * The encoder's FLV output → H.264 access units (Annex B), each handed on the moment its last byte
 * arrives. FLV is what ffmpeg writes that says where every frame ends: each tag carries its length.
 * Raw Annex B does not (a frame ends where the next one's start code begins), so a splitter of raw
 * H.264 holds every frame back until the encoder's *next* one: a whole frame time (33 ms at 30 a
 * second, 83 at 12) added to every key press's way to the screen.
 *
 * FLV carries H.264 as AVCC: the parameter sets once, in a sequence header, and length-prefixed NAL
 * units per frame. The viewer's decoder takes Annex B with the parameter sets in band (one format for
 * every encoder), so each frame's NAL units get start codes and every IDR frame gets the parameter
 * sets in front of it.
 */
import { nalTypes, type AccessUnit } from './accessUnits';

const FLV_HEADER = 9;
const PREV_TAG_SIZE = 4;
const TAG_HEADER = 11;
const TAG_VIDEO = 9;
const CODEC_AVC = 7;
const START_CODE = Buffer.from([0, 0, 0, 1]);

export class FlvError extends Error {}

export class FlvAccessUnits {
  private parts: Buffer[] = [];
  private size = 0;
  private headerDone = false;
  /** The parameter sets (SPS, PPS) from the sequence header, as Annex B. */
  private paramSets: Buffer | null = null;
  private lengthSize = 4;

  /** Feeds bytes; returns the access units completed by them. Throws FlvError on a malformed or oversized stream. */
  push(chunk: Buffer): AccessUnit[] {
    this.parts.push(chunk);
    this.size += chunk.length;
    const out: AccessUnit[] = [];
    for (;;) {
      if (!this.headerDone) {
        if (this.size < FLV_HEADER + PREV_TAG_SIZE) break;
        const h = this.take(FLV_HEADER + PREV_TAG_SIZE);
        if (h.toString('latin1', 0, 3) !== 'FLV') throw new FlvError('a stream that is not FLV');
        // FLV 1 has a 9-byte header; anything else is not what ffmpeg writes.
        if (h.readUInt32BE(5) !== FLV_HEADER) throw new FlvError('an FLV header of a strange size');
        this.headerDone = true;
        continue;
      }
      if (this.size < TAG_HEADER) break;
      const head = this.peek(TAG_HEADER);
      const dataSize = head.readUIntBE(1, 3);
      // FLV's 24-bit length keeps a held frame under the channel's limit (VIDEO_FRAME.maxPayloadBytes, 16 MiB) by itself.
      if (this.size < TAG_HEADER + dataSize + PREV_TAG_SIZE) break;
      const tag = this.take(TAG_HEADER + dataSize + PREV_TAG_SIZE);
      // Only video tags matter (ffmpeg may write an onMetaData script tag; there is no audio).
      if ((head[0] & 0x1f) !== TAG_VIDEO || dataSize < 5) continue;
      const u = this.videoTag(tag.subarray(TAG_HEADER, TAG_HEADER + dataSize));
      if (u) out.push(u);
    }
    return out;
  }

  private videoTag(d: Buffer): AccessUnit | null {
    if ((d[0] & 0x0f) !== CODEC_AVC) throw new FlvError('video that is not H.264');
    const packetType = d[1];
    const body = d.subarray(5);
    if (packetType === 0) {
      this.sequenceHeader(body);
      return null;
    }
    if (packetType !== 1) return null; // 2: end of sequence
    const nals: Buffer[] = [];
    let types: number[] = [];
    for (let i = 0; i < body.length;) {
      if (i + this.lengthSize > body.length) throw new FlvError('a cut H.264 frame');
      const n = body.readUIntBE(i, this.lengthSize);
      i += this.lengthSize;
      if (n === 0 || i + n > body.length) throw new FlvError('a cut H.264 frame');
      nals.push(START_CODE, body.subarray(i, i + n));
      types.push(body[i] & 0x1f);
      i += n;
    }
    if (!nals.length) return null;
    const key = types.includes(5);
    // An IDR without its parameter sets in band gets them: the decoder starts (or restarts) there.
    if (key && !types.includes(7)) {
      if (!this.paramSets) throw new FlvError('an H.264 key frame before its sequence header');
      nals.unshift(this.paramSets);
      types = nalTypes(this.paramSets).concat(types);
    }
    return { data: Buffer.concat(nals), key };
  }

  /** AVCDecoderConfigurationRecord (ISO 14496-15 §5.3.3.1): the NAL length size, the SPS and PPS. */
  private sequenceHeader(r: Buffer): void {
    if (r.length < 7 || r[0] !== 1) throw new FlvError('a malformed H.264 sequence header');
    this.lengthSize = (r[4] & 3) + 1;
    if (this.lengthSize === 3) throw new FlvError('a malformed H.264 sequence header');
    const sets: Buffer[] = [];
    let i = 5;
    for (const count of ['sps', 'pps'] as const) {
      if (i >= r.length) throw new FlvError('a malformed H.264 sequence header');
      const n = count === 'sps' ? r[i] & 0x1f : r[i];
      i++;
      for (let k = 0; k < n; k++) {
        if (i + 2 > r.length) throw new FlvError('a malformed H.264 sequence header');
        const len = r.readUInt16BE(i);
        i += 2;
        if (len === 0 || i + len > r.length) throw new FlvError('a malformed H.264 sequence header');
        sets.push(START_CODE, r.subarray(i, i + len));
        i += len;
      }
    }
    this.paramSets = Buffer.concat(sets);
  }

  /** The next n bytes (n <= size), joining only as many parts as they span. */
  private peek(n: number): Buffer {
    if (this.parts[0].length < n) {
      let k = 0;
      for (let got = 0; got < n; k++) got += this.parts[k].length;
      this.parts.splice(0, k, Buffer.concat(this.parts.slice(0, k)));
    }
    return this.parts[0].subarray(0, n);
  }

  private take(n: number): Buffer {
    const b = this.peek(n);
    const first = this.parts[0];
    if (first.length === n) this.parts.shift();
    else this.parts[0] = first.subarray(n);
    this.size -= n;
    return b;
  }
}
