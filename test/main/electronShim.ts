import { EventEmitter } from 'node:events';

/**
 * A recording stand-in for the parts of Electron's main-process API that src/main/index.ts uses.
 * The Electron binary cannot be downloaded here, so this shim is the only way to run the built main
 * bundle's wiring in CI; everything behind it (core, router, protocol handler, logger, ChannelHub on
 * a real loopback port, profile store on disk) is real. The Electron project in test/e2e-electron
 * runs the same checks against real Electron where the binary exists.
 */
export function createElectronShim(paths: { userData: string; logs: string; appPath: string }) {
  const calls: { name: string; args: unknown[] }[] = [];
  const rec = (name: string, ...args: unknown[]) => calls.push({ name, args });
  let nextId = 1;

  class WebContentsShim extends EventEmitter {
    id = nextId++;
    url = '';
    sent: unknown[][] = [];
    openHandler: ((d: { url: string }) => { action: string }) | null = null;
    mainFrame = { url: '', parent: null };
    setWindowOpenHandler(h: (d: { url: string }) => { action: string }) { this.openHandler = h; }
    send(...args: unknown[]) { this.sent.push(args); }
    getURL() { return this.url; }
  }

  const windows: BrowserWindowShim[] = [];
  class BrowserWindowShim extends EventEmitter {
    static getAllWindows() { return windows.filter((w) => !w.destroyed); }
    webContents = new WebContentsShim();
    destroyed = false;
    visible = false;
    constructor(readonly options: Record<string, unknown>) {
      super();
      windows.push(this);
      app.emit('web-contents-created', {}, this.webContents);
    }
    async loadURL(url: string) { this.webContents.url = url; this.webContents.mainFrame.url = url; rec('loadURL', url); this.emit('ready-to-show'); }
    show() { this.visible = true; }
    hide() { this.visible = false; }
    focus() {}
    restore() {}
    maximize() {}
    setFullScreen() {}
    isMinimized() { return false; }
    isDestroyed() { return this.destroyed; }
    isMaximized() { return false; }
    isFullScreen() { return false; }
    getNormalBounds() { return { x: 10, y: 20, width: 1200, height: 800 }; }
    /** What clicking the close button does: 'close' listeners may prevent it. */
    close(): boolean {
      let prevented = false;
      this.emit('close', { preventDefault: () => { prevented = true; } });
      if (!prevented) { this.destroyed = true; this.emit('closed'); }
      return !prevented;
    }
  }

  let quitRequests = 0;
  let exited: number | null = null;
  const app = Object.assign(new EventEmitter(), {
    isPackaged: true,
    name: 'gpu-desk',
    ready: false,
    getPath: (n: string) => (n === 'logs' ? paths.logs : paths.userData),
    getAppPath: () => paths.appPath,
    getVersion: () => '0.1.0-shim',
    getPreferredSystemLanguages: (): string[] => ['en-US'],
    getLocale: () => 'en-US',
    requestSingleInstanceLock: (): boolean => true,
    setAppUserModelId: () => {},
    enableSandbox: () => rec('enableSandbox', app.ready),
    // Chromium reads its switches once, at start: recorded with whether 'ready' had already come.
    commandLine: { appendSwitch: (name: string, value?: string) => rec('appendSwitch', name, value, app.ready) },
    isReady: () => app.ready,
    whenReady: () => { app.ready = true; return Promise.resolve(); },
    quit: () => {
      quitRequests++;
      let prevented = false;
      app.emit('before-quit', { preventDefault: () => { prevented = true; } });
      if (!prevented) rec('quit');
    },
    exit: (code: number) => { exited = code; },
  });

  const handlers = new Map<string, (...a: unknown[]) => unknown>();
  const protocolHandlers = new Map<string, (r: { url: string; method: string }) => Promise<Response>>();
  type RequestHandler = (wc: unknown, p: string, cb: (ok: boolean) => void, d: { requestingUrl: string }) => void;
  type CheckHandler = (wc: unknown, p: string, origin: string) => boolean;
  const ses: {
    permissionRequest: RequestHandler | null;
    permissionCheck: CheckHandler | null;
    [k: string]: unknown;
  } = {
    permissionRequest: null,
    permissionCheck: null,
    setPermissionRequestHandler(h: RequestHandler) { ses.permissionRequest = h; },
    setPermissionCheckHandler(h: CheckHandler) { ses.permissionCheck = h; },
    setDevicePermissionHandler(h: unknown) { rec('setDevicePermissionHandler', h); },
    setDisplayMediaRequestHandler(h: unknown) { rec('setDisplayMediaRequestHandler', h); },
    webRequest: { onHeadersReceived: (h: unknown) => rec('onHeadersReceived', h) },
  };
  const trays: { tooltip: string; menu: unknown }[] = [];
  /** Paths the next native file dialogs "choose" (none left: the dialog is cancelled). */
  const dialogAnswers: string[] = [];
  const chosen = () => dialogAnswers.shift();

  const electron = {
    app,
    BrowserWindow: BrowserWindowShim,
    ipcMain: { handle: (ch: string, fn: (...a: unknown[]) => unknown) => handlers.set(ch, fn) },
    protocol: {
      registerSchemesAsPrivileged: (s: unknown) => rec('registerSchemesAsPrivileged', s, app.ready),
      handle: (scheme: string, h: (r: { url: string; method: string }) => Promise<Response>) => protocolHandlers.set(scheme, h),
    },
    session: { defaultSession: ses },
    screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] },
    Menu: {
      buildFromTemplate: (template: unknown) => ({ template }),
      setApplicationMenu: (m: unknown) => rec('setApplicationMenu', m),
    },
    Tray: class {
      state = { tooltip: '', menu: null as unknown };
      constructor(readonly icon: string) { trays.push(this.state); rec('Tray', icon); }
      setToolTip(t: string) { this.state.tooltip = t; }
      setContextMenu(m: unknown) { this.state.menu = m; }
      on() {}
      isDestroyed() { return false; }
    },
    shell: { openExternal: async (u: string) => rec('openExternal', u), openPath: async (p: string) => rec('openPath', p) },
    clipboard: { writeText: (t: string) => rec('clipboard', t) },
    dialog: {
      showOpenDialog: async (...a: unknown[]) => { rec('showOpenDialog', ...a); const f = chosen(); return { canceled: !f, filePaths: f ? [f] : [] }; },
      showSaveDialog: async (...a: unknown[]) => { rec('showSaveDialog', ...a); const f = chosen(); return { canceled: !f, filePath: f }; },
    },
    Notification: Object.assign(class { show() {} }, { isSupported: () => false }),
  };
  return { electron, calls, windows, handlers, protocolHandlers, ses, trays, dialogAnswers, get quitRequests() { return quitRequests; }, get exited() { return exited; } };
}
