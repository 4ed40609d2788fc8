/**
 * Where the screen shows JPEG pixels, so the viewer knows when a lossless refresh is owed: once the
 * updates stop (LOSSLESS_IDLE_MS after the last one) and some JPEG pixels are still on screen, the
 * viewer asks for the whole screen without JPEG (rfbSession.ts). A server that refreshes those regions
 * itself (TurboVNC's -alr, which sessions gpu-desk starts have) sends them lossless first, which
 * clears them here, so the viewer then asks for nothing. Pure, so it is tested without a browser.
 *
 * The screen is kept as TILE×TILE tiles: a JPEG rectangle marks every tile it touches; a lossless
 * rectangle clears the tiles it covers whole; CopyRect carries the marks of its source.
 */
export const LOSSLESS_IDLE_MS = 1000;
const TILE = 32;

export interface Rect { x: number; y: number; w: number; h: number }

export class LossyTiles {
  private width = 0;
  private height = 0;
  private cols = 0;
  private rows = 0;
  private marks = new Uint8Array(0);
  private count = 0;

  constructor(width = 0, height = 0) {
    this.resize(width, height);
  }

  /** A new framebuffer size: nothing lossy on it yet (the server sends it whole). */
  resize(width: number, height: number): void {
    this.width = Math.max(0, width);
    this.height = Math.max(0, height);
    this.cols = Math.ceil(Math.max(0, width) / TILE);
    this.rows = Math.ceil(Math.max(0, height) / TILE);
    this.marks = new Uint8Array(this.cols * this.rows);
    this.count = 0;
  }

  /** Follows a new framebuffer size (a no-op while it stays the same). */
  fit(width: number, height: number): void {
    if (width !== this.width || height !== this.height) this.resize(width, height);
  }

  /** Tiles that show JPEG pixels. */
  get lossy(): number {
    return this.count;
  }

  clear(): void {
    this.marks.fill(0);
    this.count = 0;
  }

  /** A rectangle drawn from JPEG: every tile it touches is lossy. */
  jpeg(r: Rect): void {
    this.each(r, false, (i) => this.set(i, 1));
  }

  /** A rectangle drawn exactly (any other encoding): the tiles it covers whole are exact again. */
  exact(r: Rect): void {
    this.each(r, true, (i) => this.set(i, 0));
  }

  /** CopyRect from (sx, sy): the destination is as lossy as any source tile it came from. */
  copy(r: Rect, sx: number, sy: number): void {
    let lossy = false;
    this.each({ x: sx, y: sy, w: r.w, h: r.h }, false, (i) => { if (this.marks[i]) lossy = true; });
    if (lossy) this.jpeg(r);
    else this.exact(r);
  }

  private set(i: number, v: 0 | 1): void {
    if (this.marks[i] !== v) {
      this.count += v ? 1 : -1;
      this.marks[i] = v;
    }
  }

  /** The tiles `r` touches (or, `whole`, covers completely; a rectangle reaching the screen's edge covers its edge tiles). */
  private each(r: Rect, whole: boolean, fn: (i: number) => void): void {
    if (r.w <= 0 || r.h <= 0 || !this.cols) return;
    const right = r.x + r.w;
    const bottom = r.y + r.h;
    const edgeX = right >= this.width;
    const edgeY = bottom >= this.height;
    const c0 = whole ? Math.ceil(r.x / TILE) : Math.floor(r.x / TILE);
    const r0 = whole ? Math.ceil(r.y / TILE) : Math.floor(r.y / TILE);
    const c1 = Math.min(this.cols, whole && !edgeX ? Math.floor(right / TILE) : Math.ceil(right / TILE));
    const r1 = Math.min(this.rows, whole && !edgeY ? Math.floor(bottom / TILE) : Math.ceil(bottom / TILE));
    for (let row = Math.max(0, r0); row < r1; row++) {
      for (let col = Math.max(0, c0); col < c1; col++) fn(row * this.cols + col);
    }
  }
}

/** Whether to ask for a lossless refresh now: JPEG pixels on screen, and no update for LOSSLESS_IDLE_MS. */
export function refreshDue(t: { lossy: number; lastUpdateAt: number; pending: boolean }, now: number): boolean {
  return t.lossy > 0 && !t.pending && now - t.lastUpdateAt >= LOSSLESS_IDLE_MS;
}

/** TurboVNC Viewer's own key for Lossless Refresh. */
export const LOSSLESS_SHORTCUT = { label: 'Ctrl+Alt+Shift+L', aria: 'Control+Alt+Shift+L' } as const;

export function isLosslessShortcut(e: { ctrlKey: boolean; altKey: boolean; shiftKey: boolean; metaKey: boolean; code: string }): boolean {
  return e.ctrlKey && e.altKey && e.shiftKey && !e.metaKey && e.code === 'KeyL';
}
