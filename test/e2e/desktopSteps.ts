import fs from 'node:fs';
import type { Locator, Page } from '@playwright/test';
import { addProfile, expect, type Env } from './fixtures';
import type { SavedViewerPrefs } from '../../src/shared/models';

/**
 * The steps many viewer specs begin and end with, as a user takes them: a key-file profile added and
 * connected, a TurboVNC desktop started from the Desktops tab; at the end the desktop stopped and the
 * server disconnected.
 */

/**
 * A profile onto a running X server's display (a bed Xvnc), saved through the core, and Connect from
 * the server list: the profile names the display, so the viewer opens on it, connected. Its id.
 */
export async function viewXvnc(page: Page, env: Env, name: string, display: number, viewer: Partial<SavedViewerPrefs> = {}): Promise<string> {
  fs.writeFileSync(`${env.home}/known_hosts`, `${env.bed.knownHostsLine}\n`);
  const saved = await env.app.invoke('profiles.save', {
    profile: {
      name, host: '127.0.0.1', port: env.bed.port, user: env.bed.user, jumpHosts: [], auth: { kind: 'key-file', path: env.bed.userKeyPath },
      display: { number: display }, viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'fit', adaptive: false, ...viewer }, forwards: [],
    },
  });
  await env.app.open(page);
  await page.getByRole('button', { name: `Connect to ${name}` }).click();
  await expect(page.getByTestId('viewer-phase')).toHaveText('connected', { timeout: 30_000 });
  return saved.id;
}

/** How a spec's desktop differs from the default one: the profile's port (a link in front of the bed's sshd), the desktop's transport. */
export interface DesktopStepOptions {
  /** The profile's port instead of the bed's own (e.g. a shaping proxy's); the bed's host key is trusted there too. */
  port?: number;
  /** "tcp" for a desktop other logins can reach (the default is the account's 0600 Unix socket). */
  transport?: 'tcp' | 'unix';
  /** What the spec checks or chooses in the start form, just before Start desktop is pressed. */
  beforeStart?(): Promise<void>;
}

/** A key-file profile added and connected: the server page open on it. */
export async function addAndConnect(page: Page, env: Env, name: string, opts: Pick<DesktopStepOptions, 'port'> = {}): Promise<void> {
  const key = env.bed.knownHostsLine.split(' ').slice(1).join(' ');
  fs.writeFileSync(`${env.home}/known_hosts`, `${env.bed.knownHostsLine}\n${opts.port ? `[127.0.0.1]:${opts.port} ${key}\n` : ''}`);
  await env.app.open(page);
  await addProfile(page, env, name, { port: opts.port });
  await page.getByRole('button', { name: `Connect to ${name}` }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible({ timeout: 60_000 });
}

/** From a connected server page: a desktop started at `size` with the bed's window manager, from the Desktops tab. */
export async function startDesktop(page: Page, env: Env, size: string, opts: Omit<DesktopStepOptions, 'port'> = {}): Promise<{ display: number; row: Locator }> {
  await page.getByRole('tab', { name: 'Desktops' }).click();
  await page.getByLabel('Size').fill(size);
  await page.getByLabel('Window manager').selectOption(env.desktop.windowManager);
  if (opts.transport) await page.getByTestId('session-transport').selectOption(opts.transport);
  await opts.beforeStart?.();
  await page.getByRole('button', { name: 'Start desktop' }).click();
  // A limit that only stops a hang: on a machine busy with other work, starting Xvnc and its desktop over SSH took over a minute.
  await expect(page.getByTestId('started-display')).toBeVisible({ timeout: 180_000 });
  const display = Number(await page.getByTestId('started-display').getAttribute('data-display'));
  return { display, row: page.getByTestId(`session-${display}`).filter({ hasText: 'TurboVNC' }) };
}

/** A key-file profile connected and a TurboVNC desktop started at `size`: its display and its row. */
export async function connectAndStartDesktop(page: Page, env: Env, name: string, size: string, opts: DesktopStepOptions = {}): Promise<{ display: number; row: Locator }> {
  await addAndConnect(page, env, name, opts);
  return startDesktop(page, env, size, opts);
}

/** The desktop's View button, until the viewer says it is connected. */
export async function viewDesktop(page: Page, row: Locator, display: number): Promise<void> {
  await row.getByRole('button', { name: `View display ${display}` }).click();
  await expect(page.getByTestId('viewer-phase')).toHaveText('connected', { timeout: 60_000 });
}

/** A key-file profile connected, a TurboVNC desktop started at `size` and viewed (the viewer connected). */
export async function startAndView(page: Page, env: Env, name: string, size: string, opts: DesktopStepOptions = {}): Promise<{ display: number; row: Locator }> {
  const d = await connectAndStartDesktop(page, env, name, size, opts);
  await viewDesktop(page, d.row, d.display);
  return d;
}

/** From the server page: the desktop stopped (and gone from the list), then the server disconnected. */
export async function stopAndDisconnect(page: Page, row: Locator, display: number): Promise<void> {
  await row.getByRole('button', { name: `Stop display ${display}` }).click();
  await page.getByRole('dialog', { name: `Stop display :${display}?` }).getByRole('button', { name: 'Stop desktop' }).click();
  await expect(page.getByTestId(`session-${display}`)).toHaveCount(0, { timeout: 180_000 });
  await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
}
