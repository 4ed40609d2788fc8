import { describe, expect, it } from 'vitest';
import { LOSSLESS_IDLE_MS, LossyRegion, isLosslessShortcut, refreshDue } from '../../../src/renderer/viewer/lossless';

describe('where JPEG pixels are on screen (viewer/lossless.ts)', () => {
  it('a JPEG rectangle adds its pixels; an exact one cuts out exactly the pixels it covers', () => {
    const t = new LossyRegion(1024, 768);
    t.jpeg({ x: 10, y: 10, w: 60, h: 30 });
    expect(t.lossy).toBe(1800);
    t.exact({ x: 0, y: 0, w: 40, h: 20 }); // 30×10 of it
    expect(t.lossy).toBe(1500);
    t.jpeg({ x: 10, y: 10, w: 60, h: 30 }); // drawn again: counted once
    expect(t.lossy).toBe(1800);
    t.exact({ x: 30, y: 15, w: 10, h: 10 }); // a hole in the middle
    expect(t.lossy).toBe(1700);
    // What TurboVNC's -alr sends: the same region again, lossless, in other pieces.
    t.exact({ x: 10, y: 10, w: 30, h: 30 });
    t.exact({ x: 40, y: 10, w: 30, h: 30 });
    expect(t.lossy).toBe(0);
  });

  it('only the screen counts: a rectangle past its edge is cut to it', () => {
    const t = new LossyRegion(100, 50);
    t.jpeg({ x: 90, y: 40, w: 20, h: 20 });
    expect(t.lossy).toBe(100);
  });

  it('CopyRect carries the lossy part of its source and makes the rest of its destination exact', () => {
    const t = new LossyRegion(256, 256);
    t.jpeg({ x: 0, y: 0, w: 32, h: 32 });
    t.copy({ x: 128, y: 128, w: 64, h: 32 }, 16, 0); // source holds 16×32 of the lossy square
    expect(t.lossy).toBe(32 * 32 + 16 * 32);
    t.copy({ x: 128, y: 128, w: 64, h: 32 }, 0, 200); // from exact pixels
    expect(t.lossy).toBe(32 * 32);
  });

  it('many small pieces become their bounding box (a refresh covers them all the same)', () => {
    const t = new LossyRegion(4096, 16);
    for (let i = 0; i < 600; i++) t.jpeg({ x: i * 4, y: 0, w: 2, h: 2 });
    expect(t.lossy).toBeGreaterThanOrEqual(600 * 4);
    t.exact({ x: 0, y: 0, w: 4096, h: 16 });
    expect(t.lossy).toBe(0);
  });

  it('a new framebuffer size starts clean; the same size keeps the region', () => {
    const t = new LossyRegion(64, 64);
    t.jpeg({ x: 0, y: 0, w: 64, h: 64 });
    t.fit(64, 64);
    expect(t.lossy).toBe(4096);
    t.fit(128, 64);
    expect(t.lossy).toBe(0);
  });

  it('a refresh is due once updates have stopped for LOSSLESS_IDLE_MS with JPEG pixels left, and not while one is on its way', () => {
    expect(refreshDue({ lossy: 3, lastUpdateAt: 1000, pending: false }, 1000 + LOSSLESS_IDLE_MS - 1)).toBe(false);
    expect(refreshDue({ lossy: 3, lastUpdateAt: 1000, pending: false }, 1000 + LOSSLESS_IDLE_MS)).toBe(true);
    expect(refreshDue({ lossy: 0, lastUpdateAt: 1000, pending: false }, 99_999)).toBe(false);
    expect(refreshDue({ lossy: 3, lastUpdateAt: 1000, pending: true }, 99_999)).toBe(false);
  });

  it('Ctrl+Alt+Shift+L is the shortcut (as TurboVNC Viewer), nothing less', () => {
    const k = { ctrlKey: true, altKey: true, shiftKey: true, metaKey: false, code: 'KeyL' };
    expect(isLosslessShortcut(k)).toBe(true);
    expect(isLosslessShortcut({ ...k, shiftKey: false })).toBe(false);
    expect(isLosslessShortcut({ ...k, code: 'KeyK' })).toBe(false);
    expect(isLosslessShortcut({ ...k, metaKey: true })).toBe(false);
  });
});
