/**
 * Tight's indexed rectangles (2–256 colours) expanded a 32-bit pixel at a time instead of noVNC 1.7's
 * four byte stores per pixel, with the same bytes as the result. Profiled on TurboVNC at 720p,
 * noVNC's loop was the page's largest JavaScript cost (docs/bench-viewer.md).
 */

/** Where a Tight decoder puts the pixels it expanded (noVNC's Display). */
export interface BlitTarget {
  blitImage(x: number, y: number, w: number, h: number, arr: Uint8Array, offset: number, fromQueue: boolean): void;
}

export interface TightInternals {
  /** Colours in the palette being drawn (noVNC sets it before, and clears it after, each rectangle). */
  _numColors: number;
  _getScratchBuffer(size: number): Uint8Array;
  _paletteRect(x: number, y: number, w: number, h: number, data: Uint8Array, palette: Uint8Array, display: BlitTarget): void;
  _monoRect(x: number, y: number, w: number, h: number, data: Uint8Array, palette: Uint8Array, display: BlitTarget): void;
}

/** RGBA bytes r, g, b, 255 as one 32-bit word in the machine's byte order. */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
function rgba32(p: Uint8Array, i: number): number {
  const r = p[i * 3], g = p[i * 3 + 1], b = p[i * 3 + 2];
  return LITTLE_ENDIAN ? ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0 : ((r << 24) | (g << 16) | (b << 8) | 255) >>> 0;
}

/** Replaces one noVNC Tight decoder's palette expansion (its test compares with noVNC's own). */
export function patchTightPalette(tight: TightInternals): void {
  const colours = new Uint32Array(256);
  const words = (w: number, h: number) => {
    const bytes = tight._getScratchBuffer(w * h * 4);
    return { bytes, px: new Uint32Array(bytes.buffer, bytes.byteOffset, w * h) };
  };
  tight._paletteRect = (x, y, w, h, data, palette, display) => {
    const n = Math.min(256, tight._numColors || 256);
    for (let i = 0; i < n; i++) colours[i] = rgba32(palette, i);
    const { bytes, px } = words(w, h);
    const total = w * h;
    for (let i = 0; i < total; i++) px[i] = colours[data[i]];
    display.blitImage(x, y, w, h, bytes, 0, false);
  };
  tight._monoRect = (x, y, w, h, data, palette, display) => {
    const c0 = rgba32(palette, 0), c1 = rgba32(palette, 1);
    const { bytes, px } = words(w, h);
    const rowBytes = (w + 7) >> 3;
    for (let row = 0, o = 0; row < h; row++) {
      const base = row * rowBytes;
      for (let col = 0; col < w; col++) px[o++] = (data[base + (col >> 3)] >> (7 - (col & 7))) & 1 ? c1 : c0;
    }
    display.blitImage(x, y, w, h, bytes, 0, false);
  };
}
