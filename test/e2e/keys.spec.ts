import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { registerCleanup } from '../bed';
import { createKeytarStore } from '../../src/core/keychain/keytarStore';
import { scanForSecrets } from '../helpers/profiles/secretScan';
import { addProfile, expect, test, type Env } from './fixtures';

/**
 * Issue 18's keys, saved secrets and servers export/import, in Chromium against the bed's real
 * sshd (PAM password of the bed account) and the real Secret Service (gnome-keyring via keytar).
 */

const keychain = () => createKeytarStore({ service: process.env.GPU_DESK_KEYCHAIN_SERVICE });

/** The kinds of every `prompt` event the window receives over the harness's IPC socket. */
function watchPrompts(page: Page): string[] {
  const kinds: string[] = [];
  page.on('websocket', (ws) => {
    if (!ws.url().includes('/ipc')) return;
    ws.on('framereceived', (f) => {
      if (typeof f.payload !== 'string' || !f.payload.startsWith('{"event":"prompt",')) return;
      kinds.push((JSON.parse(f.payload) as { payload: { kind: string } }).payload.kind);
    });
  });
  return kinds;
}

/** The bed's host key saved as a person's "Accept and save" would (app.spec covers that dialog). */
function trustBedHostKey(env: Env): void {
  const file = path.join(env.home, 'known_hosts');
  const have = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (!have.includes(env.bed.knownHostsLine)) fs.appendFileSync(file, env.bed.knownHostsLine + '\n');
}

/** What `ssh-keygen -l` prints for a public key line: "256 SHA256:… comment (ED25519)". */
function sshKeygenFingerprint(publicKeyLine: string): string {
  return execFileSync('ssh-keygen', ['-l', '-f', '-'], { input: publicKeyLine + '\n', encoding: 'utf8' }).split(' ')[1];
}

async function answerPassword(page: Page, password: string): Promise<void> {
  const prompt = page.getByTestId('secret-prompt');
  await expect(prompt).toBeVisible({ timeout: 60_000 });
  await prompt.getByLabel('Password').fill(password);
  await prompt.getByRole('button', { name: 'Continue' }).click();
  await expect(prompt).toBeHidden();
}

async function profileId(env: Env, name: string): Promise<string> {
  return (await env.app.invoke('profiles.list', {})).find((p) => p.name === name)!.id;
}

async function connected(page: Page, name: string): Promise<void> {
  await expect(page.getByRole('heading', { name, level: 1 })).toBeVisible({ timeout: 60_000 });
}

async function disconnectFromServerPage(page: Page, name: string): Promise<void> {
  await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
  await expect(page.getByRole('button', { name: `Connect to ${name}` })).toBeVisible({ timeout: 30_000 });
}

function authorizedKeys(env: Env): string {
  try {
    return fs.readFileSync(path.join(env.bed.home, '.ssh', 'authorized_keys'), 'utf8');
  } catch {
    return '';
  }
}

test.describe.configure({ mode: 'serial' });

