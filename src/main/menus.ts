import type { MenuItemConstructorOptions } from 'electron';
import type { ForwardView, Profile, TunnelView } from '../shared/models';
import { englishText, type MainText } from './text';
import type en from './text/en';

/** Menu templates as data (tested without Electron); index.ts turns them into Menus. */

export interface AppMenuActions {
  setKeepRunning(on: boolean): void;
  openLogFolder(): void;
  openDataFolder(): void;
  /** Carried out by the window (the same flow as its buttons), so results show where the person looks. */
  importProfiles(): void;
  exportProfiles(): void;
  showKeys(): void;
}

type Role = keyof typeof en.role;

export function appMenuTemplate(
  o: { platform: NodeJS.Platform; dev: boolean; keepRunningInTray: boolean; appName: string; text?: MainText },
  act: AppMenuActions,
): MenuItemConstructorOptions[] {
  const t = o.text ?? englishText;
  const mac = o.platform === 'darwin';
  // Labelled here: Electron names roles in English whatever the app's language.
  const role = (r: Role, extra: MenuItemConstructorOptions = {}): MenuItemConstructorOptions => ({ role: r, label: t(`role.${r}`), ...extra });
  const sep = { type: 'separator' } as const;
  const keepRunning: MenuItemConstructorOptions = {
    id: 'keep-running',
    label: t('menu.keepRunning'),
    type: 'checkbox',
    checked: o.keepRunningInTray,
    click: (item) => act.setKeepRunning(item.checked),
  };
  return [
    ...(mac
      ? [{
          label: o.appName,
          submenu: [
            role('about'), sep, keepRunning, sep, role('services'),
            sep, role('hide'), role('hideOthers'), role('unhide'), sep, role('quit'),
          ],
        } satisfies MenuItemConstructorOptions]
      : []),
    {
      label: t('menu.file'),
      submenu: [
        { id: 'import-profiles', label: t('menu.importServers'), click: () => act.importProfiles() },
        { id: 'export-profiles', label: t('menu.exportServers'), click: () => act.exportProfiles() },
        { id: 'show-keys', label: t('menu.sshKeys'), accelerator: 'CmdOrCtrl+K', click: () => act.showKeys() },
        sep,
        ...(mac ? [] : [keepRunning, sep]),
        { label: t('menu.openLogFolder'), click: () => act.openLogFolder() },
        { label: t('menu.openDataFolder'), click: () => act.openDataFolder() },
        sep,
        mac ? role('close') : role('quit', { accelerator: 'CmdOrCtrl+Q' }),
      ],
    },
    {
      label: t('menu.edit'),
      submenu: [
        role('undo'), role('redo'), sep,
        role('cut'), role('copy'), role('paste'),
        ...(mac ? [role('pasteAndMatchStyle')] : []),
        role('delete'), sep, role('selectAll'),
      ],
    },
    {
      label: t('menu.view'),
      submenu: [
        // Reload would drop every viewer's state; it is a development tool here.
        ...(o.dev ? [role('reload'), role('forceReload'), role('toggleDevTools'), sep] : []),
        role('resetZoom'), role('zoomIn'), role('zoomOut'), sep,
        role('togglefullscreen'),
      ],
    },
    {
      label: t('menu.window'),
      submenu: mac
        ? [role('minimize'), role('zoom'), sep, role('front'), sep, role('window')]
        : [role('minimize'), role('close', { accelerator: 'CmdOrCtrl+W' })],
    },
    { role: 'help', label: t('menu.help'), submenu: [...(mac ? [] : [role('about'), sep]), { label: t('menu.openLogFolder'), click: () => act.openLogFolder() }] },
  ];
}

export interface TrayActions {
  showWindow(): void;
  copy(text: string): void;
  openExternal(url: string): void;
  closeTunnel(id: string): void;
  closeAllTunnels(): void;
  /** Tunnel-only mode for a saved server: connect, open its display and its saved forwards. */
  openSaved(profileId: string): void;
  closeForward(id: string): void;
  setKeepRunning(on: boolean): void;
  quit(): void;
}

