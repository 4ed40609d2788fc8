import fs from 'node:fs';
import path from 'node:path';
import { startXvnc } from '../bed';
import { expect, test } from './fixtures';
import { viewXvnc } from './desktopSteps';
import { expectAccessible } from './axe';

/**
 * An automated accessibility check (axe-core, WCAG 2.1 A and AA rules: ./axe.ts) on every main screen,
 * in English and both themes (zhCNWalk.spec.ts checks the same screens in Chinese). With
 * GPU_DESK_SCREENSHOTS=1 it also writes the README's screenshots of them (docs/images/<screen>-en-<theme>.png).
 */
for (const theme of ['light', 'dark'] as const) {
  test.describe(`${theme} theme`, () => {
    test.use({ colorScheme: theme });

    test(`every main screen passes axe-core's WCAG 2.1 AA rules (${theme})`, async ({ page, env }) => {
      test.setTimeout(300_000);
      const xvnc = await startXvnc({ geometry: '800x600' });
      try {
        const name = `a11y-${theme}`;
        // The viewer first (the profile names the bed's display, so Connect opens it), with the HUD and the quality panel.
        await viewXvnc(page, env, name, xvnc.display);
        await expect(page.locator('html')).toHaveAttribute('data-theme', theme);
        if (!(await page.getByTestId('toggle-hud').isChecked())) await page.getByTestId('toggle-hud').check();
        // The HUD in words: the levels named, and what the latency waits for until a key is typed.
        await expect(page.getByTestId('hud-quality')).toHaveText(/^quality \d+ · compression \d+$/);
        await expect(page.getByTestId('hud-latency')).toHaveText('waits for a key or click');
        await page.getByTestId('open-codec').click();
        await expect(page.getByTestId('quality-value')).toBeVisible();
        await expectAccessible(page, 'viewer (HUD and quality panel)');
        await env.docShot(page, `viewer-en-${theme}`);
        await page.getByTestId('open-codec').click();
        // Send keys: a titled panel with a close button.
        await page.getByRole('button', { name: 'Send keys', exact: true }).click();
        const keys = page.getByTestId('send-keys');
        await expect(keys.getByRole('heading', { name: 'Send keys' })).toBeVisible();
        await expectAccessible(page, 'viewer (Send keys)');
        await keys.getByRole('button', { name: 'Close Send keys' }).click();
        await expect(keys).toHaveCount(0);

        // The server page, each tab.
        await page.getByRole('button', { name: 'Back to the server' }).click();
        await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible();
        await page.getByRole('tab', { name: /Server report/ }).click();
        await expect(page.getByTestId('probe-report')).toBeVisible({ timeout: 60_000 });
        await expectAccessible(page, 'server report');
        await env.docShot(page, `report-en-${theme}`);
        await page.getByRole('tab', { name: 'GPUs' }).click();
        // The GPU cards, or the line saying this server has none: either is the tab's content.
        await expect(page.getByTestId('gpu-0').or(page.locator('#panel-gpus p')).first()).toBeVisible({ timeout: 30_000 });
        await expectAccessible(page, 'GPUs');
        await page.getByRole('tab', { name: 'Set-up' }).click();
        await expect(page.locator('#panel-setup')).toBeVisible();
        await expectAccessible(page, 'set-up plan');
        await env.docShot(page, `setup-en-${theme}`);
        await page.getByRole('tab', { name: 'Forwards' }).click();
        await expect(page.getByTestId('forwards-panel')).toBeVisible();
        await expectAccessible(page, 'forwards');
        // No saved forwards: the profile editor that adds them is a button away.
        await page.getByTestId('forwards-edit').click();
        await expect(page.getByRole('dialog', { name: `Edit ${name}` })).toBeVisible();
        await page.getByRole('dialog', { name: `Edit ${name}` }).getByRole('button', { name: 'Cancel' }).click();
        await page.getByRole('tab', { name: 'Files' }).click();
        await expect(page.getByTestId('files-path')).not.toBeEmpty({ timeout: 30_000 });
        await expectAccessible(page, 'files');
        await env.docShot(page, `files-en-${theme}`);
        // Upload… takes files from the system's chooser (the file input it opens), into the folder shown.
        const upName = `a11y-upload-${theme}-${process.pid}.txt`;
        await page.getByTestId('files-upload-input').setInputFiles({ name: upName, mimeType: 'text/plain', buffer: Buffer.from('uploaded through the button\n') });
        await expect(page.getByTestId(`file-${upName}`)).toBeVisible({ timeout: 30_000 });
        fs.rmSync(path.join(env.bed.home, upName), { force: true });
        await page.getByRole('tab', { name: 'Desktops' }).click();
        const byNumber = page.locator('#panel-sessions details').filter({ hasText: 'Open a display by number' });
        await expect(byNumber).toBeVisible({ timeout: 30_000 });
        await byNumber.locator('summary').click();
        await byNumber.getByLabel('Display number').fill(String(xvnc.display));
        await expectAccessible(page, 'desktops');
        await env.docShot(page, `desktops-en-${theme}`);

        // Tunnel-only to the bed's display (started outside gpu-desk, so opened by its number).
        await byNumber.getByRole('button', { name: 'Tunnel only' }).click();
        await expect(page.getByTestId('tunnel-address')).toHaveText(/^127\.0\.0\.1:\d+$/, { timeout: 30_000 });
        await expectAccessible(page, 'tunnel-only');
        await page.getByRole('button', { name: 'Close tunnel' }).click();
        await page.getByRole('button', { name: 'Disconnect', exact: true }).click();

        // The server list, the Add server dialog, a server's settings (Edit), the keys screen.
        await env.app.open(page);
        await expect(page.getByTestId(`server-${name}`)).toBeVisible();
        await expectAccessible(page, 'server list');
        await env.docShot(page, `servers-en-${theme}`);
        await page.getByRole('button', { name: 'Add server' }).click();
        await expect(page.getByRole('dialog', { name: 'Add server' })).toBeVisible();
        await expectAccessible(page, 'add server');
        await page.getByRole('dialog', { name: 'Add server' }).getByRole('button', { name: 'Cancel' }).click();
        await page.getByRole('button', { name: `Edit ${name}` }).click();
        await expect(page.getByRole('dialog')).toBeVisible();
        await expectAccessible(page, 'server settings');
        await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
        await page.getByTestId('nav-keys').click();
        await expect(page.locator('.screen h1')).toBeVisible();
        await expectAccessible(page, 'keys');
        await env.docShot(page, `keys-en-${theme}`);
      } finally {
        await xvnc.stop();
      }
    });
  });
}