test('Keys screen: generate ed25519, import an encrypted key file (passphrase asked once), fingerprints as ssh-keygen prints them', async ({ page, env }) => {
  const prompts = watchPrompts(page);
  await env.app.open(page);
  await page.getByTestId('nav-keys').click();
  await expect(page.getByTestId('keys-screen')).toBeVisible();

  await page.getByTestId('key-name').fill('laptop-e2e');
  await page.getByTestId('key-generate').click();
  const row = page.getByTestId('key-laptop-e2e');
  await expect(row).toBeVisible();
  await expect(row).toContainText('ssh-ed25519');
  const pub = (await row.getByTestId('key-public').textContent())!;
  expect(pub).toMatch(/^ssh-ed25519 AAAA/);
  await expect(row.getByTestId('key-fingerprint')).toHaveText(sshKeygenFingerprint(pub));
  // The private half is in the keychain, and only there.
  expect(await keychain().get('key:laptop-e2e')).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----/);

  // Import: the file comes from the (stand-in) native dialog; its passphrase is asked once.
  await page.getByTestId('key-name').fill('bed-imported');
  env.dialogs.queue(env.bed.encryptedKeyPath);
  await page.getByTestId('key-import').click();
  const ask = page.getByTestId('secret-prompt');
  await expect(ask).toBeVisible();
  await ask.locator('input[type=password]').fill(env.bed.userKeyPassphrase);
  await ask.getByRole('button', { name: 'Continue' }).click();
  const imported = page.getByTestId('key-bed-imported');
  await expect(imported).toBeVisible();
  await expect(imported.getByTestId('key-fingerprint')).toHaveText(sshKeygenFingerprint(fs.readFileSync(env.bed.userKeyPath + '.pub', 'utf8').trim()));
  expect(prompts.filter((k) => k === 'passphrase')).toHaveLength(1);
  expect(env.dialogs.pending()).toBe(0);

  // An OpenSSH certificate for that key, as a site's CA issues one: its principals and expiry shown
  // (the expiry as ssh-keygen -L reads the file), then detached again.
  // (The CA's private key stays out of the app's home, which a later test scans for secrets.)
  const caDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-e2e-ca-'));
  registerCleanup(() => fs.rmSync(caDir, { recursive: true, force: true }));
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(caDir, 'ca')]);
  fs.copyFileSync(env.bed.userKeyPath + '.pub', path.join(caDir, 'id.pub'));
  execFileSync('ssh-keygen', ['-q', '-s', path.join(caDir, 'ca'), '-I', 'e2e', '-n', `${env.bed.user},alice`, '-V', '-5m:+1d', path.join(caDir, 'id.pub')]);
  const certFile = path.join(caDir, 'id-cert.pub');
  const until = /Valid: from \S+ to (\S+)/.exec(execFileSync('ssh-keygen', ['-L', '-f', certFile]).toString())![1];
  env.dialogs.queue(certFile);
  await imported.getByTestId('key-certificate').click();
  await expect(page.getByTestId('keys-notice')).toContainText(`now offers the certificate ${certFile} first`);
  await expect(imported.getByTestId('key-cert')).toContainText(`Certificate: for ${env.bed.user}, alice, valid until`);
  await expect(imported.getByTestId('key-cert')).toHaveAttribute('data-cert-valid-before', new Date(until).toISOString());
  // A certificate for another key is refused, naming why; the attached one stays.
  env.dialogs.queue(certFile);
  await row.getByTestId('key-certificate').click();
  await expect(page.getByTestId('keys-error')).toContainText('certifies another key than "laptop-e2e"');
  await expect(row.getByTestId('key-cert')).toHaveCount(0);
  await imported.getByTestId('key-certificate-detach').click();
  await expect(imported.getByTestId('key-cert')).toHaveCount(0);

  // A file that is not a key: one line naming the cause, and nothing stored.
  await page.getByTestId('key-name').fill('not-a-key');
  const junk = path.join(env.home, 'junk.txt');
  fs.writeFileSync(junk, 'hello\n');
  env.dialogs.queue(junk);
  await page.getByTestId('key-import').click();
  await expect(page.getByTestId('keys-error')).toContainText('is not a usable private key');
  await expect(page.getByTestId('key-not-a-key')).toHaveCount(0);

  await env.shot(page, 'keys-import-error');
});

