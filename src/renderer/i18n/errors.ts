import { useCallback, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import type { ErrorCode } from '../../shared/errorCodes';
import en from './locales/en/errors';

/** A call's error as one line for people: message, then the fix (core's English). */
function englishLine(e: unknown): string {
  const x = e as { message?: string; fix?: string };
  const msg = x?.message ?? String(e);
  return x?.fix ? `${msg} — ${x.fix}` : msg;
}

/**
 * Errors come from core in English with a stable code. English shows core's line as it is (it names
 * the host, the file and the fix); another language shows its text for the code, with core's line
 * as the detail where the code alone cannot say it. An unknown code shows core's line.
 */
// Every code has its line: a new code in errorCodes.ts fails typecheck until both catalogues have it.
const _everyCode: Record<ErrorCode, string> = en.codes;
void _everyCode;

export function useErrorLine(): (e: unknown) => string {
  const { t, i18n } = useTranslation('errors');
  const latest = useRef({ t, language: i18n.resolvedLanguage });
  latest.current = { t, language: i18n.resolvedLanguage };
  // One function for the component's life, speaking the language of the moment it is called: effects
  // list it as a dependency without starting again when the language changes.
  return useCallback((e: unknown) => {
    const { t, language } = latest.current;
    const line = englishLine(e);
    const code = (e as { code?: string })?.code;
    if (language === 'en' || !code || !(code in en.codes)) return line;
    if (code in en.complete) return t(`complete.${code as keyof typeof en.complete}`);
    return t('detail', { text: t(`codes.${code as ErrorCode}`), detail: line });
  }, []);
}
