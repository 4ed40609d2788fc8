import path from 'node:path';
import {
  app, BrowserWindow, clipboard, dialog, ipcMain, Menu, Notification, protocol, screen, session, shell, Tray,
  type IpcMainInvokeEvent,
} from 'electron';
import { createAppCore, type AppCore } from '../core/app/createAppCore';
import type { FileDialogs, FilePurpose } from '../core/app/fileDialogs';
import { ChannelHub } from '../core/vnc/channelHub';
import { createEventForwarder } from '../core/ipc/dispatch';
import { EVENT_CHANNEL, INVOKE_CHANNEL } from '../shared/bridge';
import { VIEWER_SWITCHES } from '../shared/chromiumSwitches';
import { eventNames, type Emit } from '../shared/contract';
import type { AppSettings, ConnectionView, ForwardView, Profile, SettingsView, TunnelView } from '../shared/models';
import { createLogger, type Logger } from './log';
import { appMenuTemplate, trayMenuTemplate, trayTooltip } from './menus';
import { appSchemePrivileges, registerAppProtocol } from './protocol';
import { createShutdown } from './quit';
import { createMainRouter } from './router';
import {
  hardenWebContents, isAllowedOrigin, isSafeExternalUrl, isTrustedFrame, originOf, permissionDecision, type FrameInfo,
} from './security';
import { closeAction, loadSettings } from './settings';
import { createMainText, type MainText } from './text';
import { resolveLanguage } from '../shared/language';
import { APP_ENTRY_URL, APP_ORIGIN, contentSecurityPolicy, mainWindowOptions, securityHeaders, spanWindowOptions, viewerWindowOptions } from './windowOptions';
import { isSpanViewerUrl, spanBounds } from '../shared/spanDisplays';
import { fitToDisplays, loadWindowState, saveWindowState } from './windowState';

// Before 'ready' (Chromium reads its switches once): the same ones bench:viewer and the e2e specs run with.
for (const [name, value] of VIEWER_SWITCHES) app.commandLine.appendSwitch(name, value);
// Before 'ready': app:// must be a standard, secure scheme to get an origin and a secure context.
protocol.registerSchemesAsPrivileged(appSchemePrivileges());

const devServer = !app.isPackaged ? process.env.ELECTRON_RENDERER_URL : undefined;
const allowedOrigins: string[] = [APP_ORIGIN, ...(devServer && originOf(devServer) ? [originOf(devServer)!] : [])];

let log: Logger;
let mainWindow: BrowserWindow | null = null;
let tray: Tray | null = null;
let core: AppCore | null = null;
let settings: AppSettings;
/** Main's words in the app's language: menus, tray, notifications and dialogs follow the settings like the window. */
let text: MainText;
let quitting = false;
let shutdownDone = false;
let toldAboutTray = false;
let tunnels: TunnelView[] = [];
let forwards: ForwardView[] = [];
let savedProfiles: Profile[] = [];
let emitToWindows: Emit | null = null;
const connectionLabels: Record<string, string> = {};

