import { GpuDeskError } from '../../errors';
import type { Emit, HandlersOf } from '../../../shared/contract';
import type { AppSettings, DeskDisplay, SettingsView } from '../../../shared/models';
import { loadSettings, saveSettings } from '../settingsFile';

export interface SettingsDeps {
  /** settings.json: the language and the shell's preferences. */
  settingsFile: string;
  emit: Emit;
  /** The OS's preferred locales where the shell knows them (Electron); the harness leaves it to the browser. */
  systemLocales?(): string[];
}

/** settings.*: one writer of settings.json; every change goes out as settings.changed. */
export function settingsHandlers(deps: SettingsDeps): HandlersOf<'settings'> {
  const view = (s: AppSettings): SettingsView => ({ ...s, systemLocales: deps.systemLocales?.() ?? [] });
  return {
    'settings.get': async () => view(loadSettings(deps.settingsFile)),
    'settings.set': async (change) => {
      const next = { ...loadSettings(deps.settingsFile), ...definedOnly(change) };
      saveSettings(deps.settingsFile, next);
      const v = view(next);
      deps.emit('settings.changed', v);
      return v;
    },
  };
}

export interface AppInfoDeps {
  shell: 'electron' | 'harness';
  version: string;
  openExternal?(url: string): Promise<void>;
  /** The desk's monitors (Electron's screen module); absent in the harness. */
  displays?(): DeskDisplay[];
}

/** app.*: what the shell is, and a browser for local web services. */
export function appHandlers(deps: AppInfoDeps): HandlersOf<'app'> {
  return {
    'app.info': async () => ({ version: deps.version, shell: deps.shell, platform: process.platform }),
    'app.openExternal': async ({ url }) => {
      if (!deps.openExternal) throw new GpuDeskError('BAD_ARGUMENT', 'Opening a browser is not available here', `open ${url} yourself`);
      await deps.openExternal(url);
    },
    'app.displays': async () => deps.displays?.() ?? null,
  };
}

/** zod leaves an absent optional field as `undefined`, which must not overwrite a saved value. */
function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
