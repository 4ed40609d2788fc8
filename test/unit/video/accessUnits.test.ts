import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nalTypes } from '../../../src/core/video/accessUnits';
import { encoderCommand } from '../../../src/core/video/encoderCommand';
import { FlvAccessUnits } from '../../../src/core/video/flvUnits';
import { VIDEO_FRAME } from '../../../src/shared/videoFrames';

const FRAMES = 12;
/** A real stream as the server's encoder writes it (lavfi source, libx264 with the viewer's settings, FLV as encoderCommand asks). */
const flv = execFileSync('ffmpeg', [
  '-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=30', '-frames:v', String(FRAMES),
  '-c:v', 'libx264', '-preset', 'ultrafast', '-tune', 'zerolatency', '-bf', '0', '-intra-refresh', '1', '-pix_fmt', 'yuv420p',
  '-flush_packets', '1', '-flvflags', 'no_duration_filesize+no_metadata', '-f', 'flv', '-',
]);

function split(chunks: Buffer[]) {
  const s = new FlvAccessUnits();
  return chunks.flatMap((c) => s.push(c));
}

/** ffmpeg's own decode of a file, frame by frame (MD5 of each picture). */
function decodedFrames(file: string, format: string[]): string[] {
  const out = execFileSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', ...format, '-i', file, '-f', 'framemd5', '-'], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => l.split(',').pop()!.trim());
}

describe('access units from the encoder\'s FLV', () => {
  it('one Annex B unit per frame, the first a key frame with its parameter sets, decoding to the same pictures as the FLV itself', () => {
    const units = split([flv]);
    expect(units).toHaveLength(FRAMES);
    expect(units.map((u) => u.key)).toEqual([true, ...Array(FRAMES - 1).fill(false)]);
    expect(nalTypes(units[0].data).slice(0, 2)).toEqual([7, 8]);
    expect(nalTypes(units[0].data)).toContain(5);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-flv-'));
    try {
      fs.writeFileSync(path.join(dir, 'units.h264'), Buffer.concat(units.map((u) => u.data)));
      fs.writeFileSync(path.join(dir, 'stream.flv'), flv);
      const fromUnits = decodedFrames(path.join(dir, 'units.h264'), ['-f', 'h264']);
      expect(fromUnits).toHaveLength(FRAMES);
      expect(fromUnits).toEqual(decodedFrames(path.join(dir, 'stream.flv'), []));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives the same units whatever the chunks, and each the moment its last byte arrives (not at the next frame)', () => {
    const whole = split([flv]).map((u) => u.data.toString('hex'));
    for (const size of [1, 2, 3, 5, 7, 64, 1000]) {
      const chunks: Buffer[] = [];
      for (let i = 0; i < flv.length; i += size) chunks.push(flv.subarray(i, i + size));
      expect(split(chunks).map((u) => u.data.toString('hex'))).toEqual(whole);
    }
    // Up to the end of the third video tag with a frame: three units out, with nothing of the fourth sent.
    let at = 13;
    let frames = 0;
    while (frames < 3) {
      const size = flv.readUIntBE(at + 1, 3);
      if (flv[at] === 9 && flv[at + 12] === 1) frames++;
      at += 11 + size + 4;
    }
    expect(new FlvAccessUnits().push(flv.subarray(0, at))).toHaveLength(3);
    expect(new FlvAccessUnits().push(flv.subarray(0, at - 1))).toHaveLength(2);
  });

  it('refuses what is not the encoder\'s FLV: another format, another codec, a cut NAL unit, a key frame without parameter sets', () => {
    expect(() => new FlvAccessUnits().push(Buffer.from('RIFF0000WAVEfmt '))).toThrow(/not FLV/);
    const header = flv.subarray(0, 13);
    const tag = (data: Buffer, size = data.length) => {
      const h = Buffer.alloc(11);
      h[0] = 9;
      h.writeUIntBE(size, 1, 3);
      const prev = Buffer.alloc(4);
      prev.writeUInt32BE(11 + data.length);
      return Buffer.concat([h, data, prev]);
    };
    // VP6 (codec 4), not H.264.
    expect(() => new FlvAccessUnits().push(Buffer.concat([header, tag(Buffer.from([0x14, 1, 0, 0, 0, 0]))]))).toThrow(/not H\.264/);
    // A frame cannot outgrow the limit: FLV's 24-bit tag length stops below it.
    expect(0xffffff).toBeLessThan(VIDEO_FRAME.maxPayloadBytes);
    // A NAL unit whose length runs past its tag.
    const cut = Buffer.from([0x27, 1, 0, 0, 0, 0, 0, 0, 50, 0x41, 0x9a]);
    expect(() => new FlvAccessUnits().push(Buffer.concat([header, tag(cut)]))).toThrow(/cut H\.264 frame/);
    // A key frame before any sequence header cannot be decoded.
    const idr = Buffer.from([0x17, 1, 0, 0, 0, 0, 0, 0, 2, 0x65, 0x88]);
    expect(() => new FlvAccessUnits().push(Buffer.concat([header, tag(idr)]))).toThrow(/before its sequence header/);
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

  it('drops repeated frames where the server\'s ffmpeg can (half a second at most), keeping the encoder\'s own filters', () => {
    const x264 = encoderCommand({ display: 3, width: 640, height: 480, fps: 12, bitrateKbps: 2000, encoder: 'libx264' });
    expect(x264).toContain('mpdecimate=max=6');
    expect(x264).toMatch(/' gpu-desk '' -hide_banner/);
    const vaapi = encoderCommand({ display: 3, width: 640, height: 480, fps: 30, bitrateKbps: 8000, encoder: 'h264_vaapi', renderNode: '/dev/dri/renderD128' });
    expect(vaapi).toContain("gpu-desk 'format=nv12,hwupload' -hide_banner");
  });
});
