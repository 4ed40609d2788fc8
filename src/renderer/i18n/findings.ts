import { useCallback } from 'react';
import { useTranslation } from 'react-i18next';
import type { Finding } from '../../shared/models';
import en from './locales/en/findings';

type MessageKey = keyof typeof en.message;
type FixKey = keyof typeof en.fix;

/**
 * A finding in the app's language: by the keys and values core sends with it. English, and a
 * finding whose keys this build does not know (a newer core), show core's own text.
 */
export function useFindingText(): (f: Finding) => { message: string; fix: string } {
  const { t, i18n } = useTranslation('findings');
  return useCallback(
    (f: Finding) => {
      const k = f.text;
      if (i18n.resolvedLanguage === 'en' || !k || !(k.message in en.message) || !(k.fix in en.fix)) return { message: f.message, fix: f.fix };
      // The keys come from core at run time (checked against the catalogue just above), and each
      // takes its own values: typed t() cannot check one params object against a union of keys.
      const tr = t as unknown as (key: `message.${MessageKey}` | `fix.${FixKey}`, values: Record<string, string>) => string;
      return { message: tr(`message.${k.message as MessageKey}`, k.params), fix: tr(`fix.${k.fix as FixKey}`, k.params) };
    },
    [t, i18n.resolvedLanguage],
  );
}
