import { describe, expect, it } from 'vitest';
import { en, NAMESPACES, resources, zhCN } from '../../../src/renderer/i18n/resources';
import { createI18n, missingText } from '../../../src/renderer/i18n';
import { languageOfLocale, resolveLanguage } from '../../../src/shared/language';
import { leaves } from '../../i18n/catalogueLeaves';
import { untranslatedWords } from '../../i18n/terms';


const placeholders = (s: string) => [...s.matchAll(/\{\{\s*([\w.]+)[^}]*\}\}/g)].map((m) => m[1]).sort();

describe('catalogues', () => {
  it('zh-CN has exactly en’s namespaces and keys, none empty, with the same placeholders', () => {
    expect(Object.keys(zhCN).sort()).toEqual(Object.keys(en).sort());
    expect(Object.keys(resources).sort()).toEqual(['en', 'zh-CN']);
    for (const ns of NAMESPACES) {
      const e = leaves(en[ns]);
      const z = leaves(zhCN[ns]);
      expect([...z.keys()].sort(), ns).toEqual([...e.keys()].sort());
      for (const [k, v] of e) {
        expect(v.trim(), `en ${ns}:${k}`).not.toBe('');
        expect(z.get(k)!.trim(), `zh-CN ${ns}:${k}`).not.toBe('');
        expect(placeholders(z.get(k)!), `${ns}:${k}`).toEqual(placeholders(v));
      }
    }
  });

  it('zh-CN text is Chinese: no English word is left but product and technical terms', () => {
    const left: string[] = [];
    for (const ns of NAMESPACES) {
      for (const [k, v] of leaves(zhCN[ns])) {
        // The language menu names English in English, as every language menu does.
        if (ns === 'common' && k === 'language.en') continue;
        const words = untranslatedWords(v);
        if (words.length) left.push(`${ns}:${k}: ${words.join(' ')}`);
      }
    }
    expect(left).toEqual([]);
  });
});

describe('i18n instance', () => {
  it('translates in both languages and records a missing key and a missing value loudly', async () => {
    const errors: string[] = [];
    const orig = console.error;
    console.error = (m: string) => errors.push(m);
    try {
      const i18n = createI18n('zh-CN');
      expect(i18n.t('common:theme.dark')).toBe('深色');
      expect(i18n.t('common:displayCrumb', { display: 3 })).toBe('X 显示 :3');
      await i18n.changeLanguage('en');
      expect(i18n.t('common:displayCrumb', { display: 3 })).toBe('Display :3');
      const before = missingText().length;
      // Deliberately untyped: what a key removed from the catalogues would do at run time.
      (i18n.t as (k: string) => string)('common:no.such.key');
      i18n.t('common:displayCrumb');
      expect(missingText().slice(before)).toEqual([
        expect.objectContaining({ kind: 'key', namespace: 'common', key: 'no.such.key' }),
        expect.objectContaining({ kind: 'value', key: expect.stringContaining('display') }),
      ]);
      expect(errors.join('\n')).toContain('i18n: missing key common:no.such.key');
    } finally {
      console.error = orig;
    }
  });
});

describe('language choice', () => {
  it('follows the system’s preferred locales, Simplified Chinese for zh, English when none fits', () => {
    expect(resolveLanguage('system', ['zh-CN'])).toBe('zh-CN');
    expect(resolveLanguage('system', ['zh_CN.UTF-8'.split('.')[0]])).toBe('zh-CN');
    expect(resolveLanguage('system', ['zh-Hans-SG'])).toBe('zh-CN');
    expect(resolveLanguage('system', ['zh'])).toBe('zh-CN');
    expect(resolveLanguage('system', ['fr-FR', 'en-GB'])).toBe('en');
    expect(resolveLanguage('system', ['de-DE'])).toBe('en');
    expect(resolveLanguage('system', [])).toBe('en');
    // Traditional Chinese readers get their next preference, not Simplified characters.
    expect(languageOfLocale('zh-TW')).toBeNull();
    expect(languageOfLocale('zh-Hant-HK')).toBeNull();
    expect(resolveLanguage('system', ['zh-TW', 'zh-CN'])).toBe('zh-CN');
    expect(resolveLanguage('system', ['zh-TW', 'en-US'])).toBe('en');
    // A choice in the settings wins over the system.
    expect(resolveLanguage('en', ['zh-CN'])).toBe('en');
    expect(resolveLanguage('zh-CN', ['en-US'])).toBe('zh-CN');
  });
});