test('install a key on a password server: the password asked once, key-only login proven, the next connect asks nothing; removed from the server again', async ({ page, env }) => {
  test.setTimeout(300_000);
  expect(env.bed.password, 'the bed runs as root, so its account has a real password').not.toBeNull();
  trustBedHostKey(env);
  const prompts = watchPrompts(page);
  await env.app.open(page);

  // Right after adding a server that signs in with a password, a key is offered.
  await addProfile(page, env, 'pw-bed', { auth: { kind: 'password', remember: false } });
  const dlg = page.getByTestId('install-key');
  await expect(dlg).toBeVisible();
  await expect(dlg.getByTestId('install-key-name')).toHaveValue('pw-bed-key');
  await dlg.getByTestId('install-key-go').click();
  await answerPassword(page, env.bed.password!);
  const result = dlg.getByTestId('install-result');
  await expect(result).toBeVisible({ timeout: 60_000 });
  await expect(result).toHaveAttribute('data-key-login', 'ok');
  await expect(result).toHaveAttribute('data-switched', 'true');
  await expect(result).toHaveAttribute('data-added', 'true');
  const pub = (await env.app.invoke('keys.list', {})).find((k) => k.name === 'pw-bed-key')!.publicKey;
  const blob = pub.split(' ')[1];
  registerCleanup(() => {
    const f = path.join(env.bed.home, '.ssh', 'authorized_keys');
    const text = authorizedKeys(env);
    if (text.includes(blob)) fs.writeFileSync(f, text.split('\n').filter((l) => !l.includes(blob)).join('\n'));
  });
  expect(authorizedKeys(env).split('\n').filter((l) => l.includes(blob))).toHaveLength(1);
  // Offered, not forced: the commands appear only on request.
  await expect(dlg.getByTestId('password-off-commands')).toHaveCount(0);
  await dlg.getByTestId('show-password-off').click();
  await expect(dlg.getByTestId('password-off-commands')).toContainText('PasswordAuthentication no');
  await env.shot(page, 'key-installed');
  await dlg.getByTestId('install-key-close').click();
  expect(prompts.filter((k) => k === 'password' || k === 'keyboardInteractive')).toHaveLength(1);
  expect((await env.app.invoke('profiles.list', {})).find((p) => p.name === 'pw-bed')!.auth).toEqual({ kind: 'keychain-key', key: 'pw-bed-key' });

  // Installing again is idempotent: nothing appended, the login still proven.
  await page.getByRole('button', { name: 'Open pw-bed' }).click();
  await connected(page, 'pw-bed');
  await page.getByTestId('install-key-open').click();
  const again = page.getByTestId('install-key');
  await again.getByTestId('install-key-choice').selectOption('pw-bed-key');
  await again.getByTestId('install-key-go').click();
  await expect(again.getByTestId('install-result')).toHaveAttribute('data-added', 'false', { timeout: 60_000 });
  await expect(again.getByTestId('install-result')).toHaveAttribute('data-key-login', 'ok');
  await again.getByTestId('install-key-close').click();
  expect(authorizedKeys(env).split('\n').filter((l) => l.includes(blob))).toHaveLength(1);

  // The next connect asks nothing: the key from the keychain signs in.
  await disconnectFromServerPage(page, 'pw-bed');
  const before = prompts.length;
  await page.getByRole('button', { name: 'Connect to pw-bed' }).click();
  await connected(page, 'pw-bed');
  expect(prompts.slice(before)).toEqual([]);

  // The Keys screen knows where the key went; removing it there can take it off the server too.
  await page.getByTestId('nav-keys').click();
  const row = page.getByTestId('key-pw-bed-key');
  await expect(row.getByTestId('key-installed')).toHaveText(`${env.bed.user}@127.0.0.1:${env.bed.port}`);
  // The closing note's picture of the Keys screen: keys generated, imported and installed.
  await env.docShot(page, 'keys');
  await env.shot(page, 'keys');
  await row.getByTestId('key-remove').click();
  const rm = page.getByTestId('remove-key');
  await expect(rm).toContainText('pw-bed');
  await rm.getByTestId('remove-key-from').selectOption({ label: 'pw-bed' });
  await rm.getByTestId('remove-key-go').click();
  await expect(page.getByTestId('keys-notice')).toContainText(`from ${env.bed.user}@127.0.0.1:${env.bed.port}`, { timeout: 60_000 });
  await expect(row).toHaveCount(0);
  expect(authorizedKeys(env)).not.toContain(blob);
  expect(await keychain().get('key:pw-bed-key')).toBeNull();
  expect((await env.app.invoke('profiles.list', {})).find((p) => p.name === 'pw-bed')!.auth).toEqual({ kind: 'auto' });
});

