import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Shell-level preferences (the renderer's per-profile settings live in the profile store). */
export interface ShellSettings {
  /** Closing the window while tunnels are open keeps gpu-desk running in the tray. */
  keepRunningInTray: boolean;
}

export const DEFAULT_SETTINGS: ShellSettings = { keepRunningInTray: true };

export function loadSettings(file: string): ShellSettings {
  try {
    const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    return { keepRunningInTray: typeof raw.keepRunningInTray === 'boolean' ? raw.keepRunningInTray : DEFAULT_SETTINGS.keepRunningInTray };
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

export function saveSettings(file: string, s: ShellSettings): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(s, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

export type CloseAction = 'hide' | 'close';

/**
 * What closing the main window does. macOS apps keep running without windows anyway; elsewhere
 * the app stays in the tray only when something is running there (open tunnels) and the user
 * wants it, so an idle app closes like any other.
 */
export function closeAction(o: { quitting: boolean; keepRunningInTray: boolean; activeTunnels: number; trayAvailable: boolean }): CloseAction {
  if (o.quitting) return 'close';
  return o.keepRunningInTray && o.trayAvailable && o.activeTunnels > 0 ? 'hide' : 'close';
}
