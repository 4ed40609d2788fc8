/**
 * Every catalogue, bundled into the app (no HTTP back end: the strict CSP and the app:// protocol
 * serve only the built files). One namespace per feature; to add one, add its en and zh-CN files and
 * name it in both maps below.
 */
import type { Language } from '../../shared/language';
import type { Catalogue } from './catalogue';
import enCommon from './locales/en/common';
import enErrors from './locales/en/errors';
import enServers from './locales/en/servers';
import enFindings from './locales/en/findings';
import enSetup from './locales/en/setup';
import enServer from './locales/en/server';
import enViewer from './locales/en/viewer';
import enPrompts from './locales/en/prompts';
import zhCNCommon from './locales/zh-CN/common';
import enFiles from './locales/en/files';
import zhCNFiles from './locales/zh-CN/files';
import enForwards from './locales/en/forwards';
import zhCNForwards from './locales/zh-CN/forwards';
import zhCNErrors from './locales/zh-CN/errors';
import zhCNServers from './locales/zh-CN/servers';
import zhCNFindings from './locales/zh-CN/findings';
import zhCNSetup from './locales/zh-CN/setup';
import zhCNServer from './locales/zh-CN/server';
import zhCNViewer from './locales/zh-CN/viewer';
import zhCNPrompts from './locales/zh-CN/prompts';
import enKeys from './locales/en/keys';
import zhCNKeys from './locales/zh-CN/keys';
import enCluster from './locales/en/cluster';
import zhCNCluster from './locales/zh-CN/cluster';
import enPlan from './locales/en/plan';
import zhCNPlan from './locales/zh-CN/plan';

export const en = {
  common: enCommon,
  files: enFiles,
  forwards: enForwards,
  errors: enErrors,
  servers: enServers,
  findings: enFindings,
  setup: enSetup,
  server: enServer,
  viewer: enViewer,
  prompts: enPrompts,
  keys: enKeys,
  cluster: enCluster,
  plan: enPlan,
} as const;

export const zhCN: { [NS in keyof typeof en]: Catalogue<(typeof en)[NS]> } = {
  common: zhCNCommon,
  files: zhCNFiles,
  forwards: zhCNForwards,
  errors: zhCNErrors,
  servers: zhCNServers,
  findings: zhCNFindings,
  setup: zhCNSetup,
  server: zhCNServer,
  viewer: zhCNViewer,
  prompts: zhCNPrompts,
  keys: zhCNKeys,
  cluster: zhCNCluster,
  plan: zhCNPlan,
};

export type Namespace = keyof typeof en;
export const NAMESPACES = Object.keys(en) as Namespace[];

export const resources = { en, 'zh-CN': zhCN } satisfies Record<Language, Record<Namespace, object>>;