if (!app.requestSingleInstanceLock()) {
  // A second launch hands over to the running instance (second-instance below) and exits.
  app.quit();
} else {
  log = createLogger({ dir: app.getPath('logs'), echo: !app.isPackaged });
  log.info('gpu-desk %s starting (Electron %s, %s)', app.getVersion(), process.versions.electron, process.platform);
  process.on('uncaughtException', (e) => log.error('uncaught exception: %s', e.stack ?? e.message));
  process.on('unhandledRejection', (e) => log.error('unhandled rejection: %s', e instanceof Error ? (e.stack ?? e.message) : String(e)));
  settings = loadSettings(settingsFile());
  if (process.platform === 'win32') app.setAppUserModelId('io.gpudesk.app');
  // Belt and braces with webPreferences.sandbox: every renderer this process ever creates is sandboxed.
  app.enableSandbox();

  app.on('web-contents-created', (_e, contents) => {
    hardenWebContents(contents, {
      allowedOrigins: () => allowedOrigins, openExternal: openExternalSafely, log: (l) => log.warn('%s', l),
      viewerWindow: (url) => {
        const preload = path.join(__dirname, '../preload/index.js');
        const span = isSpanViewerUrl(url) ? spanBounds(screen.getAllDisplays().map((d) => d.bounds)) : null;
        return span ? spanWindowOptions(preload, span, iconPath()) : viewerWindowOptions(preload, iconPath());
      },
    });
  });
  app.on('second-instance', () => showWindow());
  app.on('activate', () => showWindow());
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  app.on('before-quit', (event) => {
    quitting = true;
    if (shutdownDone) return;
    event.preventDefault();
    void shutdown().then((r) => {
      log.info('shutdown %s', r.clean ? 'clean' : `incomplete (failed: ${r.failed.join(', ') || 'none'}, timed out: ${r.timedOut})`);
      shutdownDone = true;
      app.quit();
    });
  });
  app.whenReady().then(start).catch((e: unknown) => {
    log.error('start-up failed: %s', e instanceof Error ? (e.stack ?? e.message) : String(e));
    app.exit(1);
  });
}

const hub = new ChannelHub({ allowedOrigins: () => allowedOrigins, log: (l) => log.info('%s', l) });

const shutdown = createShutdown(
  [
    { name: 'connections and tunnels', run: async () => { await core?.shutdown(); } },
    { name: 'viewer channel', run: () => hub.close() },
  ],
  { timeoutMs: 5000, log: (l) => log.warn('%s', l) },
);

async function start(): Promise<void> {
  // Electron knows the system's locales only once it is ready.
  text = mainText();
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_wc, permission, callback, details) => {
    const ok = permissionDecision(permission, details.requestingUrl, allowedOrigins);
    if (!ok) log.warn('denied permission %s', permission);
    callback(ok);
  });
  ses.setPermissionCheckHandler((_wc, permission, requestingOrigin) => permissionDecision(permission, requestingOrigin, allowedOrigins));
  ses.setDevicePermissionHandler(() => false);
  ses.setDisplayMediaRequestHandler((_req, callback) => callback({}));
  const csp = contentSecurityPolicy(devServer ? { dev: true, devServerOrigin: originOf(devServer) ?? '' } : {});
  if (devServer) {
    // The Vite dev server does not know our CSP; add it to every response it serves.
    ses.webRequest.onHeadersReceived((details, callback) => {
      const headers = isAllowedOrigin(details.url, allowedOrigins) ? { ...details.responseHeaders, ...toHeaderLists(securityHeaders(csp)) } : details.responseHeaders;
      callback({ responseHeaders: headers });
    });
  }
  registerAppProtocol(protocol, path.join(__dirname, '../renderer'), csp);

  const port = await hub.listen();
  const forward = createEventForwarder(eventNames, (event, payload) => {
    for (const w of BrowserWindow.getAllWindows()) {
      if (!w.isDestroyed() && isAllowedOrigin(w.webContents.getURL(), allowedOrigins)) w.webContents.send(EVENT_CHANNEL, event, payload);
    }
  });
  const emit: Emit = (event, payload) => {
    if (event === 'tunnels.changed') setTunnels(payload as TunnelView[]);
    if (event === 'forwards.changed') {
      forwards = payload as ForwardView[];
      refreshTray();
    }
    // The tray's "Open Tunnel to" list follows the saved servers, whoever changed them.
    if (event === 'profiles.changed') {
      savedProfiles = payload as Profile[];
      refreshTray();
    }
    if (event === 'connection.state') {
      const c = payload as ConnectionView;
      connectionLabels[c.id] = c.label;
    }
    if (event === 'settings.changed') {
      const { language, keepRunningInTray } = payload as SettingsView;
      settings = { language, keepRunningInTray };
      text = mainText();
      buildAppMenu();
      refreshTray();
    }
    forward(event, payload);
  };
  core = await createAppCore({
    hub,
    channelBase: () => `ws://127.0.0.1:${port}`,
    emit,
    shell: 'electron',
    version: app.getVersion(),
    settingsFile: settingsFile(),
    systemLocales,
    openExternal: async (url) => openExternalSafely(url),
    displays: () => screen.getAllDisplays().map((d) => ({ ...d.bounds, scaleFactor: d.scaleFactor })),
    chooseSaveFolder: async () => {
      const opts: Electron.OpenDialogOptions = { title: text('dialog.saveToFolder'), buttonLabel: text('dialog.saveHere'), properties: ['openDirectory', 'createDirectory'] };
      const r = mainWindow && !mainWindow.isDestroyed() ? await dialog.showOpenDialog(mainWindow, opts) : await dialog.showOpenDialog(opts);
      return r.canceled || !r.filePaths[0] ? null : r.filePaths[0];
    },
    dialogs: nativeDialogs(),
    log: (l) => log.info('%s', l),
  });
  emitToWindows = emit;
  const handlers = core.handlers();
  const dispatch = createMainRouter({
    handlers,
    isTrusted: (frame) => isTrustedFrame(frame, ourWebContentsIds(), allowedOrigins),
    log: (l) => log.warn('%s', l),
  });
  ipcMain.handle(INVOKE_CHANNEL, (event, method: unknown, input: unknown) => dispatch(frameOf(event), method, input));

  buildAppMenu();
  createTray();
  createWindow();
}

