import type { Rect } from './models';

/**
 * A desktop's size at start: "WxH" (one screen), or TurboVNC's multi-screen form
 * "W0xH0+X0+Y0,W1xH1+X1+Y1,…" (its Xvnc and vncserver take it as -geometry: one RandR monitor each).
 * TigerVNC's -geometry takes one size only: it starts at the screens' bounding box, and the viewer
 * splits it into the screens with SetDesktopSize once connected.
 */
export const MAX_START_SCREENS = 16;

export const START_GEOMETRY_RE = /^\d{2,5}x\d{2,5}$|^\d{2,5}x\d{2,5}\+\d{1,5}\+\d{1,5}(,\d{2,5}x\d{2,5}\+\d{1,5}\+\d{1,5}){0,15}$/;
export const START_GEOMETRY_HINT = 'WIDTHxHEIGHT, e.g. 1920x1080, or one WxH+X+Y per screen, e.g. 1920x1080+0+0,1920x1080+1920+0';

/** The screens a geometry names (one at 0,0 for "WxH"); null when it is not a geometry. */
export function geometryScreens(g: string): Rect[] | null {
  if (!START_GEOMETRY_RE.test(g)) return null;
  return g.split(',').map((part) => {
    const [size, x = '0', y = '0'] = part.split('+');
    const [w, h] = size.split('x');
    return { x: Number(x), y: Number(y), width: Number(w), height: Number(h) };
  });
}

/** "WxH" of the screens' bounding box (what a single-screen server starts at). */
export function boundingGeometry(g: string): string | null {
  const s = geometryScreens(g);
  if (!s) return null;
  return `${Math.max(...s.map((r) => r.x + r.width))}x${Math.max(...s.map((r) => r.y + r.height))}`;
}

/** The multi-screen geometry of these screens (e.g. from the desk's monitors). */
export function formatGeometry(screens: readonly Rect[]): string {
  if (screens.length === 1 && screens[0].x === 0 && screens[0].y === 0) return `${screens[0].width}x${screens[0].height}`;
  return screens.map((s) => `${s.width}x${s.height}+${s.x}+${s.y}`).join(',');
}
