import { mkdtempSync, readFileSync, writeFileSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mimeType, registerAppProtocol, resolveAppFile } from '../../src/main/protocol';
import { DEFAULT_STATE, fitToDisplays, loadWindowState, saveWindowState } from '../../src/main/windowState';
import { closeAction, loadSettings, saveSettings } from '../../src/main/settings';
import { appMenuTemplate, trayMenuTemplate, trayTooltip } from '../../src/main/menus';
import { contentSecurityPolicy } from '../../src/main/windowOptions';
import type { ForwardView, Profile, TunnelView } from '../../src/shared/models';
import type { MenuItemConstructorOptions } from 'electron';

const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'gd-shell-'));

describe('app:// protocol', () => {
  const root = '/opt/gpu-desk/out/renderer';
  it('maps app URLs inside the renderer folder only', () => {
    expect(resolveAppFile(root, 'app://gpu-desk/index.html')).toBe(`${root}/index.html`);
    expect(resolveAppFile(root, 'app://gpu-desk/')).toBe(`${root}/index.html`);
    expect(resolveAppFile(root, 'app://gpu-desk/assets/a%20b.js?v=1#x')).toBe(`${root}/assets/a b.js`);
    for (const bad of ['app://gpu-desk/../../../etc/passwd', 'app://gpu-desk/%2e%2e/%2e%2e/etc/passwd', 'app://gpu-desk/..%2f..%2fetc/passwd',
      'app://gpu-desk/a%00b', 'app://gpu-desk/%E0%A4%A', 'app://other/index.html', 'file:///etc/passwd', 'app://gpu-desk/..%5c..%5cx'])
    {
      // URL parsing may fold "../" into the root (harmless); what matters is that nothing escapes it.
      const got = resolveAppFile(root, bad);
      expect(got === null || got.startsWith(`${root}/`), `${bad} → ${got}`).toBe(true);
    }
    expect(resolveAppFile(root, 'app://gpu-desk/..%2f..%2fetc/passwd')).toBeNull();
    expect(resolveAppFile(root, 'app://gpu-desk/a%00b')).toBeNull();
    expect(resolveAppFile(root, 'app://other/index.html')).toBeNull();
    expect(resolveAppFile(root, 'file:///etc/passwd')).toBeNull();
    expect(mimeType('x/y.JS')).toMatch(/javascript/);
    expect(mimeType('y.bin')).toBe('application/octet-stream');
  });

  it('answers with the file and the CSP header, 404 otherwise (real files, Node fetch Response)', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>t</title>');
    let handler: ((r: Request) => Promise<Response>) | null = null;
    registerAppProtocol({ handle: (_s: string, h: (r: Request) => Promise<Response>) => { handler = h; } } as never, dir, contentSecurityPolicy());
    const ok = await handler!({ url: 'app://gpu-desk/index.html', method: 'GET' } as Request);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-security-policy')).toBe(contentSecurityPolicy());
    expect(ok.headers.get('content-type')).toMatch(/text\/html/);
    expect(await ok.text()).toContain('<title>t</title>');
    expect((await handler!({ url: 'app://gpu-desk/missing.js', method: 'GET' } as Request)).status).toBe(404);
    expect((await handler!({ url: 'app://gpu-desk/index.html', method: 'POST' } as Request)).status).toBe(404);
  });
});

describe('window state', () => {
  const screen = [{ x: 0, y: 0, width: 1920, height: 1040 }];
  it('round-trips atomically and survives a damaged file', () => {
    const dir = tmp();
    const f = path.join(dir, 'window-state.json');
    expect(loadWindowState(f)).toEqual(DEFAULT_STATE);
    saveWindowState(f, { x: 100, y: 80, width: 1300, height: 900, maximized: true, fullScreen: false });
    expect(loadWindowState(f)).toEqual({ x: 100, y: 80, width: 1300, height: 900, maximized: true, fullScreen: false });
    expect(readdirSync(dir)).toEqual(['window-state.json']);
    expect(statSync(f).mode & 0o077).toBe(0);
    writeFileSync(f, '{"width": 1200, "hei');
    expect(loadWindowState(f)).toEqual(DEFAULT_STATE);
    writeFileSync(f, JSON.stringify({ width: 'wide', height: 1e12 }));
    expect(loadWindowState(f)).toEqual(DEFAULT_STATE);
  });

  it('drops positions on displays that are gone and clamps sizes', () => {
    expect(fitToDisplays({ x: 3000, y: 100, width: 1300, height: 900, maximized: false, fullScreen: false }, screen))
      .toEqual({ width: 1300, height: 900, maximized: false, fullScreen: false });
    expect(fitToDisplays({ x: 100, y: 100, width: 4000, height: 3000, maximized: false, fullScreen: false }, screen))
      .toEqual({ x: 100, y: 100, width: 1920, height: 1040, maximized: false, fullScreen: false });
    expect(fitToDisplays({ width: 10, height: 10, maximized: false, fullScreen: false }, screen)).toMatchObject({ width: 900, height: 600 });
    const two = [...screen, { x: 1920, y: 0, width: 2560, height: 1400 }];
    expect(fitToDisplays({ x: 2000, y: 50, width: 1300, height: 900, maximized: false, fullScreen: false }, two)).toMatchObject({ x: 2000, y: 50 });
  });
});

