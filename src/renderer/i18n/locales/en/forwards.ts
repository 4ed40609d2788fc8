/** Saved forwards (Jupyter, TensorBoard…) beside the desktop or on their own. */
export default {
  tab: 'Forwards',
  heading: 'Forwards',
  intro: 'Services on the server reached through SSH. Each listens on this computer only (127.0.0.1).',
  none: 'This server has no saved forwards. Add them (e.g. Jupyter on 8888) with Edit forwards.',
  edit: 'Edit forwards…',
  open: 'Open forwards',
  opening: 'Opening…',
  notOpen: 'Not open yet.',
  remote: 'to {{host}}:{{port}} on the server',
  http: {
    checking: 'Asking…',
    yes: 'Answers HTTP',
    no: 'No HTTP answer',
  },
  openFailed: 'Open failed: {{reason}}',
  checkAgain: 'Check again',
  openBrowser: 'Open in browser',
  close: 'Close',
  copy: 'Copy',
  copied: 'Copied',
  copyAria: 'Copy {{address}}',
} as const;
