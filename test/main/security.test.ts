import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  hardenWebContents, isSafeExternalUrl, isTrustedFrame, navigationDecision, permissionDecision, windowOpenDecision,
} from '../../src/main/security';
import { APP_ORIGIN, viewerWindowOptions } from '../../src/main/windowOptions';

const ORIGINS = [APP_ORIGIN];

describe('navigation, window.open and permissions', () => {
  it('stays on the app origin; web links go to the system browser, others nowhere', () => {
    expect(navigationDecision('app://gpu-desk/index.html#/servers', ORIGINS)).toEqual({ allow: true });
    expect(navigationDecision('https://example.com/x', ORIGINS)).toEqual({ allow: false, external: 'https://example.com/x' });
    for (const bad of ['file:///etc/passwd', 'javascript:alert(1)', 'app://evil/index.html', 'smb://host/share', 'data:text/html,<script>', 'not a url', 'http://user:pw@example.com/']) {
      expect(navigationDecision(bad, ORIGINS)).toEqual({ allow: false });
    }
  });

  it('window.open never makes a window', () => {
    expect(windowOpenDecision('https://docs.example.org/')).toEqual({ allow: false, external: 'https://docs.example.org/' });
    expect(windowOpenDecision('app://gpu-desk/index.html')).toEqual({ allow: false });
    expect(windowOpenDecision('file:///tmp/x')).toEqual({ allow: false });
    expect(windowOpenDecision('app://gpu-desk/index.html#viewer/c1/p1/2')).toEqual({ allow: false });
    expect(windowOpenDecision('app://gpu-desk/index.html#viewer/c1/p1/2', ORIGINS)).toEqual({ allow: true });
    expect(isSafeExternalUrl('http://127.0.0.1:8888/lab')).toBe(true);
    expect(isSafeExternalUrl('ftp://x')).toBe(false);
  });

  it('denies every permission except clipboard, and clipboard only for our page', () => {
    for (const p of ['media', 'geolocation', 'notifications', 'midi', 'midiSysex', 'pointerLock', 'fullscreen', 'openExternal', 'display-capture', 'mediaKeySystem', 'hid', 'serial', 'usb', 'idle-detection', 'window-management', 'unknown'])
      expect(permissionDecision(p, 'app://gpu-desk/index.html', ORIGINS)).toBe(false);
    expect(permissionDecision('clipboard-read', 'app://gpu-desk/index.html', ORIGINS)).toBe(true);
    expect(permissionDecision('clipboard-sanitized-write', 'app://gpu-desk/', ORIGINS)).toBe(true);
    expect(permissionDecision('clipboard-read', 'https://evil.example/', ORIGINS)).toBe(false);
    expect(permissionDecision('clipboard-read', undefined, ORIGINS)).toBe(false);
  });

  it('trusts only the main frame of our window showing our page', () => {
    const ids = new Set([7]);
    expect(isTrustedFrame({ webContentsId: 7, url: 'app://gpu-desk/index.html', isMainFrame: true }, ids, ORIGINS)).toBe(true);
    expect(isTrustedFrame({ webContentsId: 8, url: 'app://gpu-desk/index.html', isMainFrame: true }, ids, ORIGINS)).toBe(false);
    expect(isTrustedFrame({ webContentsId: 7, url: 'app://gpu-desk/index.html', isMainFrame: false }, ids, ORIGINS)).toBe(false);
    expect(isTrustedFrame({ webContentsId: 7, url: 'https://evil.example/', isMainFrame: true }, ids, ORIGINS)).toBe(false);
    expect(isTrustedFrame({ webContentsId: 7, url: null, isMainFrame: true }, ids, ORIGINS)).toBe(false);
    expect(isTrustedFrame(null, ids, ORIGINS)).toBe(false);
  });
});

/** WebContents cannot exist without the Electron binary; it is an EventEmitter with a window-open handler slot. */
class WebContentsStandIn extends EventEmitter {
  openHandler: ((d: { url: string }) => { action: string }) | null = null;
  setWindowOpenHandler(h: (d: { url: string }) => { action: string }) { this.openHandler = h; }
}

describe('hardenWebContents wiring', () => {
  it('prevents foreign navigation, sub-frame navigation, webviews and new windows', () => {
    const wc = new WebContentsStandIn();
    const opened: string[] = [];
    hardenWebContents(wc as never, { allowedOrigins: () => ORIGINS, openExternal: (u) => opened.push(u), log: () => {} });
    const ev = () => ({ prevented: false, isMainFrame: false, preventDefault() { this.prevented = true; } });
    const nav = ev(); wc.emit('will-navigate', nav, 'https://example.com/');
    const own = ev(); wc.emit('will-navigate', own, 'app://gpu-desk/index.html');
    const redirect = ev(); wc.emit('will-redirect', redirect, 'file:///etc/passwd');
    const sub = ev(); wc.emit('will-frame-navigate', sub);
    const web = ev(); wc.emit('will-attach-webview', web, {}, {});
    expect([nav.prevented, own.prevented, redirect.prevented, sub.prevented, web.prevented]).toEqual([true, false, true, true, true]);
    expect(wc.openHandler!({ url: 'https://example.org/' })).toEqual({ action: 'deny' });
    expect(wc.openHandler!({ url: 'javascript:alert(1)' })).toEqual({ action: 'deny' });
    expect(opened).toEqual(['https://example.com/', 'https://example.org/']);
  });

  it('a viewer\'s own address opens a window only with the hardened viewer options; nothing else does', () => {
    const wc = new WebContentsStandIn();
    const options = viewerWindowOptions('/p.js');
    hardenWebContents(wc as never, { allowedOrigins: () => ORIGINS, openExternal: () => {}, log: () => {}, viewerWindow: () => options });
    expect(wc.openHandler!({ url: 'app://gpu-desk/index.html#viewer/c1/p1/2' })).toEqual({ action: 'allow', overrideBrowserWindowOptions: options });
    for (const url of ['app://gpu-desk/index.html', 'app://gpu-desk/index.html#viewer/c1/p1', 'app://evil/index.html#viewer/c1/p1/2', 'https://example.org/#viewer/c1/p1/2', 'app://u:p@gpu-desk/#viewer/c/p/1'])
      expect(wc.openHandler!({ url }), url).toEqual({ action: 'deny' });
    // A spanning viewer's address is a viewer's too, and the wiring is told which address it opens.
    const asked: string[] = [];
    const span = new WebContentsStandIn();
    hardenWebContents(span as never, { allowedOrigins: () => ORIGINS, openExternal: () => {}, log: () => {}, viewerWindow: (url) => { asked.push(url); return options; } });
    expect(span.openHandler!({ url: 'app://gpu-desk/index.html#viewer/c1/p1/2/span' })).toEqual({ action: 'allow', overrideBrowserWindowOptions: options });
    expect(span.openHandler!({ url: 'app://gpu-desk/index.html#viewer/c1/p1/2/spanned' })).toEqual({ action: 'deny' });
    expect(asked).toEqual(['app://gpu-desk/index.html#viewer/c1/p1/2/span']);
    // Without the options (an older wiring): no window at all.
    const bare = new WebContentsStandIn();
    hardenWebContents(bare as never, { allowedOrigins: () => ORIGINS, openExternal: () => {}, log: () => {} });
    expect(bare.openHandler!({ url: 'app://gpu-desk/index.html#viewer/c1/p1/2' })).toEqual({ action: 'deny' });
  });
});
