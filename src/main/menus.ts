import type { MenuItemConstructorOptions } from 'electron';
import type { ForwardView, Profile, TunnelView } from '../shared/models';

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

export function appMenuTemplate(
  o: { platform: NodeJS.Platform; dev: boolean; keepRunningInTray: boolean; appName: string },
  act: AppMenuActions,
): MenuItemConstructorOptions[] {
  const mac = o.platform === 'darwin';
  const keepRunning: MenuItemConstructorOptions = {
    id: 'keep-running',
    label: 'Keep Running in Tray While Tunnels Are Open',
    type: 'checkbox',
    checked: o.keepRunningInTray,
    click: (item) => act.setKeepRunning(item.checked),
  };
  return [
    ...(mac
      ? [{
          label: o.appName,
          submenu: [
            { role: 'about' }, { type: 'separator' }, keepRunning, { type: 'separator' }, { role: 'services' },
            { type: 'separator' }, { role: 'hide' }, { role: 'hideOthers' }, { role: 'unhide' }, { type: 'separator' }, { role: 'quit' },
          ],
        } satisfies MenuItemConstructorOptions]
      : []),
    {
      label: '&File',
      submenu: [
        { id: 'import-profiles', label: 'Import Servers…', click: () => act.importProfiles() },
        { id: 'export-profiles', label: 'Export Servers…', click: () => act.exportProfiles() },
        { id: 'show-keys', label: 'SSH Keys', accelerator: 'CmdOrCtrl+K', click: () => act.showKeys() },
        { type: 'separator' },
        ...(mac ? [] : [keepRunning, { type: 'separator' } as const]),
        { label: 'Open Log Folder', click: () => act.openLogFolder() },
        { label: 'Open Data Folder', click: () => act.openDataFolder() },
        { type: 'separator' },
        mac ? { role: 'close' } : { role: 'quit', accelerator: 'CmdOrCtrl+Q' },
      ],
    },
    {
      label: '&Edit',
      submenu: [
        { role: 'undo' }, { role: 'redo' }, { type: 'separator' },
        { role: 'cut' }, { role: 'copy' }, { role: 'paste' },
        ...(mac ? [{ role: 'pasteAndMatchStyle' } as const] : []),
        { role: 'delete' }, { type: 'separator' }, { role: 'selectAll' },
      ],
    },
    {
      label: '&View',
      submenu: [
        // Reload would drop every viewer's state; it is a development tool here.
        ...(o.dev ? [{ role: 'reload' } as const, { role: 'forceReload' } as const, { role: 'toggleDevTools' } as const, { type: 'separator' } as const] : []),
        { role: 'resetZoom' }, { role: 'zoomIn' }, { role: 'zoomOut' }, { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    {
      label: '&Window',
      submenu: mac
        ? [{ role: 'minimize' }, { role: 'zoom' }, { type: 'separator' }, { role: 'front' }, { type: 'separator' }, { role: 'window' }]
        : [{ role: 'minimize' }, { role: 'close', accelerator: 'CmdOrCtrl+W' }],
    },
    { role: 'help', label: '&Help', submenu: [...(mac ? [] : [{ role: 'about' } as const, { type: 'separator' } as const]), { label: 'Open Log Folder', click: () => act.openLogFolder() }] },
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

export function trayTooltip(tunnels: TunnelView[]): string {
  const n = tunnels.length;
  return n === 0 ? 'gpu-desk' : `gpu-desk — ${n} tunnel${n === 1 ? '' : 's'} open`;
}

export function trayMenuTemplate(
  tunnels: TunnelView[],
  o: { keepRunningInTray: boolean; labels?: Record<string, string>; profiles?: Profile[]; forwards?: ForwardView[] },
  act: TrayActions,
): MenuItemConstructorOptions[] {
  const items: MenuItemConstructorOptions[] = [{ label: trayTooltip(tunnels), enabled: false }, { type: 'separator' }];
  if (tunnels.length === 0) items.push({ label: 'No open tunnels', enabled: false });
  for (const t of tunnels) {
    const address = `${t.localHost}::${t.localPort}`;
    items.push({
      id: `tunnel:${t.id}`,
      label: tunnelLabel(t, o.labels?.[t.connectionId]),
      submenu: [
        { label: `Copy Viewer Address (${address})`, click: () => act.copy(address) },
        { label: 'Copy TigerVNC Command', click: () => act.copy(t.commands.tigervnc) },
        // Forwards the core recognised as web services carry a URL (Jupyter, TensorBoard…).
        ...t.forwards.filter((f) => typeof f.url === 'string' && /^https?:/.test(f.url)).map((f) => ({ label: `Open ${f.url}`, click: () => act.openExternal(f.url as string) })),
        { type: 'separator' },
        { label: 'Close Tunnel', click: () => act.closeTunnel(t.id) },
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
        ...(f.url && /^http:\/\/127\.0\.0\.1:\d+\/$/.test(f.url) ? [{ label: 'Open in Browser', click: () => act.openExternal(f.url as string) }] : []),
        { label: `Copy Address (${address})`, click: () => act.copy(address) },
        { type: 'separator' as const },
        { label: 'Close Forward', click: () => act.closeForward(f.id) },
      ],
    });
  }
  const saved = o.profiles ?? [];
  if (saved.length) {
    items.push({ type: 'separator' }, {
      id: 'open-saved',
      label: 'Open Tunnel to',
      submenu: saved.map((p) => ({
        id: `open-saved:${p.id}`,
        label: `${p.name}${p.display.number !== undefined ? ` :${p.display.number}` : ''}${p.forwards.length ? ` + ${p.forwards.length} forward${p.forwards.length === 1 ? '' : 's'}` : ''}`,
        click: () => act.openSaved(p.id),
      })),
    });
  }
  items.push(
    { type: 'separator' },
    { label: 'Show gpu-desk', click: () => act.showWindow() },
    { label: 'Keep Running in Tray While Tunnels Are Open', type: 'checkbox', checked: o.keepRunningInTray, click: (item) => act.setKeepRunning(item.checked) },
    { type: 'separator' },
    { label: 'Close All Tunnels', enabled: tunnels.length > 0, click: () => act.closeAllTunnels() },
    { label: 'Quit gpu-desk', click: () => act.quit() },
  );
  return items;
}
