/**
 * A viewer spanning every desk monitor (TurboVNC Viewer's "Span: all monitors"): one borderless window
 * over the union of the displays, and the remote desktop laid out with one RandR screen per display
 * (the viewer's "Match my monitors"). Pure, so the Electron shell and the renderer share it.
 */

export interface DisplayRect { x: number; y: number; width: number; height: number }

/** The smallest rectangle holding every usable display (desk coordinates), or null when none is. */
export function spanBounds(displays: readonly DisplayRect[]): DisplayRect | null {
  const ok = displays.filter((d) => [d.x, d.y, d.width, d.height].every(Number.isFinite) && d.width >= 1 && d.height >= 1);
  if (!ok.length) return null;
  const left = Math.min(...ok.map((d) => d.x));
  const top = Math.min(...ok.map((d) => d.y));
  const right = Math.max(...ok.map((d) => d.x + d.width));
  const bottom = Math.max(...ok.map((d) => d.y + d.height));
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/** The last part of a viewer's address (#viewer/<connection>/<profile>/<display>/span) that asks for a spanning window. */
export const SPAN_PART = 'span';

/** Whether a URL the renderer opens is a spanning viewer's (security.ts has already checked it is our own page). */
export function isSpanViewerUrl(url: string): boolean {
  let hash: string;
  try {
    hash = new URL(url).hash;
  } catch {
    return false;
  }
  const parts = hash.split('/');
  return parts.length === 5 && parts[0] === '#viewer' && parts[4] === SPAN_PART;
}
