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

/** A key-file profile connected and a TurboVNC desktop started at `size`: its display and its row. */
export async function connectAndStartDesktop(page: Page, env: Env, name: string, size: string): Promise<{ display: number; row: Locator }> {
  fs.writeFileSync(`${env.home}/known_hosts`, `${env.bed.knownHostsLine}\n`);
  await env.app.open(page);
  await addProfile(page, env, name);
  await page.getByRole('button', { name: `Connect to ${name}` }).click();
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible({ timeout: 30_000 });
  await page.getByRole('tab', { name: 'Desktops' }).click();
  await page.getByLabel('Size').fill(size);
  await page.getByLabel('Window manager').selectOption(env.desktop.windowManager);
  await page.getByRole('button', { name: 'Start desktop' }).click();
  await expect(page.getByTestId('started-display')).toBeVisible({ timeout: 60_000 });
  const display = Number(await page.getByTestId('started-display').getAttribute('data-display'));
  return { display, row: page.getByTestId(`session-${display}`).filter({ hasText: 'TurboVNC' }) };
}

/** The desktop's View button, until the viewer says it is connected. */
export async function viewDesktop(page: Page, row: Locator, display: number): Promise<void> {
  await row.getByRole('button', { name: `View display ${display}` }).click();
  await expect(page.getByTestId('viewer-phase')).toHaveText('connected', { timeout: 30_000 });
}

/** A key-file profile connected, a TurboVNC desktop started at `size` and viewed (the viewer connected). */
export async function startAndView(page: Page, env: Env, name: string, size: string): Promise<{ display: number; row: Locator }> {
  const d = await connectAndStartDesktop(page, env, name, size);
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