/** "host :1 → 127.0.0.1:5901"; native viewers take the double-colon port form. */
export function tunnelLabel(t: TunnelView, connectionLabel?: string): string {
  return `${connectionLabel ?? t.connectionId} :${t.display} → ${t.localHost}:${t.localPort}`;
}

export function trayTooltip(tunnels: TunnelView[], text: MainText = englishText): string {
  const n = tunnels.length;
  return n === 0 ? text('tray.idle') : text('tray.open', { count: n });
}

export function trayMenuTemplate(
  tunnels: TunnelView[],
  o: { keepRunningInTray: boolean; labels?: Record<string, string>; profiles?: Profile[]; forwards?: ForwardView[]; text?: MainText },
  act: TrayActions,
): MenuItemConstructorOptions[] {
  const t = o.text ?? englishText;
  const items: MenuItemConstructorOptions[] = [{ label: trayTooltip(tunnels, t), enabled: false }, { type: 'separator' }];
  if (tunnels.length === 0) items.push({ label: t('tray.noTunnels'), enabled: false });
  for (const tunnel of tunnels) {
    const address = `${tunnel.localHost}::${tunnel.localPort}`;
    items.push({
      id: `tunnel:${tunnel.id}`,
      label: tunnelLabel(tunnel, o.labels?.[tunnel.connectionId]),
      submenu: [
        { label: t('tray.copyViewerAddress', { address }), click: () => act.copy(address) },
        { label: t('tray.copyTigerCommand'), click: () => act.copy(tunnel.commands.tigervnc) },
        // Forwards the core recognised as web services carry a URL (Jupyter, TensorBoard…).
        ...tunnel.forwards.filter((f) => typeof f.url === 'string' && /^https?:/.test(f.url)).map((f) => ({ label: t('tray.openUrl', { url: f.url as string }), click: () => act.openExternal(f.url as string) })),
        { type: 'separator' },
        { label: t('tray.closeTunnel'), click: () => act.closeTunnel(tunnel.id) },
      ],
    });
  }
  const forwards = o.forwards ?? [];
  if (forwards.length) items.push({ type: 'separator' });
  for (const f of forwards) {
    const address = `${f.localHost}:${f.localPort}`;
    items.push({
      id: `forward:${f.id}`,
      label: `${o.labels?.[f.connectionId] ?? f.connectionId} ${f.remoteHost}:${f.remotePort} → ${address}`,
      submenu: [
        // Only http://127.0.0.1 URLs core made after the service answered HTTP through the forward.
        ...(f.url && /^http:\/\/127\.0\.0\.1:\d+\/$/.test(f.url) ? [{ label: t('tray.openInBrowser'), click: () => act.openExternal(f.url as string) }] : []),
        { label: t('tray.copyAddress', { address }), click: () => act.copy(address) },
        { type: 'separator' as const },
        { label: t('tray.closeForward'), click: () => act.closeForward(f.id) },
      ],
    });
  }
  const saved = o.profiles ?? [];
  if (saved.length) {
    items.push({ type: 'separator' }, {
      id: 'open-saved',
      label: t('tray.openTunnelTo'),
      submenu: saved.map((p) => {
        const server = `${p.name}${p.display.number !== undefined ? ` :${p.display.number}` : ''}`;
        return {
          id: `open-saved:${p.id}`,
          label: p.forwards.length ? t('tray.savedWithForwards', { server, count: p.forwards.length }) : server,
          click: () => act.openSaved(p.id),
        };
      }),
    });
  }
  items.push(
    { type: 'separator' },
    { label: t('tray.show'), click: () => act.showWindow() },
    { label: t('menu.keepRunning'), type: 'checkbox', checked: o.keepRunningInTray, click: (item) => act.setKeepRunning(item.checked) },
    { type: 'separator' },
    { label: t('tray.closeAll'), enabled: tunnels.length > 0, click: () => act.closeAllTunnels() },
    { label: t('tray.quit'), click: () => act.quit() },
  );
  return items;
}
