export { DEFAULT_SETTINGS, loadSettings, saveSettings } from '../core/app/settingsFile';

export type CloseAction = 'hide' | 'close';

/**
 * What closing the main window does. macOS apps keep running without windows anyway; elsewhere
 * the app stays in the tray only when something is running there (open tunnels) and the user
 * wants it, so an idle app closes like any other.
 */
export function closeAction(o: { quitting: boolean; keepRunningInTray: boolean; activeTunnels: number; trayAvailable: boolean }): CloseAction {
  if (o.quitting) return 'close';
  return o.keepRunningInTray && o.trayAvailable && o.activeTunnels > 0 ? 'hide' : 'close';
}
