/** The languages the app's catalogues cover (the CLI stays English). */
export const LANGUAGES = ['en', 'zh-CN'] as const;
export type Language = (typeof LANGUAGES)[number];

/** What the settings hold: a language, or whatever the operating system's locale says. */
export const LANGUAGE_CHOICES = ['system', ...LANGUAGES] as const;
export type LanguageChoice = (typeof LANGUAGE_CHOICES)[number];

export function isLanguageChoice(x: unknown): x is LanguageChoice {
  return typeof x === 'string' && (LANGUAGE_CHOICES as readonly string[]).includes(x);
}

/**
 * The catalogue for one BCP 47 locale, or null where none fits. Chinese counts as Simplified unless
 * it names a Traditional script or region: zh-TW/HK/MO readers are better served by their second
 * preference than by characters they do not write.
 */
export function languageOfLocale(locale: string): Language | null {
  const tag = locale.trim().replace(/_/g, '-').toLowerCase();
  if (tag === 'en' || tag.startsWith('en-')) return 'en';
  if (tag === 'zh' || tag.startsWith('zh-')) {
    if (/^zh-(hant|tw|hk|mo)(-|$)/.test(tag) || /-hant(-|$)/.test(tag)) return null;
    return 'zh-CN';
  }
  return null;
}

/** The language to show: the user's choice, else the first of the system's preferred locales we have, else English. */
export function resolveLanguage(choice: LanguageChoice, systemLocales: readonly string[]): Language {
  if (choice !== 'system') return choice;
  for (const l of systemLocales) {
    const lang = languageOfLocale(l);
    if (lang) return lang;
  }
  return 'en';
}
