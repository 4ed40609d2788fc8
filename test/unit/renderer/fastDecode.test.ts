import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeJpegRgba, loadJpegWasm } from '../../../src/renderer/viewer/jpegWasm';
import { patchTightPalette, type TightInternals } from '../../../src/renderer/viewer/tightPalette';

/** What a decoder handed to display.blitImage. */
interface Blit { x: number; y: number; w: number; h: number; bytes: number[] }
function capture(): { display: { blitImage(x: number, y: number, w: number, h: number, arr: Uint8Array, offset: number): void }; blits: Blit[] } {
  const blits: Blit[] = [];
  return { blits, display: { blitImage: (x, y, w, h, arr, offset) => blits.push({ x, y, w, h, bytes: [...arr.subarray(offset, offset + w * h * 4)] }) } };
}

/** A deterministic byte source, so a failure names data that can be reproduced. */
function bytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = s >>> 24;
  }
  return out;
}

describe('Tight palette expansion, 32 bits at a time', () => {
  // noVNC's own Tight decoder is the oracle for the loops it replaces. Imported by path (the
  // package's exports name only its entry point), after giving its logging module the `window` it reads.
  let TightDecoder: new () => unknown;
  beforeAll(async () => {
    (globalThis as { window?: unknown }).window ??= globalThis;
    // @ts-expect-error noVNC ships no types (src/renderer/novnc.d.ts covers its entry point only)
    TightDecoder = (await import('../../../node_modules/@novnc/novnc/core/decoders/tight.js')).default;
  });
  // Sizes that end mid-byte for the 1-bit case, a single pixel, and a wide one.
  const sizes: [number, number][] = [[1, 1], [7, 3], [9, 5], [16, 16], [61, 17], [300, 2]];

  it.each(sizes)('%ix%i indexed (2..256 colours): the same bytes as noVNC', (w, h) => {
    for (const colours of [3, 17, 256]) {
      const ours = new TightDecoder() as unknown as TightInternals;
      patchTightPalette(ours);
      const theirs = new TightDecoder() as unknown as TightInternals;
      const palette = new Uint8Array(1024);
      palette.set(bytes(colours * 3, colours));
      const data = bytes(w * h, w * 31 + h).map((v) => v % colours);
      const a = capture();
      const b = capture();
      ours._numColors = theirs._numColors = colours;
      ours._paletteRect(3, 4, w, h, data, palette, a.display as never);
      theirs._paletteRect(3, 4, w, h, data, palette, b.display as never);
      expect(a.blits).toEqual(b.blits);
      expect(a.blits[0].bytes.filter((_, i) => i % 4 === 3).every((v) => v === 255)).toBe(true);
    }
  });

  it.each(sizes)('%ix%i two-colour (1 bit a pixel, rows padded to a byte): the same bytes as noVNC', (w, h) => {
    const ours = new TightDecoder() as unknown as TightInternals;
    patchTightPalette(ours);
    const theirs = new TightDecoder() as unknown as TightInternals;
    const palette = new Uint8Array(1024);
    palette.set([200, 10, 30, 5, 250, 128]);
    const data = bytes(Math.ceil(w / 8) * h, w + h * 7);
    const a = capture();
    const b = capture();
    ours._numColors = theirs._numColors = 2;
    ours._monoRect(0, 0, w, h, data, palette, a.display as never);
    theirs._monoRect(0, 0, w, h, data, palette, b.display as never);
    expect(a.blits).toEqual(b.blits);
  });
});

