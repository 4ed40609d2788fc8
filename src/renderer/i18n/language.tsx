import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { GpuDeskApi } from '../../shared/contract';
import { LANGUAGE_CHOICES, resolveLanguage, type LanguageChoice } from '../../shared/language';
import type { SettingsView } from '../../shared/models';

/** The system's locales as the shell knows them (Electron), then as this browser says them. */
export function systemLocales(s: Pick<SettingsView, 'systemLocales'> | null): string[] {
  return [...(s?.systemLocales ?? []), ...navigator.languages];
}

/**
 * The language setting: saved through the contract (settings.json, one writer in core) and applied
 * to i18next here and in every other window, which hear settings.changed.
 */
export function useLanguageSetting(api: GpuDeskApi) {
  const { i18n } = useTranslation();
  const [choice, setChoice] = useState<LanguageChoice>('system');
  const apply = useCallback(
    (s: SettingsView) => {
      setChoice(s.language);
      const lng = resolveLanguage(s.language, systemLocales(s));
      if (i18n.language !== lng) void i18n.changeLanguage(lng);
    },
    [i18n],
  );
  useEffect(() => {
    void api.invoke('settings.get', {}).then(apply, () => {});
    return api.on('settings.changed', apply);
  }, [api, apply]);
  return {
    choice,
    async set(c: LanguageChoice) {
      apply(await api.invoke('settings.set', { language: c }));
    },
  };
}

const LABEL_KEY = { system: 'language.system', en: 'language.en', 'zh-CN': 'language.zhCN' } as const;

export function LanguageSwitch({ setting }: { setting: ReturnType<typeof useLanguageSetting> }) {
  const { t } = useTranslation('common');
  return (
    <label className="theme-switch">
      {t('language.label')}
      <select value={setting.choice} onChange={(e) => void setting.set(e.target.value as LanguageChoice)} aria-label={t('language.aria')}>
        {LANGUAGE_CHOICES.map((c) => (
          <option key={c} value={c} lang={c === 'system' ? undefined : c}>
            {t(LABEL_KEY[c])}
          </option>
        ))}
      </select>
    </label>
  );
}
