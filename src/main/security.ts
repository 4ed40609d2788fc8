import type { BrowserWindowConstructorOptions, WebContents } from 'electron';

/**
 * The navigation, window-opening, permission and sender rules, as pure decisions (tested in Node
 * without Electron) plus the thin wiring that applies them to every WebContents the app creates.
 */

export function originOf(url: string): string | null {
  try {
    const u = new URL(url);
    // Custom standard schemes report origin "null" in Node's URL; build it the way Chromium does.
    return u.origin !== 'null' ? u.origin : `${u.protocol}//${u.host}`;
  } catch {
    return null;
  }
}

export function isAllowedOrigin(url: string, allowedOrigins: readonly string[]): boolean {
  const o = originOf(url);
  return o !== null && allowedOrigins.includes(o);
}

/** Only http(s) URLs with a host ever reach the system browser (no file:, javascript:, smb:, custom schemes). */
export function isSafeExternalUrl(url: string): boolean {
  try {
    const u = new URL(url);
    return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname.length > 0 && u.username === '' && u.password === '';
  } catch {
    return false;
  }
}

export interface NavDecision {
  allow: boolean;
  /** Open this in the system browser instead. */
  external?: string;
}

/** The app is a single page: it never navigates away from itself. Links to the web go to the browser. */
export function navigationDecision(url: string, allowedOrigins: readonly string[]): NavDecision {
  if (isAllowedOrigin(url, allowedOrigins)) return { allow: true };
  return isSafeExternalUrl(url) ? { allow: false, external: url } : { allow: false };
}

/**
 * window.open and target=_blank create no window, except the app's own page opened onto one viewer
 * (#viewer/…: the viewer's "New window", several desktops at once); http(s) goes to the browser.
 */
export function windowOpenDecision(url: string, allowedOrigins: readonly string[] = []): NavDecision {
  if (isViewerWindowUrl(url, allowedOrigins)) return { allow: true };
  return isSafeExternalUrl(url) ? { allow: false, external: url } : { allow: false };
}

/** Our own page, at a viewer's address (src/renderer/app/viewerLink.ts): nothing else, no credentials. */
export function isViewerWindowUrl(url: string, allowedOrigins: readonly string[]): boolean {
  if (!isAllowedOrigin(url, allowedOrigins)) return false;
  try {
    const u = new URL(url);
    return u.username === '' && u.password === '' && /^#viewer\/[^/]+\/[^/]+\/\d{1,5}(\/span)?$/.test(u.hash);
  } catch {
    return false;
  }
}

/** Clipboard (the viewer's copy/paste both ways) is the only web permission gpu-desk uses. */
export const ALLOWED_PERMISSIONS: readonly string[] = ['clipboard-read', 'clipboard-sanitized-write'];

export function permissionDecision(permission: string, requestingUrl: string | undefined, allowedOrigins: readonly string[]): boolean {
  return ALLOWED_PERMISSIONS.includes(permission) && requestingUrl !== undefined && isAllowedOrigin(requestingUrl, allowedOrigins);
}

export interface FrameInfo {
  /** id of the WebContents that sent the message. */
  webContentsId: number;
  /** URL of the sending frame (null when the frame is gone). */
  url: string | null;
  isMainFrame: boolean;
}

/** IPC is answered only for the main frame of one of our windows, showing our own page. */
export function isTrustedFrame(frame: FrameInfo | null, windowIds: ReadonlySet<number>, allowedOrigins: readonly string[]): boolean {
  if (!frame || !frame.isMainFrame || frame.url === null) return false;
  return windowIds.has(frame.webContentsId) && isAllowedOrigin(frame.url, allowedOrigins);
}

export interface HardenDeps {
  allowedOrigins: () => readonly string[];
  openExternal(url: string): void;
  log(line: string): void;
  /** The options of a viewer window at `url`, our own page (windowOptions.ts viewerWindowOptions, spanWindowOptions); without it no window opens. */
  viewerWindow?(url: string): BrowserWindowConstructorOptions;
}

type Contents = Pick<WebContents, 'on' | 'setWindowOpenHandler'>;

/** Applied from app.on('web-contents-created') so no WebContents escapes the rules. */
export function hardenWebContents(contents: Contents, deps: HardenDeps): void {
  const guardNav = (event: { preventDefault(): void }, url: string) => {
    const d = navigationDecision(url, deps.allowedOrigins());
    if (d.allow) return;
    event.preventDefault();
    deps.log(`blocked navigation to ${originOf(url) ?? 'an invalid URL'}`);
    if (d.external) deps.openExternal(d.external);
  };
  contents.on('will-navigate', guardNav);
  contents.on('will-frame-navigate', (event) => {
    if (!event.isMainFrame) {
      event.preventDefault();
      deps.log('blocked a sub-frame navigation');
    }
  });
  contents.on('will-redirect', guardNav);
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
    deps.log('blocked a <webview>');
  });
  contents.setWindowOpenHandler(({ url }) => {
    const d = windowOpenDecision(url, deps.allowedOrigins());
    if (d.allow && deps.viewerWindow) return { action: 'allow', overrideBrowserWindowOptions: deps.viewerWindow(url) };
    if (d.external) deps.openExternal(d.external);
    else deps.log(`blocked window.open of ${originOf(url) ?? 'an invalid URL'}`);
    return { action: 'deny' };
  });
}
