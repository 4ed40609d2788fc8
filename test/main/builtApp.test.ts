import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { builtinModules } from 'node:module';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import { APP_ENTRY_URL, contentSecurityPolicy, securityHeaders, webPreferences } from '../../src/main/windowOptions';
import { EVENT_CHANNEL, INVOKE_CHANNEL } from '../../src/shared/bridge';
import { createElectronShim } from './electronShim';
import { VIEWER_SWITCHES } from '../../src/shared/chromiumSwitches';
import { EventEmitter } from 'node:events';
import { AppCore } from '../../src/core/app/createAppCore';
import { remoteOps } from '../../src/core/app/remoteOps';
import { ProfileStore } from '../../src/core/profiles/profileStore';
import { exportProfilesToFile } from '../../src/core/profiles/exchange';
import { ChannelHub } from '../../src/core/vnc/channelHub';
import { eventNames, methodNames } from '../../src/shared/contract';
import { createBridge } from '../../src/preload/bridge';
import { createMainRouter } from '../../src/main/router';
import { isTrustedFrame } from '../../src/main/security';
import net from 'node:net';
import { cleanupAll, startSshd, startXvnc } from '../bed';

afterAll(() => cleanupAll());

function rfbBanner(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1');
    sock.setTimeout(5000, () => { sock.destroy(); reject(new Error('timeout waiting for the RFB banner')); });
    sock.once('data', (d) => { sock.destroy(); resolve(d.toString('latin1')); });
    sock.once('error', reject);
  });
}
import { mimeType, resolveAppFile } from '../../src/main/protocol';

/**
 * The real `electron-vite build` output, checked the way Electron will use it: the sandboxed
 * preload may require only 'electron', the main bundle only what a packaged app ships, and the
 * renderer must load under the production CSP in a real Chromium without a single violation.
 */
