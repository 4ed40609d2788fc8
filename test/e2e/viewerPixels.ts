import { expect, type Page } from '@playwright/test';
import { differingPixels, serverScreen, type Rect } from '../bed';
import type { Env } from './fixtures';

const CANVAS = '[data-testid="vnc-screen"] canvas';
// The viewer draws into an OffscreenCanvas that the element shows (rfbPatches.ts, installOffscreen);
// the element carries it under this key, and only it hands out the 2D context with the pixels.
type ViewerCanvas = HTMLCanvasElement & { [k: symbol]: OffscreenCanvas | undefined };

/** The viewer canvas's size (its framebuffer, whatever CSS scaling shows). */
export function canvasSize(page: Page): Promise<{ w: number; h: number }> {
  return page.evaluate((sel) => {
    const el = document.querySelector<ViewerCanvas>(sel);
    const c = el?.[Symbol.for('gpu-desk.viewer.offscreen')] ?? el;
    return { w: c?.width ?? 0, h: c?.height ?? 0 };
  }, CANVAS);
}

/** The viewer canvas's pixels in `rect` as packed RGB; null while the canvas is smaller than that. */
export async function canvasRgb(page: Page, rect: Rect, selector = CANVAS): Promise<Buffer | null> {
  const b64 = await page.evaluate(([sel, x, y, w, h]) => {
    const el = document.querySelector<ViewerCanvas>(sel as string);
    const c = el?.[Symbol.for('gpu-desk.viewer.offscreen')] ?? el;
    if (!c || c.width < (x as number) + (w as number) || c.height < (y as number) + (h as number)) return null;
    const d = (c.getContext('2d') as CanvasRenderingContext2D).getImageData(x as number, y as number, w as number, h as number).data;
    const rgb = new Uint8Array((d.length / 4) * 3);
    for (let i = 0, j = 0; i < d.length; i += 4, j += 3) { rgb[j] = d[i]; rgb[j + 1] = d[i + 1]; rgb[j + 2] = d[i + 2]; }
    let s = '';
    for (let i = 0; i < rgb.length; i += 0x8000) s += String.fromCharCode(...rgb.subarray(i, i + 0x8000));
    return btoa(s);
  }, [selector, rect.x, rect.y, rect.w, rect.h] as const);
  return b64 === null ? null : Buffer.from(b64, 'base64');
}

/**
 * How many pixels of `rect` the viewer draws differently from what the server's X screen shows now
 * (the whole screen when no rect is given); -1 while the canvas is not that large yet. Meant for
 * expect.poll: the two are read a moment apart, so a still screen converges to 0.
 *
 * Exact, not "close enough": callers first switch the codec to lossless (no JPEG quality
 * pseudo-encoding, so neither TurboVNC nor TigerVNC uses JPEG; Tight's other sub-encodings are
 * exact) and noVNC's 24-bit true-colour pixel format carries the X server's depth-24 pixels
 * unchanged. Any difference left is then a drawing fault, not codec noise.
 */
export async function pixelsUnlikeServer(page: Page, env: Env, display: number, rect?: Rect): Promise<number> {
  const r = rect ?? { x: 0, y: 0, ...(await canvasSize(page)) };
  if (r.w === 0 || r.h === 0) return -1;
  const shown = await canvasRgb(page, r);
  if (!shown) return -1;
  return differingPixels(shown, await serverScreen(env.bed.home, display, r));
}

/** SHA-256 of the whole viewer canvas (to tell frames apart without moving them out of the page). */
export function canvasDigest(page: Page): Promise<string> {
  return page.evaluate(async (sel) => {
    const el = document.querySelector<ViewerCanvas>(sel);
    const c = el?.[Symbol.for('gpu-desk.viewer.offscreen')] ?? el;
    if (!c || c.width === 0) return '';
    const d = (c.getContext('2d') as CanvasRenderingContext2D).getImageData(0, 0, c.width, c.height).data;
    const h = new Uint8Array(await crypto.subtle.digest('SHA-256', d));
    return Array.from(h, (b) => b.toString(16).padStart(2, '0')).join('');
  }, CANVAS);
}

/** Lossless Tight from the codec panel: exact pixels, so the viewer can be compared with the server. */
export async function chooseLossless(page: Page): Promise<void> {
  const panel = page.getByTestId('codec-panel');
  if (!(await panel.isVisible())) await page.getByTestId('open-codec').click();
  await panel.getByLabel('Preset').selectOption('lossless');
  await expect(panel.getByLabel('Lossless (no JPEG)')).toBeChecked();
  await panel.getByRole('button', { name: 'Close quality panel' }).click();
}
