/**
 * The set-up wizard on a fresh Debian 12 server (test/bed/freshServer.ts: nothing installed, a normal
 * account with sudo, VirtualGL and TurboVNC from the bed's package mirror), as a user meets it: add the
 * server, connect, open Set-up from the server page, review the plan, give the sudo password in its
 * dialog, watch every step run to the result; then start a desktop on the TurboVNC just installed and
 * see it drawn in the viewer exactly as the server's own X screen shows it, with a 3D program that
 * VirtualGL renders in it. The result page is saved into test-results for the README's screenshot.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { differingPixels, isRoot, serverScreen, startFreshServer, startPackageMirror, type FreshServer } from '../bed';
import { expect, SCREENS, test } from './fixtures';
import { canvasRgb, canvasSize, chooseLossless } from './viewerPixels';

/** The wizard's result page as the README shows it (copied from here to docs/images/setup-result.png). */
const RESULT_SHOT = path.join(SCREENS, 'setup-result-fresh.png');
const STEPS = ['gl-libraries', 'window-manager', 'virtualgl', 'vnc-server', 'vnc-localhost', 'ffmpeg', 'vulkan', 'xclip'];

async function addFreshProfile(page: Page, server: FreshServer): Promise<void> {
  await page.getByRole('button', { name: 'Add server' }).click();
  const dlg = page.getByRole('dialog', { name: 'Add server' });
  await dlg.getByLabel('Name', { exact: true }).fill('fresh');
  await dlg.getByLabel('Host', { exact: true }).fill(server.host);
  await dlg.getByLabel('Port', { exact: true }).fill(String(server.port));
  await dlg.getByLabel('User', { exact: true }).fill(server.user);
  await dlg.getByLabel('Authentication', { exact: true }).selectOption('key-file');
  await dlg.getByLabel('Key file', { exact: true }).fill(server.userKeyPath);
  await dlg.getByLabel('Display', { exact: true }).fill('');
  await dlg.getByLabel('Geometry', { exact: true }).fill('1024x768');
  await dlg.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId('server-fresh')).toBeVisible();
}

