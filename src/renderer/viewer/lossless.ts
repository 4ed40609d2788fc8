/**
 * Where the screen shows JPEG pixels, so the viewer knows when a lossless refresh is owed: once the
 * updates stop (LOSSLESS_IDLE_MS after the last one) and some JPEG pixels are still on screen, the
 * viewer asks for the whole screen without JPEG (rfbSession.ts). A server that refreshes those regions
 * itself (TurboVNC's -alr, which sessions gpu-desk starts have) sends them lossless first, which
 * clears them here, so the viewer then asks for nothing. Pure, so it is tested without a browser.
 *
 * The lossy region is a list of disjoint rectangles: a JPEG rectangle is added, an exact one (any
 * other encoding) is cut out of it, CopyRect carries the lossy part of its source. Past MAX_RECTS
 * pieces the region becomes its bounding box (a refresh then covers a little more than it must).
 */
import { isShortcut, viewerShortcut, type ShortcutKeys } from './shortcutKeys';

export const LOSSLESS_IDLE_MS = 1000;
const MAX_RECTS = 512;

/** A rectangle of an RFB update, in noVNC's names (w, h). */
export interface UpdateRect { x: number; y: number; w: number; h: number }

function intersect(a: UpdateRect, b: UpdateRect): UpdateRect | null {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const r = Math.min(a.x + a.w, b.x + b.w);
  const btm = Math.min(a.y + a.h, b.y + b.h);
  return r > x && btm > y ? { x, y, w: r - x, h: btm - y } : null;
}

/** a minus b: up to four disjoint pieces. */
function subtract(a: UpdateRect, b: UpdateRect): UpdateRect[] {
  const i = intersect(a, b);
  if (!i) return [a];
  const out: UpdateRect[] = [];
  if (i.y > a.y) out.push({ x: a.x, y: a.y, w: a.w, h: i.y - a.y });
  if (i.y + i.h < a.y + a.h) out.push({ x: a.x, y: i.y + i.h, w: a.w, h: a.y + a.h - (i.y + i.h) });
  if (i.x > a.x) out.push({ x: a.x, y: i.y, w: i.x - a.x, h: i.h });
  if (i.x + i.w < a.x + a.w) out.push({ x: i.x + i.w, y: i.y, w: a.x + a.w - (i.x + i.w), h: i.h });
  return out;
}

export class LossyRegion {
  private width = 0;
  private height = 0;
  private rects: UpdateRect[] = [];

  constructor(width = 0, height = 0) {
    this.resize(width, height);
  }

  /** A new framebuffer size: nothing lossy on it yet (the server sends it whole). */
  resize(width: number, height: number): void {
    this.width = Math.max(0, width);
    this.height = Math.max(0, height);
    this.rects = [];
  }

  /** Follows a new framebuffer size (a no-op while it stays the same). */
  fit(width: number, height: number): void {
    if (width !== this.width || height !== this.height) this.resize(width, height);
  }

  /** Pixels that show JPEG. */
  get lossy(): number {
    let n = 0;
    for (const r of this.rects) n += r.w * r.h;
    return n;
  }

  clear(): void {
    this.rects = [];
  }

  /** A rectangle drawn from JPEG. */
  jpeg(r: UpdateRect): void {
    const c = this.clip(r);
    if (!c) return;
    this.exact(c);
    this.rects.push(c);
    if (this.rects.length > MAX_RECTS) this.rects = [this.bounds()];
  }

  /** A rectangle drawn exactly (any other encoding): its pixels are exact again. */
  exact(r: UpdateRect): void {
    if (r.w <= 0 || r.h <= 0 || !this.rects.length) return;
    this.rects = this.rects.flatMap((x) => subtract(x, r));
  }

  /** CopyRect from (sx, sy): the destination is lossy where its source was. */
  copy(r: UpdateRect, sx: number, sy: number): void {
    const src = { x: sx, y: sy, w: r.w, h: r.h };
    const moved = this.rects.flatMap((x) => {
      const i = intersect(x, src);
      return i ? [{ x: i.x - sx + r.x, y: i.y - sy + r.y, w: i.w, h: i.h }] : [];
    });
    this.exact(r);
    for (const m of moved) this.jpeg(m);
  }

  private clip(r: UpdateRect): UpdateRect | null {
    return intersect(r, { x: 0, y: 0, w: this.width, h: this.height });
  }

  private bounds(): UpdateRect {
    const x = Math.min(...this.rects.map((r) => r.x));
    const y = Math.min(...this.rects.map((r) => r.y));
    const right = Math.max(...this.rects.map((r) => r.x + r.w));
    const bottom = Math.max(...this.rects.map((r) => r.y + r.h));
    return { x, y, w: right - x, h: bottom - y };
  }
}

/** Whether to ask for a lossless refresh now: JPEG pixels on screen, and no update for LOSSLESS_IDLE_MS. */
export function refreshDue(t: { lossy: number; lastUpdateAt: number; pending: boolean }, now: number): boolean {
  return t.lossy > 0 && !t.pending && now - t.lastUpdateAt >= LOSSLESS_IDLE_MS;
}

/** TurboVNC Viewer's own key for Lossless Refresh. */
export const LOSSLESS_SHORTCUT = viewerShortcut('L');

export function isLosslessShortcut(e: ShortcutKeys): boolean {
  return isShortcut(LOSSLESS_SHORTCUT, e);
}
