import { describe, expect, it } from 'vitest';
import { LOSSLESS_IDLE_MS, LossyTiles, isLosslessShortcut, refreshDue } from '../../../src/renderer/viewer/lossless';

describe('where JPEG pixels are on screen (viewer/lossless.ts)', () => {
  it('a JPEG rectangle marks every 32×32 tile it touches; an exact one clears only tiles it covers whole', () => {
    const t = new LossyTiles(1024, 768);
    t.jpeg({ x: 10, y: 10, w: 60, h: 30 }); // columns 0–2, rows 0–1
    expect(t.lossy).toBe(6);
    t.exact({ x: 0, y: 0, w: 64, h: 31 }); // covers no tile whole
    expect(t.lossy).toBe(6);
    t.exact({ x: 0, y: 0, w: 64, h: 64 }); // columns 0–1, rows 0–1
    expect(t.lossy).toBe(2);
    t.exact({ x: 64, y: 0, w: 32, h: 64 });
    expect(t.lossy).toBe(0);
  });

  it('a rectangle reaching the screen\'s edge covers the partial tiles there', () => {
    const t = new LossyTiles(100, 50); // 4×2 tiles, the last column and row partial
    t.jpeg({ x: 96, y: 32, w: 4, h: 18 });
    expect(t.lossy).toBe(1);
    t.exact({ x: 96, y: 32, w: 4, h: 18 });
    expect(t.lossy).toBe(0);
  });

  it('CopyRect carries the marks of its source: lossy from lossy, exact from exact', () => {
    const t = new LossyTiles(256, 256);
    t.jpeg({ x: 0, y: 0, w: 32, h: 32 });
    t.copy({ x: 128, y: 128, w: 32, h: 32 }, 0, 0);
    expect(t.lossy).toBe(2);
    t.copy({ x: 128, y: 128, w: 32, h: 32 }, 64, 64);
    expect(t.lossy).toBe(1);
  });

  it('a new framebuffer size starts clean; the same size keeps the marks', () => {
    const t = new LossyTiles(64, 64);
    t.jpeg({ x: 0, y: 0, w: 64, h: 64 });
    t.fit(64, 64);
    expect(t.lossy).toBe(4);
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
