import type en from '../en/common';
import type { Catalogue } from '../../catalogue';

const zhCN: Catalogue<typeof en> = {
  appName: 'gpu-desk',
  windowTitle: 'gpu-desk',
  windowTitleWith: '{{place}} — gpu-desk',
  home: 'gpu-desk：服务器列表',
  breadcrumb: '导航路径',
  serverFallback: '服务器',
  displayCrumb: 'X 显示 :{{display}}',
  tunnelCrumb: '隧道',
  jobCrumb: '作业 {{jobId}}',
  cannotStart: 'gpu-desk 无法启动',
  actions: {
    cancel: '取消',
    close: '关闭',
    continue: '继续',
    back: '返回',
    save: '保存',
    saving: '正在保存…',
    done: '完成',
  },
  theme: {
    label: '主题',
    aria: '配色主题',
    system: '跟随系统',
    light: '浅色',
    dark: '深色',
  },
  language: {
    label: '语言',
    aria: '应用语言',
    system: '跟随系统',
    en: 'English',
    zhCN: '简体中文',
  },
};
export default zhCN;
