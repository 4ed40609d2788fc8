import type { BrowserWindowConstructorOptions, WebPreferences } from 'electron';

/**
 * Every security-relevant setting of gpu-desk's windows lives here, in one module whose values
 * test/main/windowOptions.test.ts asserts; SECURITY.md points at both.
 */

/** The renderer is served from this privileged custom scheme, never from file:// (checklist #18). */
export const APP_SCHEME = 'app';
export const APP_HOST = 'gpu-desk';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY_URL = `${APP_ORIGIN}/index.html`;

export function webPreferences(preloadPath: string): WebPreferences {
  return {
    preload: preloadPath,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
    spellcheck: false,
    // Background throttling would stall the VNC viewer's frame loop when another window covers it.
    backgroundThrottling: false,
  };
}

export interface WindowBounds {
  x?: number;
  y?: number;
  width: number;
  height: number;
}

export const MIN_WIDTH = 900;
export const MIN_HEIGHT = 600;

export function mainWindowOptions(preloadPath: string, bounds: WindowBounds, iconPath?: string): BrowserWindowConstructorOptions {
  return {
    ...bounds,
    minWidth: MIN_WIDTH,
    minHeight: MIN_HEIGHT,
    title: 'gpu-desk',
    // Shown on 'ready-to-show' so the user never sees an empty white frame.
    show: false,
    backgroundColor: '#16181d',
    autoHideMenuBar: false,
    ...(iconPath ? { icon: iconPath } : {}),
    webPreferences: webPreferences(preloadPath),
  };
}

/**
 * A second window onto one desktop (the viewer's "New window": window.open of the app's own page at
 * #viewer/…, allowed by security.ts). The same hardened preferences as the main window — a child
 * window would otherwise inherit whatever its opener had — and it shows at once: it opens on a click.
 */
export function viewerWindowOptions(preloadPath: string, iconPath?: string): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 800,
    minWidth: MIN_WIDTH,
    minHeight: MIN_HEIGHT,
    title: 'gpu-desk',
    show: true,
    backgroundColor: '#16181d',
    autoHideMenuBar: true,
    ...(iconPath ? { icon: iconPath } : {}),
    webPreferences: webPreferences(preloadPath),
  };
}

/**
 * A viewer spanning every monitor (its address ends in /span, spanDisplays.ts): one borderless window
 * over `bounds`, the union of the displays, as TurboVNC Viewer's "Span: all monitors" does. Electron's
 * full screen covers one display only, so this is a plain window: no frame, no shadow, not movable or
 * resizable, above the taskbar and docks, allowed past one screen's size (macOS clamps windows
 * otherwise). Same hardened preferences as every other window.
 */
export function spanWindowOptions(preloadPath: string, bounds: Required<WindowBounds>, iconPath?: string): BrowserWindowConstructorOptions {
  return {
    ...bounds,
    frame: false,
    hasShadow: false,
    resizable: false,
    movable: false,
    fullscreenable: false,
    enableLargerThanScreen: true,
    alwaysOnTop: true,
    title: 'gpu-desk',
    show: true,
    backgroundColor: '#000000',
    autoHideMenuBar: true,
    ...(iconPath ? { icon: iconPath } : {}),
    webPreferences: webPreferences(preloadPath),
  };
}

/**
 * The Content-Security-Policy sent with every renderer response (protocol handler) and, in dev,
 * added to the Vite dev server's responses. No inline or eval'd script in production; WebAssembly may
 * compile ('wasm-unsafe-eval': the viewer's JPEG decoder, src/renderer/viewer/jpegWasm.ts), which
 * runs no JavaScript and reaches nothing the page could not. Styles set
 * through React's `style` prop go through CSSOM and are not affected by style-src. connect-src
 * allows the loopback viewer channel (ws://127.0.0.1, token + Origin checked by the core) only.
 */
export function contentSecurityPolicy(opts: { dev?: boolean; devServerOrigin?: string } = {}): string {
  const dev = opts.dev === true;
  const devOrigin = opts.devServerOrigin ?? '';
  const devWs = devOrigin.replace(/^http/, 'ws');
  const directives: [string, string[]][] = [
    ['default-src', ["'none'"]],
    ['script-src', dev ? ["'self'", "'wasm-unsafe-eval'", "'unsafe-inline'", devOrigin] : ["'self'", "'wasm-unsafe-eval'"]],
    ['style-src', dev ? ["'self'", "'unsafe-inline'", devOrigin] : ["'self'"]],
    // noVNC draws its cursor from data: URLs; screenshots/clipboard images use blob:.
    ['img-src', ["'self'", 'data:', 'blob:']],
    ['font-src', ["'self'"]],
    ['connect-src', dev ? ["'self'", 'ws://127.0.0.1:*', devOrigin, devWs] : ["'self'", 'ws://127.0.0.1:*']],
    ['worker-src', ["'self'"]],
    ['media-src', ["'none'"]],
    ['object-src', ["'none'"]],
    ['frame-src', ["'none'"]],
    ['child-src', ["'none'"]],
    ['base-uri', ["'none'"]],
    ['form-action', ["'none'"]],
    ['frame-ancestors', ["'none'"]],
  ];
  return directives.map(([k, v]) => `${k} ${v.filter(Boolean).join(' ')}`).join('; ');
}

/** Headers added to every renderer response. */
export function securityHeaders(csp: string): Record<string, string> {
  return {
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'Referrer-Policy': 'no-referrer',
  };
}
