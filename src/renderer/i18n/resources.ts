/**
 * Every catalogue, bundled into the app (no HTTP back end: the strict CSP and the app:// protocol
 * serve only the built files). One namespace per feature; to add one, add its en and zh-CN files and
 * name it in both maps below.
 */
import type { Language } from '../../shared/language';
import type { Catalogue } from './catalogue';
import enCommon from './locales/en/common';
import zhCNCommon from './locales/zh-CN/common';
import enFiles from './locales/en/files';
import zhCNFiles from './locales/zh-CN/files';
import enForwards from './locales/en/forwards';
import zhCNForwards from './locales/zh-CN/forwards';

export const en = {
  common: enCommon,
  files: enFiles,
  forwards: enForwards,
} as const;

export const zhCN: { [NS in keyof typeof en]: Catalogue<(typeof en)[NS]> } = {
  common: zhCNCommon,
  files: zhCNFiles,
  forwards: zhCNForwards,
};

export type Namespace = keyof typeof en;
export const NAMESPACES = Object.keys(en) as Namespace[];

export const resources = { en, 'zh-CN': zhCN } satisfies Record<Language, Record<Namespace, object>>;
