import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { _electron, expect, test, type ElectronApplication, type Page } from '@playwright/test';
import { findElectron, launchElectronApp, type LaunchedApp } from './electronBinary';

// The page's globals, typed here because this file compiles with Node's lib (no DOM).
interface PageGlobals {
  gpuDesk: { invoke(method: string, input: unknown): Promise<unknown> } & Record<string, unknown>;
  location: { href: string };
  open(url: string): unknown;
  require?: unknown;
  process?: unknown;
  navigator: { permissions: { query(q: { name: string }): Promise<{ state: string }> } };
}

const root = path.resolve(__dirname, '../..');
const found = findElectron(root);
const missing = 'missing' in found ? found.missing : null;
if (missing) {
  // Said out loud, not only as a skip reason: this file is the Electron check, and it did not happen.
  console.log(`\n*** Electron e2e NOT RUN: ${missing}.\n*** On a machine that can download Electron: npm ci (without ELECTRON_SKIP_BINARY_DOWNLOAD), then npx playwright test -c test/e2e-electron\n`);
}

test.describe('Electron shell', () => {
  test.skip(missing !== null, `Electron binary not available: ${missing}`);

  let app: ElectronApplication;
  let page: Page;
  const home = mkdtempSync(path.join(os.tmpdir(), 'gd-electron-'));

  let launched: LaunchedApp | null = null;

  test.beforeAll(async () => {
    launched = await launchElectronApp(root, (found as { path: string }).path, { GPU_DESK_HOME: home, XDG_CONFIG_HOME: home });
    app = launched.app;
    page = await app.firstWindow();
    await page.waitForLoadState('domcontentloaded');
  });

  test.afterAll(async () => {
    await launched?.close();
  });

  test('loads the renderer from app://gpu-desk with the CSP header', async () => {
    expect(page.url()).toBe('app://gpu-desk/index.html');
    const csp = await page.evaluate(async () => (await fetch((globalThis as unknown as PageGlobals).location.href)).headers.get('content-security-policy'));
    expect(csp).toContain("script-src 'self'");
    // An injected inline script (the XSS shape) is refused by the CSP, not run.
    expect(await page.evaluate(async () => {
      const el = document.createElement('script');
      el.textContent = 'globalThis.__injected = true';
      document.body.appendChild(el);
      await new Promise((r) => setTimeout(r, 100));
      return (globalThis as { __injected?: boolean }).__injected === true;
    })).toBe(false);
  });

  test('the page has no Node and exactly the two-function bridge', async () => {
    // nodeIntegration off, contextIsolation on: nothing of Node or of the preload's world is visible.
    expect(await page.evaluate(() => [typeof (globalThis as unknown as PageGlobals).require, typeof (globalThis as unknown as PageGlobals).process])).toEqual(['undefined', 'undefined']);
    expect(await page.evaluate(() => Object.keys((globalThis as unknown as PageGlobals).gpuDesk).sort())).toEqual(['invoke', 'on']);
    const info = await page.evaluate(() => (globalThis as unknown as PageGlobals).gpuDesk.invoke('app.info', {}));
    expect(info).toMatchObject({ ok: true, value: { shell: 'electron' } });
    const bad = await page.evaluate(() => (globalThis as unknown as PageGlobals).gpuDesk.invoke('app.info', { extra: 1 }));
    expect(bad).toMatchObject({ ok: false, error: { code: 'IPC_BAD_INPUT' } });
  });

  test('window.open and navigation away are blocked', async () => {
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).open('app://gpu-desk/index.html') === null)).toBe(true);
    await page.evaluate(() => { (globalThis as unknown as PageGlobals).location.href = 'file:///etc/passwd'; });
    await page.waitForTimeout(500);
    expect(page.url()).toBe('app://gpu-desk/index.html');
    expect(app.windows()).toHaveLength(1);
  });

  test('a spanning viewer\'s address opens one borderless window over the union of the displays, on top and fixed', async () => {
    const before = app.windows().length;
    const opened = app.waitForEvent('window');
    await page.evaluate(() => { (globalThis as unknown as PageGlobals).open('app://gpu-desk/index.html#viewer/c1/p1/2/span'); });
    const spanning = await opened;
    await spanning.waitForLoadState('domcontentloaded');
    const shown = await app.evaluate(({ BrowserWindow, screen }) => {
      const w = BrowserWindow.getAllWindows().find((x) => x.webContents.getURL().endsWith('/span'));
      const ds = screen.getAllDisplays().map((d) => d.bounds);
      const left = Math.min(...ds.map((d) => d.x));
      const top = Math.min(...ds.map((d) => d.y));
      const union = { x: left, y: top, width: Math.max(...ds.map((d) => d.x + d.width)) - left, height: Math.max(...ds.map((d) => d.y + d.height)) - top };
      return w ? { bounds: w.getBounds(), union, resizable: w.isResizable(), movable: w.isMovable(), onTop: w.isAlwaysOnTop() } : null;
    });
    expect(shown).not.toBeNull();
    expect(shown!.bounds).toEqual(shown!.union);
    expect([shown!.resizable, shown!.movable, shown!.onTop]).toEqual([false, false, true]);
    await spanning.close();
    await expect.poll(() => app.windows().length).toBe(before);
  });

  test('permissions other than clipboard are denied', async () => {
    const states = await page.evaluate(async () => Promise.all(['geolocation', 'notifications', 'camera', 'microphone'].map(async (name) => {
      try { return (await (globalThis as unknown as PageGlobals).navigator.permissions.query({ name })).state; } catch { return 'denied'; }
    })));
    expect(states.every((s) => s === 'denied')).toBe(true);
  });

  test('writes its log to the platform log folder', async () => {
    const logs = await app.evaluate(({ app: a }) => a.getPath('logs'));
    expect(readdirSync(logs)).toContain('main.log');
  });

  test('a second instance hands over and exits', async () => {
    const out = execFileSync((found as { path: string }).path, [root, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])], {
      env: { ...process.env, ...(launched?.display ? { DISPLAY: launched.display } : {}), GPU_DESK_HOME: home, XDG_CONFIG_HOME: home }, timeout: 20_000,
    });
    expect(out).toBeDefined();
    expect(app.windows()).toHaveLength(1);
  });
});