function dialogFilters(purpose: FilePurpose): Electron.FileFilter[] {
  const all = { name: text('dialog.allFiles'), extensions: ['*'] };
  return purpose === 'profiles' ? [{ name: text('dialog.serversFilter'), extensions: ['json'] }, all] : [all];
}

/** Files are chosen here, never named by the window (see src/core/app/fileDialogs.ts). */
function nativeDialogs(): FileDialogs {
  const parent = () => (mainWindow && !mainWindow.isDestroyed() ? mainWindow : undefined);
  return {
    openFile: async ({ purpose }) => {
      const opts: Electron.OpenDialogOptions = {
        title: purpose === 'key' ? text('dialog.importKey') : purpose === 'certificate' ? text('dialog.chooseCertificate') : text('dialog.importServers'),
        // Keys and certificates live in ~/.ssh, a hidden folder the dialog would otherwise hide.
        ...(purpose !== 'profiles' ? { defaultPath: path.join(app.getPath('home'), '.ssh') } : {}),
        properties: ['openFile', 'showHiddenFiles'],
        filters: dialogFilters(purpose),
      };
      const w = parent();
      const r = w ? await dialog.showOpenDialog(w, opts) : await dialog.showOpenDialog(opts);
      return r.canceled || !r.filePaths[0] ? null : r.filePaths[0];
    },
    saveFile: async ({ purpose, defaultName }) => {
      const opts: Electron.SaveDialogOptions = { title: text('dialog.exportServers'), defaultPath: path.join(app.getPath('documents'), defaultName), filters: dialogFilters(purpose) };
      const w = parent();
      const r = w ? await dialog.showSaveDialog(w, opts) : await dialog.showSaveDialog(opts);
      return r.canceled || !r.filePath ? null : r.filePath;
    },
  };
}

function windowCommand(command: 'profiles.export' | 'profiles.import' | 'keys.show'): void {
  showWindow();
  emitToWindows?.('app.command', { command });
}

function frameOf(event: IpcMainInvokeEvent): FrameInfo | null {
  const f = event.senderFrame;
  if (!f) return null;
  return { webContentsId: event.sender.id, url: f.url, isMainFrame: f.parent === null };
}

// The main window and the viewer windows it opened (the only windows hardenWebContents lets open).
function ourWebContentsIds(): Set<number> {
  return new Set(BrowserWindow.getAllWindows().filter((w) => !w.isDestroyed()).map((w) => w.webContents.id));
}

