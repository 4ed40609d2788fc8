import fs from 'node:fs';
import path from 'node:path';
import { expect, test } from './fixtures';

/**
 * The Add-server form takes a pasted destination apart as Termius and VS Code do, fits its Port field
 * inside the dialog, drops a stale error once the field is edited, and fills the key file from Browse….
 */
test('Add server: a pasted user@host:port and ssh:// URL fill Host, User and Port; Browse… fills the key file', async ({ page, env }) => {
  await env.app.open(page);
  await page.getByRole('button', { name: 'Add server' }).click();
  const dlg = page.getByRole('dialog', { name: 'Add server' });
  await expect(dlg).toBeVisible();

  // Port sits inside the dialog (it used to stick out past its right edge).
  const fits = await dlg.evaluate((d) => {
    const port = d.querySelector('[data-testid="profile-port"]')!.getBoundingClientRect();
    return port.right <= d.getBoundingClientRect().right && port.width > 0;
  });
  expect(fits).toBe(true);

  const host = dlg.getByTestId('profile-host');
  await host.fill(`alice@gpu.example.org:2222`);
  await expect(host).toHaveValue('gpu.example.org');
  await expect(dlg.getByTestId('profile-user')).toHaveValue('alice');
  await expect(dlg.getByTestId('profile-port')).toHaveValue('2222');

  await host.fill(`ssh://${env.bed.user}@127.0.0.1:${env.bed.port}`);
  await expect(host).toHaveValue('127.0.0.1');
  await expect(dlg.getByTestId('profile-user')).toHaveValue(env.bed.user);
  await expect(dlg.getByTestId('profile-port')).toHaveValue(String(env.bed.port));

  // A host with a space is refused on Save; fixing the field clears the error at once.
  await dlg.getByLabel('Name').fill('pasted-destination');
  await host.fill('bad host');
  await dlg.getByRole('button', { name: 'Save' }).click();
  await expect(dlg.getByRole('alert')).toContainText('Host');
  await host.fill('127.0.0.1');
  await expect(dlg.getByRole('alert')).toHaveCount(0);

  // Browse… asks the file dialog (the harness's stand-in here) and puts the chosen path in the field.
  await dlg.getByLabel('Authentication').selectOption('key-file');
  env.dialogs.queue(env.bed.userKeyPath);
  await dlg.getByTestId('browse-key').click();
  await expect(dlg.getByLabel('Key file')).toHaveValue(env.bed.userKeyPath);
  expect(env.dialogs.pending()).toBe(0);
  // Cancelling the dialog leaves the field as it was.
  env.dialogs.queue(null);
  await dlg.getByTestId('browse-key').click();
  await expect.poll(() => env.dialogs.pending()).toBe(0);
  await expect(dlg.getByLabel('Key file')).toHaveValue(env.bed.userKeyPath);

  await dlg.getByRole('button', { name: 'Save' }).click();
  await expect(dlg).toBeHidden();
  const saved = (await env.app.invoke('profiles.list', {})).find((p) => p.name === 'pasted-destination');
  expect(saved).toMatchObject({ host: '127.0.0.1', port: env.bed.port, user: env.bed.user, auth: { kind: 'key-file', path: env.bed.userKeyPath } });
});

/**
 * Test connection logs in with the form's values before anything is saved: the host-key prompt first,
 * as a real connect shows it, then one line saying it logged in (that connection closed again), or the
 * one-line error.
 */
test('Add server: Test connection asks about the host key, logs in without saving, and says so in one line; a wrong port gives the error line', async ({ page, env }) => {
  // No known host yet: the test connection must ask, as a connect does.
  fs.rmSync(path.join(env.home, 'known_hosts'), { force: true });
  await env.app.open(page);
  await page.getByRole('button', { name: 'Add server' }).click();
  const dlg = page.getByRole('dialog', { name: 'Add server' });
  await dlg.getByTestId('profile-host').fill(`${env.bed.user}@127.0.0.1:${env.bed.port}`);
  await dlg.getByLabel('Authentication').selectOption('key-file');
  await dlg.getByLabel('Key file').fill(env.bed.userKeyPath);

  const profilesBefore = await env.app.invoke('profiles.list', {});
  const connectionsBefore = await env.app.invoke('connections.list', {});
  // No name yet: a test needs none.
  await dlg.getByTestId('test-connection').click();
  const prompt = page.getByTestId('host-key-prompt');
  await expect(prompt.getByTestId('fingerprint')).toHaveText(env.bed.hostKeyFingerprint);
  await prompt.getByRole('button', { name: 'Accept once' }).click();
  const line = dlg.getByTestId('test-connection-result');
  await expect(line).toHaveAttribute('data-ok', 'true', { timeout: 60_000 });
  await expect(line).toHaveText(`Logged in as ${env.bed.user}@127.0.0.1:${env.bed.port}; the test connection is closed again.`);
  // Nothing saved, no connection left open.
  expect(await env.app.invoke('profiles.list', {})).toEqual(profilesBefore);
  expect(await env.app.invoke('connections.list', {})).toEqual(connectionsBefore);

  // A port nothing listens on: the error in one line, no prompt.
  await dlg.getByTestId('profile-port').fill('1');
  await dlg.getByTestId('test-connection').click();
  await expect(line).toHaveAttribute('data-ok', 'false', { timeout: 60_000 });
  await expect(line).toHaveText(/^Could not log in: [^\n]+$/);
  await expect(prompt).toHaveCount(0);
});