describe('JPEG rectangles decoded in WebAssembly', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-jpeg-'));
  const W = 61;
  const H = 37;
  let jpeg: Uint8Array;
  let reference: Uint8Array;

  beforeAll(async () => {
    const wasm = fs.readFileSync(new URL('../../../src/renderer/viewer/jpeg/gd_jpeg.wasm', import.meta.url));
    expect(await loadJpegWasm(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength) as ArrayBuffer)).toBe(true);
    // A 4:4:4 JPEG of an odd size as TurboVNC sends at its default quality, made by ffmpeg, and ffmpeg's own decoding of it.
    const file = path.join(dir, 'rect.jpg');
    const make = spawnSync('ffmpeg', ['-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=64x40:rate=1', '-vf', `format=yuvj444p,crop=${W}:${H}:0:0`, '-frames:v', '1', '-pix_fmt', 'yuvj444p', '-q:v', '4', file]);
    expect(make.status, `ffmpeg could not make the test JPEG: ${make.stderr}`).toBe(0);
    jpeg = new Uint8Array(fs.readFileSync(file));
    const dec = spawnSync('ffmpeg', ['-loglevel', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgba', '-'], { maxBuffer: 1 << 24 });
    expect(dec.status).toBe(0);
    reference = new Uint8Array(dec.stdout);
  });

  it('gives RGBA of the rectangle, opaque, matching ffmpeg\'s decoding of the same file', () => {
    const rgba = decodeJpegRgba(jpeg, W, H);
    expect(rgba).not.toBeNull();
    const px = rgba!.subarray(0, W * H * 4);
    expect(reference.length).toBe(W * H * 4);
    let worst = 0;
    for (let i = 0; i < px.length; i++) {
      if (i % 4 === 3) expect(px[i]).toBe(255);
      else worst = Math.max(worst, Math.abs(px[i] - reference[i]));
    }
    // Two conforming decoders may round the inverse DCT and colour conversion differently; a
    // wrong channel order or a shifted row would be off by far more.
    expect(worst).toBeLessThanOrEqual(3);
  });

  it('hands out a view of the decoder\'s memory, or (atZero, for noVNC\'s render queue) the same pixels at offset 0 of a buffer of their own', () => {
    const view = decodeJpegRgba(jpeg, W, H)!;
    expect(view.length).toBe(W * H * 4);
    const fromView = view.slice();
    const copy = decodeJpegRgba(jpeg, W, H, true)!;
    // noVNC's blitImage copies a queued rectangle from offset 0 of `arr.buffer`.
    expect(copy.byteOffset).toBe(0);
    expect(copy.buffer).not.toBe(view.buffer);
    expect(new Uint8Array(copy.buffer, 0, W * H * 4)).toEqual(fromView);
  });

  it('returns null for a size that is not the rectangle\'s, or for bytes that are not a JPEG, and leaves the page\'s constructors as they were', () => {
    const clamped = globalThis.Uint8ClampedArray;
    const imageData = (globalThis as { ImageData?: unknown }).ImageData;
    expect(decodeJpegRgba(jpeg, W + 1, H)).toBeNull();
    expect(decodeJpegRgba(bytes(500, 1), 10, 10)).toBeNull();
    expect(decodeJpegRgba(jpeg.subarray(0, 40), W, H)).toBeNull();
    expect(globalThis.Uint8ClampedArray).toBe(clamped);
    expect((globalThis as { ImageData?: unknown }).ImageData).toBe(imageData);
    // And it still decodes afterwards.
    expect(decodeJpegRgba(jpeg, W, H)).not.toBeNull();
  });

  it('recovers from thousands of damaged rectangles (each error leaves libjpeg mid-call) and decodes the next good one to the same bytes', () => {
    const good = decodeJpegRgba(jpeg, W, H)!.slice(0, W * H * 4);
    for (let i = 0; i < 3000; i++) {
      const cut = jpeg.subarray(0, 20 + (i % (jpeg.length - 40)));
      expect(decodeJpegRgba(i % 2 ? cut : bytes(300 + (i % 50), i), W, H)).toBeNull();
    }
    expect(decodeJpegRgba(jpeg, W, H)!.subarray(0, W * H * 4)).toEqual(good);
  });

  it('decodes 4:2:0 too (the upsampling path), matching ffmpeg', () => {
    const file = path.join(dir, 'rect420.jpg');
    const w = 50;
    const h = 34;
    const make = spawnSync('ffmpeg', ['-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=64x40:rate=1', '-vf', `format=yuvj420p,crop=${w}:${h}:0:0`, '-frames:v', '1', '-pix_fmt', 'yuvj420p', '-q:v', '4', file]);
    expect(make.status, `ffmpeg could not make the test JPEG: ${make.stderr}`).toBe(0);
    // Chroma upsampled in full by swscale (its default skips the interpolation libjpeg does).
    const dec = spawnSync('ffmpeg', ['-loglevel', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgba', '-sws_flags', 'accurate_rnd+full_chroma_int+bicubic', '-'], { maxBuffer: 1 << 24 });
    const ref = new Uint8Array(dec.stdout);
    expect(ref.length).toBe(w * h * 4);
    const px = decodeJpegRgba(new Uint8Array(fs.readFileSync(file)), w, h)!.subarray(0, w * h * 4);
    let sum = 0;
    for (let i = 0; i < px.length; i++) if (i % 4 !== 3) sum += Math.abs(px[i] - ref[i]);
    // Two ways of upsampling chroma: single pixels at sharp colour edges differ a lot, on average
    // they agree to a few levels (2.75 here, as Squoosh's MozJPEG build gave too), where a wrong
    // channel order or a shifted row would be off by tens.
    expect(sum / (w * h * 3)).toBeLessThan(4);
  });
});
