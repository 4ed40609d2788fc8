import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { Language } from '../../shared/language';
import * as f from './format';

/** format.ts bound to the language on screen: `const fmt = useFormat(); fmt.bytes(n)`. */
export function useFormat() {
  const { i18n } = useTranslation();
  const language = (i18n.resolvedLanguage ?? 'en') as Language;
  return useMemo(
    () => ({
      language,
      number: (n: number, digits?: number) => f.formatNumber(n, language, digits),
      percent: (fraction: number) => f.formatPercent(fraction, language),
      bytes: (n: number) => f.formatBytes(n, language),
      byteRate: (n: number) => f.formatByteRate(n, language),
      bitRate: (n: number) => f.formatBitRate(n, language),
      fps: (n: number, digits?: number) => f.formatFps(n, language, digits),
      ms: (n: number) => f.formatMs(n, language),
      duration: (ms: number) => f.formatDuration(ms, language),
      dateTime: (at: Date | number) => f.formatDateTime(at, language),
      date: (at: Date | number) => f.formatDate(at, language),
      relative: (at: Date | number) => f.formatRelative(at, language),
      list: (items: string[]) => f.formatList(items, language),
    }),
    [language],
  );
}
