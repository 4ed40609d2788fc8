/** The app's frame: top bar, settings, window title and what every screen shares. */
export default {
  appName: 'gpu-desk',
  windowTitle: 'gpu-desk',
  windowTitleWith: '{{place}} — gpu-desk',
  home: 'gpu-desk: server list',
  breadcrumb: 'Breadcrumb',
  serverFallback: 'server',
  displayCrumb: 'Display :{{display}}',
  tunnelCrumb: 'Tunnel',
  cannotStart: 'gpu-desk cannot start',
  theme: {
    label: 'Theme',
    aria: 'Colour theme',
    system: 'System',
    light: 'Light',
    dark: 'Dark',
  },
  language: {
    label: 'Language',
    aria: 'Language of the app',
    system: 'System',
    en: 'English',
    zhCN: '简体中文',
  },
} as const;