function toHeaderLists(h: Record<string, string>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k, [v]]));
}

function openExternalSafely(url: string): void {
  if (!isSafeExternalUrl(url)) {
    log.warn('refused to open a non-web URL externally');
    return;
  }
  shell.openExternal(url).catch((e: unknown) => log.warn('openExternal failed: %s', e instanceof Error ? e.message : String(e)));
}

function createWindow(): void {
  const stateFile = path.join(app.getPath('userData'), 'window-state.json');
  const state = fitToDisplays(loadWindowState(stateFile), screen.getAllDisplays().map((d) => d.workArea));
  const win = new BrowserWindow(mainWindowOptions(path.join(__dirname, '../preload/index.js'), state, iconPath()));
  mainWindow = win;
  if (state.maximized) win.maximize();
  if (state.fullScreen) win.setFullScreen(true);
  win.once('ready-to-show', () => win.show());

  let saveTimer: NodeJS.Timeout | undefined;
  const save = () => {
    if (win.isDestroyed()) return;
    const b = win.getNormalBounds();
    try {
      saveWindowState(stateFile, { ...b, maximized: win.isMaximized(), fullScreen: win.isFullScreen() });
    } catch (e) {
      log.warn('could not save window state: %s', e instanceof Error ? e.message : String(e));
    }
  };
  const saveSoon = () => {
    clearTimeout(saveTimer);
    saveTimer = setTimeout(save, 500);
  };
  for (const ev of ['resize', 'move', 'maximize', 'unmaximize', 'enter-full-screen', 'leave-full-screen'] as const) win.on(ev as 'resize', saveSoon);
  win.on('close', (event) => {
    clearTimeout(saveTimer);
    save();
    const action = closeAction({ quitting, keepRunningInTray: settings.keepRunningInTray, activeTunnels: tunnels.length, trayAvailable: tray !== null });
    if (action === 'hide') {
      event.preventDefault();
      win.hide();
      if (!toldAboutTray && Notification.isSupported()) {
        toldAboutTray = true;
        new Notification({ title: text('notify.stillRunning'), body: text('notify.stillRunningBody', { count: tunnels.length }) }).show();
      }
    }
  });
  win.on('closed', () => {
    if (mainWindow === win) mainWindow = null;
  });

  void win.loadURL(devServer ?? APP_ENTRY_URL);
}

function showWindow(): void {
  if (!mainWindow || mainWindow.isDestroyed()) {
    if (app.isReady() && core) createWindow();
    return;
  }
  if (mainWindow.isMinimized()) mainWindow.restore();
  mainWindow.show();
  mainWindow.focus();
}

function resourcesDir(): string {
  return app.isPackaged ? process.resourcesPath : path.join(app.getAppPath(), 'resources');
}

function iconPath(): string | undefined {
  // Windows and macOS take the icon from the executable/bundle; Linux windows need it set.
  return process.platform === 'linux' ? path.join(resourcesDir(), app.isPackaged ? 'tray/tray@2x.png' : 'icons/256x256.png') : undefined;
}

function createTray(): void {
  const file = process.platform === 'darwin' ? 'trayTemplate.png' : 'tray.png';
  try {
    tray = new Tray(path.join(resourcesDir(), 'tray', file));
  } catch (e) {
    log.warn('no tray icon (the desktop has no status area?): %s', e instanceof Error ? e.message : String(e));
    tray = null;
    return;
  }
  if (process.platform !== 'darwin') tray.on('click', () => showWindow());
  refreshTray();
  void core?.handlers()['tunnels.list']({}).then(setTunnels, () => {});
  void reloadSavedProfiles();
}

function setTunnels(list: TunnelView[]): void {
  tunnels = list;
  refreshTray();
}

