import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import { appMenuTemplate, trayMenuTemplate, trayTooltip } from '../../src/main/menus';
import { createMainText, mainCatalogues } from '../../src/main/text';
import type { Profile, TunnelView } from '../../src/shared/models';
import { leaves } from '../i18n/catalogueLeaves';
import { untranslatedWords } from '../i18n/terms';

const placeholders = (s: string) => [...s.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].map((m) => m[1]).sort();
const flat = (items: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] =>
  items.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? flat(i.submenu) : [])]);

const tunnel: TunnelView = {
  id: 't1', connectionId: 'c1', localHost: '127.0.0.1', localPort: 5901, display: 1, remotePort: 5901,
  forwards: [{ kind: 'local', localPort: 8888, remoteHost: '127.0.0.1', remotePort: 8888, url: 'http://127.0.0.1:8888/' }] as TunnelView['forwards'],
  bytesIn: 0, bytesOut: 0, clients: 0,
  commands: { turbovnc: 'vncviewer 127.0.0.1::5901', tigervnc: 'xtigervncviewer 127.0.0.1::5901', realvnc: 'vncviewer 127.0.0.1:5901' },
};
const profile: Profile = {
  id: 'p1', name: 'lab', kind: 'server', host: 'h', port: 22, jumpHosts: [], auth: { kind: 'auto' }, display: { number: 1 },
  viewer: { quality: 6, compression: 2, encodings: [], scaling: 'fit', adaptive: false },
  forwards: [{ kind: 'local', localPort: 8888, remoteHost: 'localhost', remotePort: 8888 }, { kind: 'local', localPort: 6006, remoteHost: 'localhost', remotePort: 6006 }],
  createdAt: '', updatedAt: '',
};
const noop = () => {};
const trayActs = { showWindow: noop, copy: noop, openExternal: noop, closeTunnel: noop, closeAllTunnels: noop, openSaved: noop, closeForward: noop, setKeepRunning: noop, quit: noop };
const appActs = { setKeepRunning: noop, openLogFolder: noop, openDataFolder: noop, importProfiles: noop, exportProfiles: noop, showKeys: noop };

describe('main process catalogue (menus, tray, notifications, dialogs)', () => {
  it('zh-CN has exactly en’s keys, none empty, with the same placeholders, and no English left but terms', () => {
    const e = leaves(mainCatalogues.en);
    const z = leaves(mainCatalogues['zh-CN']);
    expect([...z.keys()].sort()).toEqual([...e.keys()].sort());
    const left: string[] = [];
    for (const [k, v] of e) {
      const zh = z.get(k)!;
      expect(v.trim(), k).not.toBe('');
      expect(zh.trim(), k).not.toBe('');
      expect(placeholders(zh), k).toEqual(placeholders(v));
      // The menu's mnemonic markers (&F) are not words.
      const words = untranslatedWords(zh.replace(/\(&\w\)/g, ''));
      if (words.length) left.push(`${k}: ${words.join(' ')}`);
    }
    expect(left).toEqual([]);
  });

  it('in Chinese every menu and tray label a person sees is Chinese; in English they stay as before', () => {
    const missing: string[] = [];
    const zh = createMainText('zh-CN', (m) => missing.push(m));
    const labels = (text: typeof zh, platform: NodeJS.Platform) => [
      ...flat(appMenuTemplate({ platform, dev: true, keepRunningInTray: true, appName: 'gpu-desk', text }, appActs)),
      ...flat(trayMenuTemplate([tunnel], { keepRunningInTray: true, labels: { c1: 'gpu1' }, profiles: [profile], text }, trayActs)),
    ].map((i) => i.label).filter((l): l is string => typeof l === 'string');
    for (const platform of ['linux', 'darwin'] as const) {
      const all = labels(zh, platform);
      // Every item with a role carries our label: Electron would name it in English.
      for (const i of flat(appMenuTemplate({ platform, dev: true, keepRunningInTray: true, appName: 'gpu-desk', text: zh }, appActs))) {
        if (i.role) expect(i.label, `${platform} ${i.role}`).toMatch(/[\u4e00-\u9fff]/);
      }
      const english = all.flatMap((l) => untranslatedWords(l.replace(/\(&\w\)/g, ''), ['gpu1', 'lab', 'xtigervncviewer']));
      expect(english, platform).toEqual([]);
    }
    expect(labels(zh, 'linux')).toContain('lab :1 + 2 个转发');
    expect(trayTooltip([tunnel], zh)).toBe('gpu-desk — 1 条隧道已打开');
    expect(zh('notify.stillRunningBody', { count: 2 })).toBe('2 条隧道保持打开。可通过托盘图标重新打开窗口或退出。');
    expect(missing).toEqual([]);

    const en = createMainText('en');
    expect(labels(en, 'linux')).toEqual(expect.arrayContaining(['&File', 'Copy Viewer Address (127.0.0.1::5901)', 'lab :1 + 2 forwards', 'Quit gpu-desk', 'Undo']));
    expect(en('notify.stillRunningBody', { count: 1 })).toBe('1 tunnel stays open. Use the tray icon to reopen or quit.');
  });

  it('a key no catalogue has is reported, not shown silently', () => {
    const missing: string[] = [];
    const zh = createMainText('zh-CN', (m) => missing.push(m));
    (zh as (k: string) => string)('menu.noSuchItem');
    expect(missing).toEqual(['key menu.noSuchItem (zh-CN)']);
  });
});
