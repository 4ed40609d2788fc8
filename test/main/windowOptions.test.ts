import { describe, expect, it } from 'vitest';
import { APP_ENTRY_URL, APP_ORIGIN, contentSecurityPolicy, mainWindowOptions, securityHeaders, spanWindowOptions, viewerWindowOptions, webPreferences } from '../../src/main/windowOptions';

function parseCsp(csp: string): Map<string, string[]> {
  return new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v]));
}

describe('window options (Electron security checklist)', () => {
  it('isolates and sandboxes the renderer, with no Node and no insecure switches', () => {
    const w = webPreferences('/app/out/preload/index.js');
    expect(w).toMatchObject({
      contextIsolation: true,            // checklist #3
      sandbox: true,                     // #4
      nodeIntegration: false,            // #2
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,                 // #6
      allowRunningInsecureContent: false, // #8
      experimentalFeatures: false,       // #9
      webviewTag: false,                 // #12
      navigateOnDragDrop: false,         // #13
    });
    expect(w).not.toHaveProperty('enableBlinkFeatures'); // #10
    expect(w.preload).toBe('/app/out/preload/index.js');
  });

  it('the main window uses exactly those preferences and starts hidden', () => {
    const o = mainWindowOptions('/p.js', { width: 1200, height: 800 });
    expect(o.webPreferences).toEqual(webPreferences('/p.js'));
    expect(o.show).toBe(false);
    expect(o.minWidth).toBeGreaterThan(0);
  });

  it('a viewer window (several desktops at once) has exactly the main window\'s hardened preferences', () => {
    const o = viewerWindowOptions('/p.js', '/icon.png');
    expect(o.webPreferences).toEqual(webPreferences('/p.js'));
    expect(o.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false });
    expect(o.icon).toBe('/icon.png');
    expect(o.minWidth).toBe(mainWindowOptions('/p.js', { width: 1, height: 1 }).minWidth);
  });

  it('a spanning viewer: one borderless, fixed window at exactly the bounds given, above the taskbar, with the same hardened preferences', () => {
    const bounds = { x: -1920, y: -1080, width: 4480, height: 2520 };
    const o = spanWindowOptions('/p.js', bounds, '/icon.png');
    expect(o).toMatchObject({ ...bounds, frame: false, resizable: false, movable: false, fullscreenable: false, enableLargerThanScreen: true, alwaysOnTop: true, show: true });
    // No minimum size to clamp it, and the same preferences as every other window.
    expect(o.minWidth).toBeUndefined();
    expect(o.webPreferences).toEqual(webPreferences('/p.js'));
    expect(o.icon).toBe('/icon.png');
  });

  it('production CSP: nothing by default, scripts only from the app itself, no inline/eval (WebAssembly compiles: the viewer\'s JPEG decoder)', () => {
    const csp = parseCsp(contentSecurityPolicy());
    expect(csp.get('default-src')).toEqual(["'none'"]);
    expect(csp.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
    expect(csp.get('style-src')).toEqual(["'self'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('form-action')).toEqual(["'none'"]);
    expect(csp.get('connect-src')).toEqual(["'self'", 'ws://127.0.0.1:*']);
    const all = contentSecurityPolicy();
    expect(all.replace("'wasm-unsafe-eval'", '')).not.toMatch(/unsafe-(inline|eval)|\*\s|https?:/);
  });

  it('dev CSP relaxes only for the Vite dev server', () => {
    const dev = parseCsp(contentSecurityPolicy({ dev: true, devServerOrigin: 'http://localhost:5173' }));
    expect(dev.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'", "'unsafe-inline'", 'http://localhost:5173']);
    expect(dev.get('connect-src')).toContain('ws://localhost:5173');
    expect(dev.get('default-src')).toEqual(["'none'"]);
  });

  it('serves every response with the CSP and hardening headers from an app:// origin', () => {
    const h = securityHeaders(contentSecurityPolicy());
    expect(h['Content-Security-Policy']).toBe(contentSecurityPolicy());
    expect(h['X-Content-Type-Options']).toBe('nosniff');
    expect(APP_ORIGIN).toBe('app://gpu-desk');
    expect(APP_ENTRY_URL.startsWith(`${APP_ORIGIN}/`)).toBe(true);
  });
});