test('remembered password: saved in the keychain, used without asking, a wrong one asked again and replaced, deleted with the server, found nowhere else', async ({ page, env }) => {
  test.setTimeout(300_000);
  const password = env.bed.password!;
  expect(password).not.toBeNull();
  trustBedHostKey(env);
  const prompts = watchPrompts(page);
  await env.app.open(page);
  await addProfile(page, env, 'rem-bed', { auth: { kind: 'password', remember: true } });
  await page.getByTestId('install-key').getByRole('button', { name: 'Not now' }).click();
  const id = await profileId(env, 'rem-bed');
  const account = `password:${id}`;
  expect(await keychain().get(account)).toBeNull();

  // First connect: asked once, and what the server accepted is remembered.
  await page.getByRole('button', { name: 'Connect to rem-bed' }).click();
  await answerPassword(page, password);
  await connected(page, 'rem-bed');
  expect(await keychain().get(account)).toBe(password);
  await disconnectFromServerPage(page, 'rem-bed');

  // Next connect: nothing asked.
  let before = prompts.length;
  await page.getByRole('button', { name: 'Connect to rem-bed' }).click();
  await connected(page, 'rem-bed');
  expect(prompts.slice(before)).toEqual([]);
  await disconnectFromServerPage(page, 'rem-bed');

  // The server's password changed (here: the remembered one made wrong): asked again, then replaced.
  await keychain().set(account, 'an-old-password-that-no-longer-works');
  before = prompts.length;
  await page.getByRole('button', { name: 'Connect to rem-bed' }).click();
  await answerPassword(page, password);
  await connected(page, 'rem-bed');
  expect(prompts.slice(before)).toEqual(['password']);
  expect(await keychain().get(account)).toBe(password);
  await disconnectFromServerPage(page, 'rem-bed');

  // Removing the server removes its secret.
  await page.getByRole('button', { name: 'Remove rem-bed' }).click();
  await page.getByRole('dialog', { name: 'Remove rem-bed?' }).getByRole('button', { name: 'Remove' }).click();
  await expect(page.getByTestId('server-rem-bed')).toHaveCount(0);
  expect(await keychain().get(account)).toBeNull();

  // After all that, the password is in no file of the data directory and no line of the app's log.
  expect(env.log.length).toBeGreaterThan(0);
  expect(scanForSecrets([password], [env.home], [{ where: 'app log', text: env.log.join('\n') }])).toEqual([]);
});

test('servers export then import round trip; a bad file is one error line and changes nothing', async ({ page, env }) => {
  await env.app.open(page);
  await addProfile(page, env, 'exported-bed');
  const names = async () => (await env.app.invoke('profiles.list', {})).map((p) => p.name).sort();
  const all = await names();

  const file = path.join(env.home, 'servers-export.json');
  env.dialogs.queue(file);
  await page.getByTestId('export-profiles').click();
  await expect(page.getByTestId('exchange-message')).toContainText(`Exported ${all.length} server(s) to servers-export.json`);
  const doc = JSON.parse(fs.readFileSync(file, 'utf8')) as { format: string; profiles: { name: string }[] };
  expect(doc.format).toBe('gpu-desk-profiles');
  expect(doc.profiles.map((p) => p.name).sort()).toEqual(all);
  expect(fs.statSync(file).mode & 0o077).toBe(0);

  await page.getByRole('button', { name: 'Remove exported-bed' }).click();
  await page.getByRole('dialog', { name: 'Remove exported-bed?' }).getByRole('button', { name: 'Remove' }).click();
  await expect(page.getByTestId('server-exported-bed')).toHaveCount(0);
  const without = await names();

  // A damaged file: one line naming the cause and the fix; every saved server is still there.
  const bad = path.join(env.home, 'damaged.json');
  fs.writeFileSync(bad, fs.readFileSync(file, 'utf8').slice(0, 40));
  env.dialogs.queue(bad);
  await page.getByTestId('import-profiles').click();
  const msg = page.getByTestId('exchange-message');
  await expect(msg).toHaveAttribute('data-kind', 'error');
  await expect(msg.locator('p')).toContainText('damaged.json is not valid JSON');
  await expect(msg.locator('p')).toContainText('gpu-desk profiles export');
  expect((await msg.locator('p').textContent())!.split('\n')).toHaveLength(1);
  expect(await names()).toEqual(without);

  // Cancelled dialog: nothing happens.
  env.dialogs.queue(null);
  await page.getByTestId('import-profiles').click();
  await expect.poll(() => env.dialogs.pending()).toBe(0);
  expect(await names()).toEqual(without);

  env.dialogs.queue(file);
  await page.getByTestId('import-profiles').click();
  await expect(page.getByTestId('exchange-message')).toHaveAttribute('data-kind', 'ok');
  await expect(page.getByTestId('server-exported-bed')).toBeVisible();
  expect(await names()).toEqual(all);
  await env.shot(page, 'servers-imported');
});
