import 'i18next';
import type { en } from './resources';

// t('missing.key') and t('common:nope') fail typecheck; zh-CN files are held to en's keys by Catalogue.
declare module 'i18next' {
  interface CustomTypeOptions {
    defaultNS: 'common';
    resources: typeof en;
    returnNull: false;
  }
}