describe('settings and close behaviour', () => {
  it('persists keep-running-in-tray (default on) and the language (default: the system\'s)', () => {
    const f = path.join(tmp(), 'settings.json');
    expect(loadSettings(f)).toEqual({ keepRunningInTray: true, language: 'system' });
    saveSettings(f, { keepRunningInTray: false, language: 'zh-CN' });
    expect(loadSettings(f)).toEqual({ keepRunningInTray: false, language: 'zh-CN' });
    expect(JSON.parse(readFileSync(f, 'utf8'))).toEqual({ keepRunningInTray: false, language: 'zh-CN' });
  });

  it('takes the default for each setting a hand-edited file breaks', () => {
    const f = path.join(tmp(), 'settings.json');
    writeFileSync(f, JSON.stringify({ keepRunningInTray: 'yes', language: 'fr' }));
    expect(loadSettings(f)).toEqual({ keepRunningInTray: true, language: 'system' });
    writeFileSync(f, '[1, 2');
    expect(loadSettings(f)).toEqual({ keepRunningInTray: true, language: 'system' });
  });

  it('hides to the tray only while tunnels are open and the user wants it', () => {
    const base = { quitting: false, keepRunningInTray: true, activeTunnels: 2, trayAvailable: true };
    expect(closeAction(base)).toBe('hide');
    expect(closeAction({ ...base, activeTunnels: 0 })).toBe('close');
    expect(closeAction({ ...base, keepRunningInTray: false })).toBe('close');
    expect(closeAction({ ...base, quitting: true })).toBe('close');
    expect(closeAction({ ...base, trayAvailable: false })).toBe('close');
  });
});

function flat(items: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return items.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? flat(i.submenu) : [])]);
}

