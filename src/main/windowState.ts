import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Rect } from '../shared/models';

/** Size and position of the main window, remembered across runs. */
export interface WindowState {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized: boolean;
  fullScreen: boolean;
}

export const DEFAULT_STATE: WindowState = { width: 1280, height: 820, maximized: false, fullScreen: false };

/**
 * A saved position is used only when enough of the window (a 100×50 corner, the title bar) lands on
 * a display that exists now: monitors get unplugged, and a window restored off-screen looks like an
 * app that failed to start. Sizes are clamped to the display it lands on.
 */
export function fitToDisplays(state: WindowState, workAreas: Rect[], min = { width: 900, height: 600 }): WindowState {
  const width = Math.max(min.width, Math.round(state.width));
  const height = Math.max(min.height, Math.round(state.height));
  const base = { width, height, maximized: state.maximized, fullScreen: state.fullScreen };
  if (state.x === undefined || state.y === undefined) return base;
  const x = Math.round(state.x);
  const y = Math.round(state.y);
  const area = workAreas.find((a) => overlap(a, { x, y, width: Math.min(width, 100), height: 50 }) >= 100 * 50 * 0.5);
  if (!area) return base;
  return { ...base, x, y, width: Math.min(width, area.width), height: Math.min(height, area.height) };
}

function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && Math.abs(v) < 100_000 ? v : undefined;
}

/** A missing or damaged file gives the defaults; it never stops the app from starting. */
export function loadWindowState(file: string): WindowState {
  try {
    const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const width = num(raw.width);
    const height = num(raw.height);
    if (width === undefined || height === undefined) return { ...DEFAULT_STATE };
    const x = num(raw.x);
    const y = num(raw.y);
    return {
      ...(x !== undefined && y !== undefined ? { x, y } : {}),
      width,
      height,
      maximized: raw.maximized === true,
      fullScreen: raw.fullScreen === true,
    };
  } catch {
    return { ...DEFAULT_STATE };
  }
}

/** Atomic: a crash mid-write leaves the previous state, never half a file. */
export function saveWindowState(file: string, state: WindowState): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}