const root = path.resolve(__dirname, '../..');
// Page-side globals, typed here because test/main compiles with Node's lib (no DOM).
interface PageGlobals {
  document: {
    addEventListener(type: 'securitypolicyviolation', l: (e: { violatedDirective: string; blockedURI: string }) => void): void;
    getElementById(id: string): { childElementCount: number } | null;
    querySelector(sel: string): { textContent: string | null } | null;
    createElement(tag: 'script'): { textContent: string };
    body: { appendChild(el: unknown): void };
  };
  __gdInvoke(method: string, input: unknown): Promise<unknown>;
  __gdSubscribe(event: string): Promise<void>;
  __gdEmit(event: string, payload: unknown): void;
}
// Inside the project (.tmp is git-ignored) so the main bundle resolves node_modules like the real app.
mkdirSync(path.join(root, '.tmp'), { recursive: true });
const out = mkdtempSync(path.join(root, '.tmp', 'build-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));
const requires = (file: string) => [...readFileSync(file, 'utf8').matchAll(/require\("([^"]+)"\)|import\("([^"]+)"\)/g)].map((m) => m[1] ?? m[2]);

beforeAll(async () => {
  await promisify(execFile)('npx', ['electron-vite', 'build', '--outDir', out, '--logLevel', 'error'], { cwd: root, timeout: 240_000 });
}, 250_000);

describe('electron-vite build output', () => {
  it('the sandboxed preload is one CommonJS file that requires only electron', () => {
    const file = path.join(out, 'preload/index.js');
    expect(new Set(requires(file))).toEqual(new Set(['electron']));
    const code = readFileSync(file, 'utf8');
    expect(code).toContain('exposeInMainWorld');
    expect(code).not.toMatch(/ipcRenderer\.(send|sendSync|sendToHost|postMessage)\(/);
  });

  it('the main bundle needs only Node built-ins, electron and runtime dependencies (what the installer ships)', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    const allowed = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`), 'electron', ...Object.keys(pkg.dependencies)]);
    const bad = requires(path.join(out, 'main/index.js')).map((r) => (r.startsWith('@') ? r.split('/').slice(0, 2).join('/') : r.startsWith('node:') ? r : r.split('/')[0]))
      .filter((r) => !allowed.has(r));
    expect(bad).toEqual([]);
  });

  it('the renderer entry has no inline script and loads only its own assets', () => {
    const html = readFileSync(path.join(out, 'renderer/index.html'), 'utf8');
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, body] of scripts) {
      expect(body.trim()).toBe('');
      expect(attrs).toMatch(/src="\.?\/?assets\//);
    }
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });
});

describe('the built renderer in Chromium: production CSP, and the preload bridge in front of the real router and core', () => {
  let server: http.Server;
  let base = '';
  let core: AppCore;
  let hub: ChannelHub;
  const chromiumPath = '/usr/bin/chromium';
  // What webContents.send would deliver to the preload's ipcRenderer.
  const ipcRenderer = new EventEmitter();
  const invoked: string[] = [];

  beforeAll(async () => {
    // Served the way src/main/protocol.ts serves app://gpu-desk: same file mapping, same headers.
    const csp = contentSecurityPolicy();
    server = http.createServer((req, res) => {
      const file = resolveAppFile(path.join(out, 'renderer'), `app://gpu-desk${req.url ?? '/'}`);
      if (!file || !existsSync(file)) return void res.writeHead(404).end();
      res.writeHead(200, { 'Content-Type': mimeType(file), ...securityHeaders(csp) }).end(readFileSync(file));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gd-bridge-'));
    hub = new ChannelHub({ allowedOrigins: () => [base] });
    const hubPort = await hub.listen();
    core = new AppCore({
      profiles: new ProfileStore({ file: path.join(dir, 'profiles.json'), notice: () => {} }),
      knownHostsFile: path.join(dir, 'known_hosts'),
      settingsFile: path.join(dir, 'settings.json'),
      hub,
      channelBase: () => `ws://127.0.0.1:${hubPort}`,
      emit: (event, payload) => ipcRenderer.emit(EVENT_CHANNEL, { sender: 'main' }, event, payload),
      remote: remoteOps(),
      shell: 'electron',
      version: '0.1.0-bridge',
      sshConfigPath: null,
      userKnownHostsFiles: [],
    });
  });
  afterAll(async () => {
    await core?.shutdown();
    await hub?.close();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  });

  it('starts over window.gpuDesk without a CSP violation or a page error', async () => {
    if (!existsSync(chromiumPath)) {
      console.log(`renderer-in-Chromium check not run: ${chromiumPath} is not installed (Debian package chromium)`);
      return;
    }
    const OUR_FRAME = { webContentsId: 1, url: `${base}/index.html`, isMainFrame: true };
    const dispatch = createMainRouter({ handlers: core.handlers(), isTrusted: (f) => isTrustedFrame(f, new Set([1]), [base]), log: () => {} });
    // The real preload factory, its ipcRenderer wired straight to the main router (as ipcMain.handle does).
    const bridge = createBridge({
      invoke: async (channel, method, input) => (channel === INVOKE_CHANNEL ? (invoked.push(String(method)), dispatch(OUR_FRAME, method, input)) : undefined),
      on: (channel, l) => ipcRenderer.on(channel, l),
      removeListener: (channel, l) => ipcRenderer.removeListener(channel, l),
    }, { methods: methodNames, events: eventNames });

    const browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' && !/favicon\.ico$/.test(m.location().url)) problems.push(`console: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
      // contextBridge proxies functions across worlds; Playwright bindings do the same across processes.
      await page.exposeBinding('__gdInvoke', (_src, method: string, input: unknown) => bridge.invoke(method, input));
      await page.exposeBinding('__gdSubscribe', (_src, event: string) => {
        bridge.on(event, (payload) => void page.evaluate(([e, p]) => (globalThis as unknown as PageGlobals).__gdEmit(e, p), [event, payload] as const).catch(() => {}));
      });
      await page.addInitScript((events: string[]) => {
        const g = globalThis as unknown as PageGlobals;
        g.document.addEventListener('securitypolicyviolation', (e) => console.error(`Content Security Policy violation: ${e.violatedDirective} ${e.blockedURI}`));
        const listeners = new Map<string, Set<(p: unknown) => void>>();
        g.__gdEmit = (event, payload) => { for (const l of listeners.get(event) ?? []) l(payload); };
        const api = {
          invoke: (method: string, input?: unknown) => g.__gdInvoke(method, input),
          on(event: string, listener: (p: unknown) => void) {
            if (!events.includes(event)) throw new TypeError(`gpuDesk.on: unknown event "${event}"`);
            let set = listeners.get(event);
            if (!set) { listeners.set(event, (set = new Set())); void g.__gdSubscribe(event); }
            const wrapped = (p: unknown) => listener(p);
            set.add(wrapped);
            return () => { set!.delete(wrapped); };
          },
        };
        Object.defineProperty(g, 'gpuDesk', { value: Object.freeze(api), enumerable: true });
      }, [...eventNames]);
      await page.goto(`${base}/index.html`);
      await page.waitForFunction(() => ((globalThis as unknown as PageGlobals).document.getElementById('root')?.childElementCount ?? 0) > 0, null, { timeout: 15_000 });
      await page.waitForTimeout(1500);
      mkdirSync(path.join(root, 'test-results'), { recursive: true });
      await page.screenshot({ path: path.join(root, 'test-results', 'electron-bridge-start.png') });
      expect(problems).toEqual([]);
      // It really went through the bridge (the harness client was not used).
      expect(invoked.length).toBeGreaterThan(0);
      const fatal = await page.evaluate(() => (globalThis as unknown as PageGlobals).document.querySelector('.fatal')?.textContent ?? null);
      expect(fatal).toBeNull();
      // An injected inline script (the XSS shape) is refused by the CSP and reported, not run.
      const ran = await page.evaluate(async () => {
        const g = globalThis as unknown as PageGlobals;
        const el = g.document.createElement('script');
        el.textContent = 'globalThis.__injected = true';
        g.document.body.appendChild(el);
        await new Promise((r) => setTimeout(r, 100));
        return (globalThis as { __injected?: boolean }).__injected === true;
      });
      expect(ran).toBe(false);
      expect(problems.some((p) => /violation: script-src/.test(p))).toBe(true);
    } finally {
      await browser.close();
    }
  });
});

describe('the built main bundle, started against an Electron API shim (real core behind it)', () => {
  const home = mkdtempSync(path.join(os.tmpdir(), 'gd-shim-'));
  const shim = createElectronShim({ userData: path.join(home, 'userData'), logs: path.join(home, 'logs'), appPath: root });
  const proc = process as NodeJS.Process & { resourcesPath?: string };
  const saved = { home: process.env.GPU_DESK_HOME, resources: proc.resourcesPath };
  const invoke = (event: unknown, method: string, input: unknown) => shim.handlers.get(INVOKE_CHANNEL)!(event, method, input) as Promise<unknown>;

  beforeAll(async () => {
    process.env.GPU_DESK_HOME = path.join(home, 'data');
    // A packaged app finds the tray icons in <resources>/tray (electron-builder extraResources).
    proc.resourcesPath = path.join(root, 'resources');
    const mod = Module as unknown as { _load: (req: string, ...rest: unknown[]) => unknown };
    const load = mod._load;
    mod._load = function (req: string, ...rest: unknown[]) {
      return req === 'electron' ? shim.electron : load.call(this, req, ...rest);
    };
    try {
      createRequire(__filename)(path.join(out, 'main/index.js'));
    } finally {
      mod._load = load;
    }
    const t0 = Date.now();
    while (!(shim.handlers.has(INVOKE_CHANNEL) && shim.windows.length === 1)) {
      if (Date.now() - t0 > 20_000) throw new Error(`main never finished starting: ${JSON.stringify(shim.calls.map((c) => c.name))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }, 30_000);

  afterAll(() => {
    process.env.GPU_DESK_HOME = saved.home;
    proc.resourcesPath = saved.resources;
  });

  it('registers app:// as privileged before ready and serves the renderer with the CSP header', async () => {
    const reg = shim.calls.find((c) => c.name === 'registerSchemesAsPrivileged')!;
    expect(reg.args[1]).toBe(false);
    // app.enableSandbox() must also come before 'ready' to take effect.
    expect(shim.calls.find((c) => c.name === 'enableSandbox')?.args).toEqual([false]);
    // The viewer's Chromium switches (the ones bench:viewer and the e2e specs run with), also before 'ready'.
    const switches = shim.calls.filter((c) => c.name === 'appendSwitch');
    expect(switches.map((c) => [c.args[0], c.args[1]])).toEqual(VIEWER_SWITCHES.map(([n, v]) => [n, v]));
    expect(switches.every((c) => c.args[2] === false)).toBe(true);
    expect(reg.args[0]).toEqual([{ scheme: 'app', privileges: expect.objectContaining({ standard: true, secure: true }) }]);
    const res = await shim.protocolHandlers.get('app')!({ url: APP_ENTRY_URL, method: 'GET' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(contentSecurityPolicy());
    expect((await shim.protocolHandlers.get('app')!({ url: 'app://gpu-desk/../../package.json', method: 'GET' })).status).toBe(404);
  });

  it('opens one window with the hardened preferences on the app URL', () => {
    const w = shim.windows[0];
    expect(w.options.webPreferences).toEqual(webPreferences(path.join(out, 'preload/index.js')));
    expect(w.webContents.url).toBe(APP_ENTRY_URL);
    expect(w.visible).toBe(true);
    // First run: no saved state yet, so the default size and no position (the window manager places it).
    expect(w.options).toMatchObject({ width: 1280, height: 820, show: false });
    expect(w.options).not.toHaveProperty('x');
  });

  it('hardens every WebContents it creates', () => {
    const wc = shim.windows[0].webContents;
    expect(wc.openHandler!({ url: 'https://example.org/docs' })).toEqual({ action: 'deny' });
    expect(shim.calls.some((c) => c.name === 'openExternal' && c.args[0] === 'https://example.org/docs')).toBe(true);
    let prevented = false;
    wc.emit('will-navigate', { preventDefault: () => { prevented = true; } }, 'file:///etc/passwd');
    expect(prevented).toBe(true);
  });

  it('answers IPC from its window only, through the contract, with the real core', async () => {
    const wc = shim.windows[0].webContents;
    const ours = { sender: wc, senderFrame: { url: APP_ENTRY_URL, parent: null } };
    expect(await invoke(ours, 'app.info', {})).toEqual({ ok: true, value: { version: '0.1.0-shim', shell: 'electron', platform: process.platform } });
    expect(await invoke(ours, 'profiles.list', {})).toEqual({ ok: true, value: [] });
    expect(await invoke(ours, 'app.info', { extra: 1 })).toMatchObject({ ok: false, error: { code: 'IPC_BAD_INPUT' } });
    expect(await invoke({ sender: { id: 999 }, senderFrame: { url: APP_ENTRY_URL, parent: null } }, 'app.info', {})).toMatchObject({ ok: false, error: { code: 'IPC_BAD_SENDER' } });
    expect(await invoke({ sender: wc, senderFrame: { url: APP_ENTRY_URL, parent: {} } }, 'app.info', {})).toMatchObject({ ok: false, error: { code: 'IPC_BAD_SENDER' } });
    expect(await invoke({ sender: wc, senderFrame: null }, 'app.info', {})).toMatchObject({ ok: false, error: { code: 'IPC_BAD_SENDER' } });
  });

  it('forwards core events to the window', async () => {
    const wc = shim.windows[0].webContents;
    await invoke({ sender: wc, senderFrame: { url: APP_ENTRY_URL, parent: null } }, 'tunnels.close', { tunnelId: 't-none' });
    expect(wc.sent).toContainEqual([EVENT_CHANNEL, 'tunnels.changed', []]);
  });

  it('denies permissions except clipboard for the app', () => {
    const ask = (p: string, url: string) => { let got: boolean | null = null; shim.ses.permissionRequest!({}, p, (ok: boolean) => { got = ok; }, { requestingUrl: url }); return got; };
    expect(ask('media', APP_ENTRY_URL)).toBe(false);
    expect(ask('geolocation', APP_ENTRY_URL)).toBe(false);
    expect(ask('clipboard-sanitized-write', APP_ENTRY_URL)).toBe(true);
    expect(ask('clipboard-read', 'https://evil.example/')).toBe(false);
    expect(shim.ses.permissionCheck!({}, 'clipboard-read', 'app://gpu-desk')).toBe(true);
    expect(shim.ses.permissionCheck!({}, 'notifications', 'app://gpu-desk')).toBe(false);
  });

  it('has an app menu and a tray icon listing tunnels', () => {
    expect(shim.calls.some((c) => c.name === 'setApplicationMenu')).toBe(true);
    const tray = shim.calls.find((c) => c.name === 'Tray')!;
    expect(existsSync(tray.args[0] as string)).toBe(true);
    expect(shim.trays[0].tooltip).toBe('gpu-desk');
  });

  it("the tray's saved servers follow every change, File → Import too (profiles.changed)", async () => {
    const wc = shim.windows[0].webContents;
    const ours = { sender: wc, senderFrame: { url: APP_ENTRY_URL, parent: null } };
    type Item = { label?: string; submenu?: Item[] };
    const labels = (items: Item[]): string[] => items.flatMap((i) => [i.label ?? '', ...labels(i.submenu ?? [])]);
    const trayMenu = () => labels((shim.trays[0].menu as { template: Item[] }).template);
    // A servers file as another machine exported it.
    const elsewhere = mkdtempSync(path.join(os.tmpdir(), 'gd-export-'));
    const store = new ProfileStore({ file: path.join(elsewhere, 'profiles.json'), notice: () => {} });
    await store.add({ name: 'imported-gpu', host: 'gpu.example', port: 22, user: 'me', jumpHosts: [], auth: { kind: 'auto' }, display: {}, viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'fit', adaptive: false }, forwards: [] });
    const file = path.join(elsewhere, 'servers.json');
    await exportProfilesToFile(store, file);
    shim.dialogAnswers.push(file);
    expect(await invoke(ours, 'profiles.importFile', { replace: false })).toMatchObject({ ok: true, value: { added: ['imported-gpu'] } });
    const t0 = Date.now();
    while (!trayMenu().includes('imported-gpu')) {
      if (Date.now() - t0 > 5000) throw new Error(`the tray never listed the imported server: ${JSON.stringify(trayMenu())}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(wc.sent.some(([ch, ev]) => ch === EVENT_CHANNEL && ev === 'profiles.changed')).toBe(true);
    const listed = (await invoke(ours, 'profiles.list', {})) as { value: { id: string; name: string }[] };
    const id = listed.value.find((p) => p.name === 'imported-gpu')!.id;
    expect(await invoke(ours, 'profiles.remove', { id })).toMatchObject({ ok: true });
    while (trayMenu().includes('imported-gpu')) {
      if (Date.now() - t0 > 10_000) throw new Error('the tray still lists the removed server');
      await new Promise((r) => setTimeout(r, 50));
    }
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it('the app menu and the tray follow the language setting', async () => {
    const wc = shim.windows[0].webContents;
    const ours = { sender: wc, senderFrame: { url: APP_ENTRY_URL, parent: null } };
    type Item = { label?: string; submenu?: Item[] };
    const labels = (items: Item[]): string[] => items.flatMap((i) => [i.label ?? '', ...labels(i.submenu ?? [])]);
    const appMenu = () => labels((shim.calls.filter((c) => c.name === 'setApplicationMenu').at(-1)!.args[0] as { template: Item[] }).template);
    const trayMenu = () => labels((shim.trays[0].menu as { template: Item[] }).template);
    expect(appMenu()).toContain('&File');
    try {
      expect(await invoke(ours, 'settings.set', { language: 'zh-CN' })).toMatchObject({ ok: true });
      expect(appMenu()).toEqual(expect.arrayContaining(['文件(&F)', '导入服务器…', '撤销']));
      expect(trayMenu()).toEqual(expect.arrayContaining(['没有打开的隧道', '退出 gpu-desk']));
    } finally {
      expect(await invoke(ours, 'settings.set', { language: 'system' })).toMatchObject({ ok: true });
    }
    expect(appMenu()).toContain('&File');
    expect(trayMenu()).toContain('Quit gpu-desk');
  });

  it('a second launch brings the hidden window back', () => {
    const w = shim.windows[0];
    w.hide();
    shim.electron.app.emit('second-instance', {}, [], root);
    expect(w.visible).toBe(true);
    expect(shim.windows).toHaveLength(1);
  });

  it('a second instance that does not get the lock quits at once, opening nothing', () => {
    const second = createElectronShim({ userData: path.join(home, 'userData2'), logs: path.join(home, 'logs2'), appPath: root });
    second.electron.app.requestSingleInstanceLock = () => false;
    const file = path.join(out, 'main/index.js');
    const req = createRequire(__filename);
    const mod = Module as unknown as { _load: (req: string, ...rest: unknown[]) => unknown };
    const load = mod._load;
    const cached = req.cache[file];
    delete req.cache[file];
    mod._load = function (r: string, ...rest: unknown[]) {
      return r === 'electron' ? second.electron : load.call(this, r, ...rest);
    };
    try {
      req(file);
    } finally {
      mod._load = load;
      if (cached) req.cache[file] = cached;
    }
    // Switches and the scheme must precede 'ready' even here; nothing else happens before it quits.
    expect(second.calls.map((c) => c.name).filter((n) => n !== 'appendSwitch')).toEqual(['registerSchemesAsPrivileged', 'quit']);
    expect(second.windows).toHaveLength(0);
    expect(second.handlers.size).toBe(0);
  });

  it('closing the idle window closes it; a later launch opens a fresh one', () => {
    expect(shim.windows[0].close()).toBe(true);
    expect(JSON.parse(readFileSync(path.join(home, 'userData', 'window-state.json'), 'utf8'))).toEqual({ x: 10, y: 20, width: 1200, height: 800, maximized: false, fullScreen: false });
    shim.electron.app.emit('second-instance', {}, [], root);
    expect(shim.windows).toHaveLength(2);
    expect(shim.windows[1].webContents.url).toBe(APP_ENTRY_URL);
    // Restored where the first one was left.
    expect(shim.windows[1].options).toMatchObject({ x: 10, y: 20, width: 1200, height: 800 });
  });

  it('with a tunnel open: the tray lists it, closing the window hides to the tray, Quit closes the tunnel and then quits', async () => {
    const [sshd, xvnc] = await Promise.all([startSshd(), startXvnc({ geometry: '640x480' })]);
    const w = shim.windows[1];
    const wc = w.webContents;
    const ours = { sender: wc, senderFrame: { url: APP_ENTRY_URL, parent: null } };
    const saved = (await invoke(ours, 'profiles.save', { profile: {
      name: 'bed', host: '127.0.0.1', port: sshd.port, user: sshd.user, jumpHosts: [], auth: { kind: 'key-file', path: sshd.userKeyPath },
      display: {}, viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'fit', adaptive: false }, forwards: [],
    } })) as { ok: true; value: { id: string } };
    expect(saved.ok).toBe(true);
    // The window answers the host-key prompt it receives as an event, after checking the fingerprint.
    const opening = invoke(ours, 'connections.open', { profileId: saved.value.id }) as Promise<{ ok: boolean; value: { id: string; label: string } }>;
    const t0 = Date.now();
    let prompt: { promptId: string; fingerprint: string } | undefined;
    while (!(prompt = wc.sent.find((m) => m[0] === EVENT_CHANNEL && m[1] === 'prompt')?.[2] as typeof prompt)) {
      if (Date.now() - t0 > 20_000) throw new Error('no host-key prompt reached the window');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(prompt.fingerprint).toBe(sshd.hostKeyFingerprint);
    await invoke(ours, 'prompts.answer', { promptId: prompt.promptId, answer: { kind: 'hostKey', decision: 'accept-once' } });
    const conn = await opening;
    expect(conn.ok, JSON.stringify(conn)).toBe(true);
    const t = (await invoke(ours, 'tunnels.open', { connectionId: conn.value.id, display: xvnc.display })) as { ok: boolean; value: { id: string; localPort: number } };
    expect(t.ok, JSON.stringify(t)).toBe(true);

    const tray = shim.trays[0];
    const t1 = Date.now();
    while (tray.tooltip !== 'gpu-desk — 1 tunnel open') {
      if (Date.now() - t1 > 10_000) throw new Error(`tray never listed the tunnel (tooltip: ${tray.tooltip})`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const items = (tray.menu as { template: { id?: string; label?: string }[] }).template;
    expect(items.find((i) => i.id === `tunnel:${t.value.id}`)?.label).toBe(`${conn.value.label} :${xvnc.display} → 127.0.0.1:${t.value.localPort}`);

    // Keep-running is on by default: the window goes to the tray and the tunnel keeps serving.
    expect(w.close()).toBe(false);
    expect(w.visible).toBe(false);
    await expect(rfbBanner(t.value.localPort)).resolves.toMatch(/^RFB 003\.00\d\n$/);

    shim.electron.app.quit();
    const t2 = Date.now();
    while (!shim.calls.some((c) => c.name === 'quit')) {
      if (Date.now() - t2 > 10_000) throw new Error('quit never completed');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(shim.quitRequests).toBe(2);
    await expect(rfbBanner(t.value.localPort)).rejects.toThrow(/ECONNREFUSED/);
    const log = readFileSync(path.join(home, 'logs', 'main.log'), 'utf8');
    expect(log).toContain('gpu-desk 0.1.0-shim starting');
    expect(log).toContain('shutdown clean');
    expect(log).toContain('blocked navigation');
  }, 60_000);
});
