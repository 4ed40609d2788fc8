import i18next, { type i18n as I18n } from 'i18next';
import { initReactI18next } from 'react-i18next';
import type { Language } from '../../shared/language';
import { NAMESPACES, resources } from './resources';

/** A key or an interpolation value the app asked for and no catalogue had. */
export interface MissingText {
  kind: 'key' | 'value';
  language: string;
  namespace: string;
  key: string;
}

/** Read by the e2e suite, which fails on any entry: a missing text is a bug, never a fallback to English. */
export const MISSING_TEXT_GLOBAL = '__gpuDeskMissingText';

export function missingText(): MissingText[] {
  const g = globalThis as { [MISSING_TEXT_GLOBAL]?: MissingText[] };
  return (g[MISSING_TEXT_GLOBAL] ??= []);
}

function record(m: MissingText): void {
  missingText().push(m);
  console.error(`i18n: missing ${m.kind} ${m.namespace}:${m.key} (${m.language})`);
}

/**
 * The renderer's i18next instance, ready synchronously (the catalogues are bundled). Missing keys
 * and missing interpolation values are recorded and logged instead of silently showing the key.
 */
export function createI18n(language: Language): I18n {
  const i18n = i18next.createInstance();
  void i18n.use(initReactI18next).init({
    resources,
    lng: language,
    fallbackLng: 'en',
    supportedLngs: ['en', 'zh-CN'],
    ns: NAMESPACES,
    defaultNS: 'common',
    initAsync: false,
    // React escapes what it renders; escaping here too would show "&amp;" in host names.
    interpolation: { escapeValue: false },
    returnNull: false,
    saveMissing: true,
    missingKeyHandler: (lngs, ns, key) => record({ kind: 'key', language: lngs.join(','), namespace: ns, key }),
    missingInterpolationHandler: (text, value) => {
      record({ kind: 'value', language: i18n.language, namespace: '', key: `${String(value[1] ?? value[0])} in "${text}"` });
      return '';
    },
  });
  return i18n;
}