/** The tray offers saved servers too: read again whenever the menu is rebuilt from a change. */
async function reloadSavedProfiles(): Promise<void> {
  try {
    savedProfiles = (await core?.handlers()['profiles.list']({})) ?? [];
  } catch (e) {
    log.warn('tray: could not read the saved servers: %s', e instanceof Error ? e.message : String(e));
  }
  refreshTray();
}

function refreshTray(): void {
  if (!tray || tray.isDestroyed()) return;
  tray.setToolTip(trayTooltip(tunnels, text));
  const handlers = core?.handlers();
  tray.setContextMenu(
    Menu.buildFromTemplate(
      trayMenuTemplate(tunnels, { keepRunningInTray: settings.keepRunningInTray, labels: connectionLabels, profiles: savedProfiles, forwards, text }, {
        showWindow,
        copy: (text) => clipboard.writeText(text),
        openExternal: openExternalSafely,
        closeTunnel: (id) => void handlers?.['tunnels.close']({ tunnelId: id }).catch((e: unknown) => log.warn('close tunnel: %s', String(e))),
        closeAllTunnels: () => {
          for (const t of tunnels) void handlers?.['tunnels.close']({ tunnelId: t.id }).catch(() => {});
        },
        openSaved: (profileId) => {
          // Host-key and password prompts appear in the window, so it comes forward first.
          showWindow();
          void handlers?.['tunnels.openSaved']({ profileId }).then(
            (t) => {
              // The desktop's password (a job's or a TurboVNC desktop's one-time one) goes to the clipboard, never into the notification's history.
              if (t.oneTimePassword) clipboard.writeText(t.oneTimePassword);
              const address = `${t.localHost}:${t.localPort}`;
              const body = t.job
                ? text('notify.jobTunnelOpenBody', { job: t.job.jobId, node: t.job.node, address })
                : text(t.oneTimePassword ? 'notify.tunnelOpenPasswordBody' : 'notify.tunnelOpenBody', { display: t.display, address });
              if (Notification.isSupported()) new Notification({ title: text('notify.tunnelOpen'), body }).show();
            },
            (e: unknown) => {
              log.warn('open saved tunnel: %s', e instanceof Error ? e.message : String(e));
              if (Notification.isSupported()) new Notification({ title: text('notify.openFailed'), body: e instanceof Error ? e.message : String(e) }).show();
            },
          );
        },
        closeForward: (id) => void handlers?.['forwards.close']({ forwardId: id }).catch((e: unknown) => log.warn('close forward: %s', String(e))),
        setKeepRunning,
        quit: () => app.quit(),
      }),
    ),
  );
}

function setKeepRunning(on: boolean): void {
  // Through core like a window's change: one writer of settings.json, and settings.changed rebuilds the menus.
  void core?.handlers()['settings.set']({ keepRunningInTray: on }).catch((e: unknown) => log.warn('could not save settings: %s', e instanceof Error ? e.message : String(e)));
}

/** The OS's own order of preference, not only Electron's UI locale (which falls back to en-US). */
function systemLocales(): string[] {
  return [...app.getPreferredSystemLanguages(), app.getLocale()];
}

function mainText(): MainText {
  return createMainText(resolveLanguage(settings.language, systemLocales()), (what) => log.warn('i18n: missing %s', what));
}

function settingsFile(): string {
  return path.join(app.getPath('userData'), 'settings.json');
}

function buildAppMenu(): void {
  Menu.setApplicationMenu(
    Menu.buildFromTemplate(
      appMenuTemplate({ platform: process.platform, dev: !app.isPackaged, keepRunningInTray: settings.keepRunningInTray, appName: app.name, text }, {
        setKeepRunning,
        openLogFolder: () => void shell.openPath(app.getPath('logs')),
        openDataFolder: () => void shell.openPath(app.getPath('userData')),
        importProfiles: () => windowCommand('profiles.import'),
        exportProfiles: () => windowCommand('profiles.export'),
        showKeys: () => windowCommand('keys.show'),
      }),
    ),
  );
}