test('set-up wizard on a fresh server: plan, sudo password, every step applied; then a desktop with a VirtualGL program, drawn in the viewer as the server shows it', async ({ page, env }) => {
  test.skip(!isRoot, 'a chroot server needs root');
  // Installs from Debian's archive on two cores shared with other work: many minutes, not seconds.
  test.setTimeout(30 * 60_000);
  const [server, mirror] = await Promise.all([startFreshServer(), startPackageMirror()]);
  const home = path.join(server.root, server.home.slice(1));

  await env.app.open(page);
  await addFreshProfile(page, server);
  await page.getByRole('button', { name: 'Connect to fresh' }).click();
  const prompt = page.getByTestId('host-key-prompt');
  await expect(prompt.getByTestId('fingerprint')).toHaveText(server.hostKeyFingerprint, { timeout: 60_000 });
  await prompt.getByRole('button', { name: 'Accept and save' }).click();
  await expect(page.getByRole('heading', { name: 'fresh', level: 1 })).toBeVisible({ timeout: 60_000 });

  // Plan review: openbox as the desktop, packages from the bed's mirror, checked against its SHA256SUMS.
  await page.locator('#tab-setup').click();
  const wizard = page.getByTestId('setup-wizard');
  await wizard.getByTestId('setup-options').locator('summary').click();
  await wizard.getByTestId('setup-desktop').selectOption('openbox');
  await wizard.getByTestId('setup-mirror').fill(mirror.url);
  await wizard.getByTestId('setup-make-plan').click();
  await expect(wizard.locator('ol.plan > li')).toHaveCount(STEPS.length, { timeout: 120_000 });
  await expect(wizard.getByText(`${mirror.url}/SHA256SUMS`).first()).toBeAttached();
  await expect(wizard.getByTestId('setup-continue')).toBeDisabled();
  await wizard.getByTestId('setup-consent').check();
  await wizard.getByTestId('setup-continue').click();

  // The sudo password dialog: the password goes to sudo on the server for this run, nowhere else.
  await wizard.getByTestId('setup-sudo-password').fill(server.password);
  await wizard.getByTestId('setup-apply').click();
  await expect(wizard.getByTestId('step-gl-libraries')).toHaveClass(/st-(checking|running|done)/, { timeout: 120_000 });
  const result = wizard.getByTestId('setup-result');
  await expect(result).toBeVisible({ timeout: 25 * 60_000 });
  await expect(result).toHaveAttribute('data-ok', 'true');
  for (const id of STEPS) await expect(wizard.getByTestId(`step-${id}`)).toHaveClass(/\bst-done\b/);
  // What the wizard says was done is on the server: dpkg consistent, TurboVNC and VirtualGL installed.
  expect(server.rootSh('dpkg --audit').out.trim()).toBe('');
  expect(server.rootSh("dpkg-query -W -f='${Package} ${Version}\\n' turbovnc virtualgl").out.trim()).toMatch(/^turbovnc 3\.3-\S+\nvirtualgl 3\.1\.4-\S+$/);
  expect(await page.content()).not.toContain(server.password);
  // The result page with every step's output folded to its last lines, as a user scrolls to it.
  await result.scrollIntoViewIfNeeded();
  await page.screenshot({ path: RESULT_SHOT });
  await env.shot(page, 'setup-fresh-result');

  // A desktop on the TurboVNC just installed, in the viewer.
  await page.locator('#tab-sessions').click();
  await page.getByLabel('Size').fill('1024x768');
  await page.getByRole('button', { name: 'Start desktop' }).click();
  await expect(page.getByTestId('started-display')).toBeVisible({ timeout: 120_000 });
  const display = Number(await page.getByTestId('started-display').getAttribute('data-display'));
  await expect(page.getByTestId(`session-${display}`)).toContainText('TurboVNC');
  await page.getByTestId(`session-${display}`).getByRole('button', { name: `View display ${display}` }).click();
  await expect(page.getByTestId('viewer-phase')).toHaveText('connected', { timeout: 60_000 });
  await expect.poll(() => canvasSize(page), { timeout: 60_000 }).toEqual({ w: 1024, h: 768 });
  await chooseLossless(page);
  const full = { x: 0, y: 0, w: 1024, h: 768 };
  const unlikeServer = async () => {
    const shown = await canvasRgb(page, full);
    return shown ? differingPixels(shown, await serverScreen(home, display, full)) : -1;
  };

  // A 3D program started from the desktop (its window manager's environment: vglrun's interposers on
  // egl0), in glxspheres' interactive mode so that it draws one still frame.
  await expect.poll(() => server.desktopEnv(display) !== null, { timeout: 60_000, message: 'openbox running on the desktop' }).toBe(true);
  const before = await serverScreen(home, display, full);
  const log = `/tmp/gd-spheres-${display}.log`;
  const pid = Number(server.runAs(server.desktopEnv(display)!, `/opt/VirtualGL/bin/glxspheres64 -i -w 500x400 > ${log} 2>&1 & echo $!`).out.trim());
  await expect.poll(() => fs.readFileSync(path.join(server.root, log), 'utf8'), { timeout: 120_000 }).toMatch(/OpenGL Renderer: llvmpipe/);
  expect(fs.readFileSync(`/proc/${pid}/maps`, 'utf8')).toContain('libvglfaker');
  await expect.poll(async () => differingPixels(await serverScreen(home, display, full), before), { timeout: 60_000, message: 'the spheres on the server\'s screen' }).toBeGreaterThan(0);
  await expect.poll(unlikeServer, { timeout: 60_000, message: 'pixels the viewer draws unlike the server\'s own screenshot' }).toBe(0);
  await env.shot(page, 'setup-fresh-desktop');
});
