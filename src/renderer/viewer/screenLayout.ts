/**
 * The remote desktop as several screens (RandR monitors on the server), so a program maximises onto
 * one of them as it would on the desk. Pure: the desk's monitors in, the RFB screen list out, and the
 * SetDesktopSize message that carries it (ExtendedDesktopSize, rfbproto "SetDesktopSize", type 251).
 */
import type { Rect } from '../../shared/models';
import { spanBounds } from '../../shared/spanDisplays';

export type { Rect } from '../../shared/models';

/** One screen of an RFB layout: its id (kept by the server across changes) and where it lies. */
export interface RfbScreen extends Rect { id: number; flags: number }

export interface ScreenLayout { width: number; height: number; screens: RfbScreen[] }

/** What the viewer's "Screens" choice may be. */
export type ScreensMode = 'one' | 'two' | 'monitors';
export const SCREENS_MODES: readonly ScreensMode[] = ['one', 'two', 'monitors'];

/**
 * Largest desktop asked for. RFB's sizes are 16-bit; X caps a screen at 32767 pixels a side and
 * both TigerVNC's and TurboVNC's Xvnc refuse a framebuffer beyond that (RandR's maximum size).
 */
export const MAX_DESKTOP = { width: 32767, height: 32767 } as const;

/**
 * The desk's monitors (in any coordinates: Electron's displays, the Window Management API's screens)
 * as a layout from (0,0): the top-left monitor's corner becomes the origin, and when the whole is
 * larger than `max` it is scaled down evenly (each screen keeps its shape and place) so it fits.
 * Screen ids: 1.. in the order given (the server keeps an id it knows, and makes a new output for
 * a new one).
 */
export function layoutFromMonitors(monitors: readonly Rect[], max: { width: number; height: number } = MAX_DESKTOP): ScreenLayout {
  const ok = monitors.filter((m) => Number.isFinite(m.x) && Number.isFinite(m.y) && m.width >= 1 && m.height >= 1);
  if (!ok.length) throw new Error('no monitor to lay the desktop out on: choose Screens: 1 or 2 side by side');
  // The same rectangle a spanning viewer's window covers, so each screen lands under its monitor.
  const all = spanBounds(ok)!;
  const left = all.x;
  const top = all.y;
  const right = all.x + all.width;
  const bottom = all.y + all.height;
  const scale = Math.min(1, max.width / (right - left), max.height / (bottom - top));
  const at = (v: number) => Math.floor(v * scale);
  const screens = ok.map((m, i) => {
    const x = at(m.x - left);
    const y = at(m.y - top);
    // Edges are scaled, not sizes: monitors that touch on the desk still touch on the server.
    return { id: i + 1, flags: 0, x, y, width: Math.max(1, at(m.x - left + m.width) - x), height: Math.max(1, at(m.y - top + m.height) - y) };
  });
  return {
    width: Math.max(...screens.map((s) => s.x + s.width)),
    height: Math.max(...screens.map((s) => s.y + s.height)),
    screens,
  };
}

/** `count` equal screens side by side filling width × height (the viewer's area); an odd pixel goes to the last. */
export function sideBySide(count: number, width: number, height: number, max: { width: number; height: number } = MAX_DESKTOP): ScreenLayout {
  const w = Math.max(count, Math.min(Math.floor(width), max.width));
  const h = Math.max(1, Math.min(Math.floor(height), max.height));
  const each = Math.floor(w / count);
  const screens = Array.from({ length: count }, (_, i) => ({ id: i + 1, flags: 0, x: i * each, y: 0, width: i === count - 1 ? w - i * each : each, height: h }));
  return { width: w, height: h, screens };
}

/** Same screens at the same places (ids aside): nothing to ask the server. */
export function sameLayout(a: ScreenLayout, b: ScreenLayout): boolean {
  return a.width === b.width && a.height === b.height && a.screens.length === b.screens.length
    && a.screens.every((s, i) => { const t = b.screens[i]; return s.x === t.x && s.y === t.y && s.width === t.width && s.height === t.height; });
}

/**
 * SetDesktopSize (client → server, message type 251):
 *   u8 type, u8 padding, u16 width, u16 height, u8 number-of-screens, u8 padding,
 *   then per screen: u32 id, u16 x, u16 y, u16 width, u16 height, u32 flags — all big-endian.
 */
export function encodeSetDesktopSize(layout: ScreenLayout): Uint8Array {
  const n = layout.screens.length;
  if (n < 1 || n > 255) throw new Error(`a desktop layout has 1 to 255 screens, not ${n}`);
  const u16 = (v: number, what: string) => {
    if (!Number.isInteger(v) || v < 0 || v > 0xffff) throw new Error(`${what} ${v} does not fit RFB's 16 bits`);
    return v;
  };
  const buf = new Uint8Array(8 + 16 * n);
  const dv = new DataView(buf.buffer);
  dv.setUint8(0, 251);
  dv.setUint16(2, u16(layout.width, 'desktop width'));
  dv.setUint16(4, u16(layout.height, 'desktop height'));
  dv.setUint8(6, n);
  layout.screens.forEach((s, i) => {
    const o = 8 + 16 * i;
    dv.setUint32(o, s.id >>> 0);
    dv.setUint16(o + 4, u16(s.x, 'screen x'));
    dv.setUint16(o + 6, u16(s.y, 'screen y'));
    dv.setUint16(o + 8, u16(s.width, 'screen width'));
    dv.setUint16(o + 10, u16(s.height, 'screen height'));
    dv.setUint32(o + 12, s.flags >>> 0);
  });
  return buf;
}
