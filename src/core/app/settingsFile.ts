import fs from 'node:fs';
import path from 'node:path';
import { isLanguageChoice } from '../../shared/language';
import type { AppSettings } from '../../shared/models';
import { writeFileAtomic } from '../profiles/atomicFile';
import { ensureDir } from '../profiles/appPaths';

export const DEFAULT_SETTINGS: AppSettings = { language: 'system', keepRunningInTray: true };

/**
 * The app's preferences, shared by the Electron shell and the harness. A missing, unreadable or
 * hand-broken file gives the defaults field by field: a preference is never worth refusing to start.
 */
export function loadSettings(file: string): AppSettings {
  let raw: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) raw = parsed as Record<string, unknown>;
  } catch {}
  return {
    language: isLanguageChoice(raw.language) ? raw.language : DEFAULT_SETTINGS.language,
    keepRunningInTray: typeof raw.keepRunningInTray === 'boolean' ? raw.keepRunningInTray : DEFAULT_SETTINGS.keepRunningInTray,
  };
}

export function saveSettings(file: string, s: AppSettings): void {
  ensureDir(path.dirname(file));
  writeFileAtomic(file, `${JSON.stringify(s, null, 2)}\n`, { mode: 0o600 });
}