describe('menus', () => {
  const noop = { setKeepRunning: () => {}, openLogFolder: () => {}, openDataFolder: () => {}, importProfiles: () => {}, exportProfiles: () => {}, showKeys: () => {} };
  it('has the usual roles and shortcuts on each platform, dev tools only in development', () => {
    for (const platform of ['linux', 'win32', 'darwin'] as const) {
      const roles = flat(appMenuTemplate({ platform, dev: false, keepRunningInTray: true, appName: 'gpu-desk' }, noop)).map((i) => i.role).filter(Boolean);
      for (const r of ['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll', 'quit', 'togglefullscreen', 'zoomIn', 'zoomOut', 'resetZoom', 'minimize', 'about'])
        expect(roles, `${platform} ${r}`).toContain(r);
      expect(roles).not.toContain('toggleDevTools');
      expect(roles).not.toContain('reload');
    }
    const dev = flat(appMenuTemplate({ platform: 'linux', dev: true, keepRunningInTray: true, appName: 'gpu-desk' }, noop)).map((i) => i.role);
    expect(dev).toContain('toggleDevTools');
  });

  it('the File menu imports and exports servers and opens the Keys screen, on every platform', () => {
    for (const platform of ['linux', 'win32', 'darwin'] as const) {
      const calls: string[] = [];
      const template = appMenuTemplate({ platform, dev: false, keepRunningInTray: true, appName: 'gpu-desk' }, {
        ...noop, importProfiles: () => calls.push('import'), exportProfiles: () => calls.push('export'), showKeys: () => calls.push('keys'),
      });
      const file = template.find((m) => m.label === '&File')!;
      const items = flat(Array.isArray(file.submenu) ? file.submenu : []);
      for (const id of ['import-profiles', 'export-profiles', 'show-keys']) items.find((i) => i.id === id)!.click!({} as never, undefined, {} as never);
      expect(calls, platform).toEqual(['import', 'export', 'keys']);
    }
  });

  it('the keep-running checkbox reports its new state', () => {
    let got: boolean | null = null;
    const item = flat(appMenuTemplate({ platform: 'linux', dev: false, keepRunningInTray: false, appName: 'gpu-desk' }, { ...noop, setKeepRunning: (v) => { got = v; } }))
      .find((i) => i.id === 'keep-running')!;
    expect(item.checked).toBe(false);
    item.click!({ checked: true } as never, undefined, {} as never);
    expect(got).toBe(true);
  });

  it('the tray lists each tunnel with copy, open-forward and close actions', () => {
    const t: TunnelView = {
      id: 't1', connectionId: 'c1', localHost: '127.0.0.1', localPort: 5901, display: 1, remotePort: 5901,
      forwards: [
        { kind: 'local', localPort: 8888, remoteHost: '127.0.0.1', remotePort: 8888, url: 'http://127.0.0.1:8888/' },
        { kind: 'local', localPort: 2222, remoteHost: '10.0.0.2', remotePort: 22, url: null },
      ] as TunnelView['forwards'],
      bytesIn: 0, bytesOut: 0, clients: 0,
      commands: { turbovnc: 'vncviewer 127.0.0.1::5901', tigervnc: 'xtigervncviewer 127.0.0.1::5901', realvnc: 'vncviewer 127.0.0.1:5901' },
    };
    const log: string[] = [];
    const act = {
      showWindow: () => log.push('show'), copy: (s: string) => log.push(`copy ${s}`), openExternal: (u: string) => log.push(`open ${u}`),
      closeTunnel: (id: string) => log.push(`close ${id}`), closeAllTunnels: () => log.push('closeAll'), setKeepRunning: () => {}, quit: () => log.push('quit'),
      openSaved: (id: string) => log.push(`saved ${id}`), closeForward: (id: string) => log.push(`closeForward ${id}`),
    };
    const menu = trayMenuTemplate([t], { keepRunningInTray: true, labels: { c1: 'gpu1' } }, act);
    const entry = menu.find((i) => i.id === 'tunnel:t1')!;
    expect(entry.label).toBe('gpu1 :1 → 127.0.0.1:5901');
    for (const i of entry.submenu as MenuItemConstructorOptions[]) i.click?.({} as never, undefined, {} as never);
    expect(log).toEqual(['copy 127.0.0.1::5901', 'copy xtigervncviewer 127.0.0.1::5901', 'open http://127.0.0.1:8888/', 'close t1']);
    expect(trayTooltip([t])).toBe('gpu-desk — 1 tunnel open');
    const empty = trayMenuTemplate([], { keepRunningInTray: true }, act);
    expect(empty.some((i) => i.label === 'No open tunnels')).toBe(true);
    expect(empty.find((i) => i.label === 'Close All Tunnels')!.enabled).toBe(false);
  });

  it('the tray opens a saved server\'s tunnel-only mode and lists open forwards with open-in-browser and close', () => {
    const log: string[] = [];
    const act = {
      showWindow: () => {}, copy: (s: string) => log.push(`copy ${s}`), openExternal: (u: string) => log.push(`open ${u}`),
      closeTunnel: () => {}, closeAllTunnels: () => {}, setKeepRunning: () => {}, quit: () => {},
      openSaved: (id: string) => log.push(`saved ${id}`), closeForward: (id: string) => log.push(`closeForward ${id}`),
    };
    const profile = (id: string, name: string, display: number | undefined, forwards: number): Profile => ({
      id, name, kind: 'server', host: 'h', port: 22, jumpHosts: [], auth: { kind: 'auto' }, display: display === undefined ? {} : { number: display },
      viewer: { quality: 6, compression: 2, encodings: [], scaling: 'fit', adaptive: false },
      forwards: Array.from({ length: forwards }, (_, i) => ({ kind: 'local' as const, localPort: 8888 + i, remoteHost: 'localhost', remotePort: 8888 + i })),
      createdAt: '', updatedAt: '',
    });
    const forwards: ForwardView[] = [
      { id: 't7', connectionId: 'c1', localHost: '127.0.0.1', localPort: 8888, remoteHost: 'localhost', remotePort: 8888, http: 'yes', url: 'http://127.0.0.1:8888/' },
      { id: 't8', connectionId: 'c1', localHost: '127.0.0.1', localPort: 6006, remoteHost: 'localhost', remotePort: 6006, http: 'no', url: null },
    ];
    const menu = trayMenuTemplate([], { keepRunningInTray: true, labels: { c1: 'gpu1' }, profiles: [profile('p1', 'lab', 1, 2), profile('p2', 'cloud', undefined, 0)], forwards }, act);
    const open = menu.find((i) => i.id === 'open-saved')!.submenu as MenuItemConstructorOptions[];
    expect(open.map((i) => i.label)).toEqual(['lab :1 + 2 forwards', 'cloud']);
    for (const i of open) i.click?.({} as never, undefined, {} as never);
    const jupyter = menu.find((i) => i.id === 'forward:t7')!;
    expect(jupyter.label).toBe('gpu1 localhost:8888 → 127.0.0.1:8888');
    for (const i of jupyter.submenu as MenuItemConstructorOptions[]) i.click?.({} as never, undefined, {} as never);
    const tb = menu.find((i) => i.id === 'forward:t8')!;
    expect((tb.submenu as MenuItemConstructorOptions[]).map((i) => i.label)).not.toContain('Open in Browser');
    expect(log).toEqual(['saved p1', 'saved p2', 'open http://127.0.0.1:8888/', 'copy 127.0.0.1:8888', 'closeForward t7']);
    // No saved servers: no empty submenu.
    expect(trayMenuTemplate([], { keepRunningInTray: true }, act).some((i) => i.id === 'open-saved')).toBe(false);
  });
});
