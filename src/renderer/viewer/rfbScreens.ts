import type RFB from '@novnc/novnc';
import { encodeSetDesktopSize, sameLayout, type ScreenLayout } from './screenLayout';

/**
 * noVNC 1.7's remote resize sends one screen the size of the viewer (RFB.messages.setDesktopSize).
 * We replace the instance's _requestRemoteResize, keeping its guards (the server said it can resize,
 * one request in flight, at most every 100 ms), so that it can send a screen list instead: each
 * screen becomes a RandR monitor on the server (TigerVNC and TurboVNC Xvnc both map screens to
 * outputs), and a program maximises onto one of them.
 */
interface ResizeInternals {
  _requestRemoteResize(): void;
  _screenSize(): { w: number; h: number };
  _resizeSession: boolean;
  _viewOnly: boolean;
  _supportsSetDesktopSize: boolean;
  _pendingRemoteResize: boolean;
  _lastResize: number;
  _resizeTimeout: ReturnType<typeof setTimeout> | null;
  _screenID: number;
  _screenFlags: number;
  _fbWidth: number;
  _fbHeight: number;
  _sock: { sQpushBytes(b: Uint8Array): void; flush(): void };
}

export interface ScreenLayoutControl {
  /** Asks the server again now (the choice or the desk's monitors changed). */
  request(): void;
  /** The layout last asked for with more than one screen; null with one. */
  readonly asked: ScreenLayout | null;
}

/**
 * `want(area)` is the layout to ask for given the viewer's area in CSS pixels, or null for noVNC's own
 * behaviour (one screen following the window, in resize-remote mode only).
 */
export function installScreenLayout(rfb: RFB, want: (area: { width: number; height: number }) => ScreenLayout | null): ScreenLayoutControl {
  const r = rfb as unknown as ResizeInternals;
  for (const k of ['_requestRemoteResize', '_screenSize'] as const) {
    if (typeof r[k] !== 'function') throw new Error(`noVNC internals changed (missing ${k}): update src/renderer/viewer/rfbScreens.ts`);
  }
  const own = r._requestRemoteResize.bind(rfb);
  let asked: ScreenLayout | null = null;
  const request = () => {
    const size = r._screenSize();
    // A hidden or collapsing viewer (0×0 while the page lays out): no desktop that size.
    if (size.w < 16 || size.h < 16) return;
    let layout = want({ width: Math.floor(size.w), height: Math.floor(size.h) });
    // Back to one screen: noVNC would send nothing while the size stays (its check ignores screens).
    if (!layout && asked) {
      layout = r._resizeSession
        ? { width: Math.floor(size.w), height: Math.floor(size.h), screens: [{ id: 0, flags: 0, x: 0, y: 0, width: Math.floor(size.w), height: Math.floor(size.h) }] }
        : { width: r._fbWidth, height: r._fbHeight, screens: [{ id: 0, flags: 0, x: 0, y: 0, width: r._fbWidth, height: r._fbHeight }] };
    }
    if (!layout) { own(); return; }
    if (r._viewOnly || !r._supportsSetDesktopSize || r._pendingRemoteResize) return;
    const since = Date.now() - r._lastResize;
    if (since < 100) {
      if (r._resizeTimeout) clearTimeout(r._resizeTimeout);
      r._resizeTimeout = setTimeout(() => r._requestRemoteResize(), 100 - since);
      return;
    }
    r._resizeTimeout = null;
    const multi = layout.screens.length > 1;
    if (multi && asked && sameLayout(asked, layout) && layout.width === r._fbWidth && layout.height === r._fbHeight) return;
    if (!multi && !asked && layout.width === r._fbWidth && layout.height === r._fbHeight) return;
    // The first screen keeps the id the server gave it (its output stays); the others get ids of their own.
    const screens = layout.screens.map((s, i) => ({ ...s, id: (r._screenID + i) >>> 0, flags: i === 0 ? r._screenFlags : 0 }));
    r._pendingRemoteResize = true;
    r._lastResize = Date.now();
    r._sock.sQpushBytes(encodeSetDesktopSize({ ...layout, screens }));
    r._sock.flush();
    asked = multi ? layout : null;
  };
  r._requestRemoteResize = request;
  return { request, get asked() { return asked; } };
}
