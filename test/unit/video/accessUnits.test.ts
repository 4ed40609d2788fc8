import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { AccessUnitSplitter, MAX_ACCESS_UNIT_BYTES, nalTypes } from '../../../src/core/video/accessUnits';
import { encoderCommand } from '../../../src/core/video/encoderCommand';

/** A real H.264 stream as the server's encoder writes it (lavfi source, libx264, delimiters inserted). */
const stream = execFileSync('ffmpeg', [
  '-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=30', '-frames:v', '12',
  '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-bf', '0', '-intra-refresh', '1', '-pix_fmt', 'yuv420p',
  '-bsf:v', 'h264_metadata=aud=insert', '-f', 'h264', '-',
]);

function split(chunks: Buffer[]) {
  const s = new AccessUnitSplitter();
  const units = chunks.flatMap((c) => s.push(c));
  const last = s.flush();
  return last ? [...units, last] : units;
}

describe('access units from Annex B', () => {
  it('cuts the stream into one unit per frame, each starting with its delimiter, the first a key frame', () => {
    const units = split([stream]);
    expect(units).toHaveLength(12);
    expect(Buffer.concat(units.map((u) => u.data)).equals(stream)).toBe(true);
    for (const u of units) expect(nalTypes(u.data)[0]).toBe(9);
    expect(units.map((u) => u.key)).toEqual([true, ...Array(11).fill(false)]);
  });

  it('gives the same units whatever the chunks (a start code split across two reads)', () => {
    const whole = split([stream]).map((u) => u.data.toString('hex'));
    for (const size of [1, 2, 3, 5, 7, 64, 1000]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < stream.length; i += size) chunks.push(stream.subarray(i, i + size));
      expect(split(chunks).map((u) => u.data.toString('hex'))).toEqual(whole);
    }
  });

  it('refuses a unit larger than the limit (a hostile stream cannot grow memory without end)', () => {
    const s = new AccessUnitSplitter();
    s.push(Buffer.from([0, 0, 0, 1, 9, 0xf0]));
    expect(() => { for (let i = 0; i < 17; i++) s.push(Buffer.alloc(1 << 20, 0x55)); }).toThrow(/over 16 MiB/);
    expect(MAX_ACCESS_UNIT_BYTES).toBe(16 << 20);
  });
});

describe('the encoder command', () => {
  it('quotes every value and refuses sizes and render nodes outside their limits', () => {
    const cmd = encoderCommand({ display: 3, width: 1281, height: 721, fps: 30, bitrateKbps: 8000, encoder: 'libx264' });
    expect(cmd).toContain('1280x720');
    expect(cmd).toContain(':3');
    expect(() => encoderCommand({ display: 3, width: 9000, height: 720, fps: 30, bitrateKbps: 8000, encoder: 'libx264' })).toThrow(/screen size/);
    expect(() => encoderCommand({ display: 3, width: 640, height: 480, fps: 30, bitrateKbps: 8000, encoder: 'h264_vaapi', renderNode: '/dev/dri/renderD1;id' })).toThrow(/render node/);
  });
});
