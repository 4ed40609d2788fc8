import type { Rect } from './screenLayout';

/** Chromium's Window Management API (not in TypeScript's DOM library yet). */
interface ScreenDetailed { left: number; top: number; width: number; height: number }
type WithScreenDetails = Window & { getScreenDetails?: () => Promise<{ screens: ScreenDetailed[] }> };

/** What the shell itself knows (app.displays: Electron's screen module; null in the harness). */
export type ShellDisplays = () => Promise<Rect[] | null>;

export interface DeskMonitors {
  monitors: Rect[];
  /** Where they came from: every monitor (the API was granted), or only the one this window is on. */
  source: 'all' | 'this-one';
}

/**
 * The desk's monitors in CSS pixels, in the desk's own arrangement: from the shell where it knows
 * them (Electron), else the browser's Window Management API (Chromium asks the person once);
 * refused or absent (Firefox, Safari), only this window's monitor is known.
 */
export async function deskMonitors(fromShell: ShellDisplays, win: Window = window): Promise<DeskMonitors> {
  try {
    const shell = await fromShell();
    if (shell?.length) return { monitors: shell, source: 'all' };
  } catch {
    /* an older core without app.displays: the browser's own way */
  }
  const w = win as WithScreenDetails;
  if (typeof w.getScreenDetails === 'function') {
    try {
      const d = await w.getScreenDetails();
      if (d.screens.length) return { monitors: d.screens.map((s) => ({ x: s.left, y: s.top, width: s.width, height: s.height })), source: 'all' };
    } catch {
      /* permission refused: this monitor only */
    }
  }
  return { monitors: [{ x: 0, y: 0, width: win.screen.width, height: win.screen.height }], source: 'this-one' };
}
