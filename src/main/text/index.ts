import i18next from 'i18next';
import type { Language } from '../../shared/language';
import en from './en';
import zhCN from './zh-CN';

export const mainCatalogues = { en, 'zh-CN': zhCN } as const;

type PluralBase<K extends string> = K extends `${infer B}_${'one' | 'other'}` ? B : K;
type Leaves<T, P extends string = ''> = {
  [K in keyof T & string]: T[K] extends string ? `${P}${PluralBase<K>}` : Leaves<T[K], `${P}${K}.`>;
}[keyof T & string];
export type MainKey = Leaves<typeof en>;

/** The main process's words in one language; a key with plural forms takes `count`. */
export type MainText = (key: MainKey, values?: Record<string, string | number>) => string;

/**
 * Main's own i18next instance (the renderer has another, over its own catalogues): main cannot wait
 * for a window to translate a tray menu that exists with no window open.
 */
export function createMainText(language: Language, onMissing: (what: string) => void = () => {}): MainText {
  const i18n = i18next.createInstance();
  void i18n.init({
    resources: { en: { main: en }, 'zh-CN': { main: zhCN } },
    lng: language,
    fallbackLng: 'en',
    supportedLngs: ['en', 'zh-CN'],
    ns: ['main'],
    defaultNS: 'main',
    initAsync: false,
    // Menu labels are not HTML.
    interpolation: { escapeValue: false },
    saveMissing: true,
    missingKeyHandler: (_lngs, _ns, key) => onMissing(`key ${key} (${language})`),
  });
  return (key, values) => i18n.t(key, values ?? {}) as string;
}

export const englishText: MainText = createMainText('en');
