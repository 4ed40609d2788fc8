import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { registerCleanup, startXvnc } from '../bed';
import { startDelayProxy } from '../bed/delayProxy';
import { expect, test, type Env } from './fixtures';

const viewerPrefs = { quality: 6, compression: 2, encodings: ['tight' as const], scaling: 'fit' as const, adaptive: false };

/** The bytes of a test file: a pattern both sides compute, so nothing large crosses into the page. */
function pattern(size: number, seed: number): Buffer {
  const b = Buffer.alloc(size);
  for (let i = 0; i < size; i++) b[i] = (i * 31 + seed + (i >> 12)) & 255;
  return b;
}
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** Drops a file made in the page (same pattern as above) on `testId`, as a drag from the desktop does. */
async function dropFile(page: Page, testId: string, name: string, size: number, seed: number): Promise<void> {
  const dt = await page.evaluateHandle(({ name, size, seed }) => {
    // Built in 1 MiB parts that repeat the pattern's period-free formula exactly.
    const parts: Uint8Array<ArrayBuffer>[] = [];
    for (let off = 0; off < size; off += 1 << 20) {
      const n = Math.min(1 << 20, size - off);
      const p = new Uint8Array(n);
      for (let j = 0; j < n; j++) { const i = off + j; p[j] = (i * 31 + seed + (i >> 12)) & 255; }
      parts.push(p);
    }
    const d = new DataTransfer();
    d.items.add(new File(parts, name));
    return d;
  }, { name, size, seed });
  await page.getByTestId(testId).dispatchEvent('drop', { dataTransfer: dt });
}

async function webServer(): Promise<number> {
  const web = http.createServer((_req, res) => res.end('notebook here'));
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', () => r()));
  registerCleanup(() => new Promise<void>((r) => web.close(() => r())));
  return (web.address() as net.AddressInfo).port;
}

function getThrough(address: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http.get(`http://${address}/`, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

/** A folder of this spec's own in the folder the Files tab opens on (the bed home is shared). */
async function ownFolder(page: Page, env: Env): Promise<string> {
  await expect(page.getByTestId('files-path')).not.toHaveText('', { timeout: 30_000 });
  const base = (await page.getByTestId('files-path').textContent())!;
  const dir = path.posix.join(base, `gd-e2e-files-${process.pid}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir);
  const home = fs.statSync(env.bed.home);
  fs.chownSync(dir, home.uid, home.gid);
  registerCleanup(() => fs.rmSync(dir, { recursive: true, force: true }));
  await page.getByRole('button', { name: 'Reload' }).click();
  await page.getByTestId(`file-${path.posix.basename(dir)}`).getByRole('button').click();
  await expect(page.getByTestId('files-path')).toHaveText(dir);
  return dir;
}

test('a saved forward opens beside the desktop, answers HTTP, and comes back on the same port after a reconnect', async ({ page, env, shell }) => {
  test.setTimeout(300_000);
  const webPort = await webServer();
  const xvnc = await startXvnc({ geometry: '800x600', clients: [['xterm', '-geometry', '60x10+0+0']] });
  fs.writeFileSync(path.join(env.home, 'known_hosts'), `${env.bed.knownHostsLine}\n`);
  await env.app.invoke('profiles.save', {
    profile: {
      name: 'jupyter', host: '127.0.0.1', port: env.bed.port, user: env.bed.user, jumpHosts: [], auth: { kind: 'key-file', path: env.bed.userKeyPath },
      display: { number: xvnc.display }, viewer: viewerPrefs, forwards: [{ kind: 'local', localPort: 0, remoteHost: '127.0.0.1', remotePort: webPort }],
    },
  });
  await env.app.open(page);
  await page.getByRole('button', { name: 'Connect to jupyter' }).click();
  await expect(page.getByTestId('viewer-phase')).toHaveText('connected', { timeout: 60_000 });
  const row = page.getByTestId('forwards-panel').getByTestId(`forward-${webPort}`);
  await expect(row).toHaveAttribute('data-http', 'yes', { timeout: 60_000 });
  await expect(row.getByTestId('forward-http')).toHaveText('Answers HTTP');
  const address = (await row.getByTestId('forward-address').textContent())!;
  expect(address).toMatch(/^127\.0\.0\.1:\d+$/);
  expect(await getThrough(address)).toBe('notebook here');
  await env.shot(page, 'forward-beside-viewer');
  if (shell === 'harness') {
    // The harness opens the page with window.open (the app: shell.openExternal in main).
    const popup = page.waitForEvent('popup');
    await row.getByTestId('forward-browse').click();
    const p = await popup;
    expect(p.url()).toBe(`http://${address}/`);
    await expect(p.locator('body')).toHaveText('notebook here', { timeout: 30_000 });
    await p.close();
  }

  await env.bed.kill();
  await expect(page.getByTestId('viewer-phase')).toHaveText('reconnecting', { timeout: 30_000 });
  await env.bed.restart();
  await expect(page.getByTestId('viewer-phase')).toHaveText('connected', { timeout: 120_000 });
  // Asked again after the reconnect (checking, then the answer), on the same local address.
  await expect(row).toHaveAttribute('data-http', 'yes', { timeout: 60_000 });
  await expect(row.getByTestId('forward-address')).toHaveText(address);
  expect(await getThrough(address)).toBe('notebook here');

  // A file dropped on the desktop goes to ~/Desktop where the server has one, else ~.
  const dropName = `gd-e2e-viewer-drop-${process.pid}.bin`;
  const target = path.join(fs.existsSync(path.join(env.bed.home, 'Desktop')) ? path.join(env.bed.home, 'Desktop') : env.bed.home, dropName);
  registerCleanup(() => fs.rmSync(target, { force: true }));
  await dropFile(page, 'viewer-drop', dropName, 200_000, 4);
  await expect(page.getByTestId(`upload-${dropName}`)).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  expect(fs.readFileSync(target).equals(pattern(200_000, 4))).toBe(true);

  await page.getByRole('button', { name: 'Back to the server' }).click();
  await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
  await xvnc.stop();
});

test('files: upload by drop lands byte-exact, asks before replacing, cancel leaves nothing, download saves byte-exact', async ({ page, env }) => {
  test.setTimeout(420_000);
  fs.writeFileSync(path.join(env.home, 'known_hosts'), `${env.bed.knownHostsLine}\n`);
  // Through a slow link (2 MiB/s), so an upload is still running when the screenshot and Cancel come.
  const slow = await startDelayProxy({ targetPort: env.bed.port, delayMs: 5, rateBytesPerSec: 2 * 1024 * 1024, maxQueuedBytes: 1024 * 1024 });
  registerCleanup(() => slow.stop());
  fs.appendFileSync(path.join(env.home, 'known_hosts'), `${env.bed.knownHostsLine.replace(`[127.0.0.1]:${env.bed.port}`, `[127.0.0.1]:${slow.port}`)}\n`);
  for (const [name, port] of [['files', env.bed.port], ['files-slow', slow.port]] as const) {
    await env.app.invoke('profiles.save', {
      profile: { name, host: '127.0.0.1', port, user: env.bed.user, jumpHosts: [], auth: { kind: 'key-file', path: env.bed.userKeyPath }, display: {}, viewer: viewerPrefs, forwards: [] },
    });
  }
  await env.app.open(page);
  await page.getByRole('button', { name: 'Connect to files', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'files', level: 1 })).toBeVisible({ timeout: 60_000 });
  await page.getByRole('tab', { name: 'Files' }).click();
  const dir = await ownFolder(page, env);

  const size = 3 * 1024 * 1024 + 17;
  await dropFile(page, 'files-panel', 'weights.bin', size, 1);
  const item = page.getByTestId('upload-weights.bin');
  await expect(item).toHaveAttribute('data-state', 'done', { timeout: 120_000 });
  expect(sha(fs.readFileSync(path.join(dir, 'weights.bin')))).toBe(sha(pattern(size, 1)));
  await expect(page.getByTestId('file-weights.bin')).toBeVisible();

  // The same name again: asked first; "keep" leaves the server's file as it was.
  await item.getByRole('button', { name: 'Dismiss' }).click();
  await dropFile(page, 'files-panel', 'weights.bin', 1000, 2);
  const ask = page.getByTestId('replace-dialog');
  await expect(ask).toContainText(`weights.bin already exists in ${dir}`);
  await ask.getByRole('button', { name: "Keep the server's file" }).click();
  await expect(item).toHaveAttribute('data-state', 'skipped');
  expect(sha(fs.readFileSync(path.join(dir, 'weights.bin')))).toBe(sha(pattern(size, 1)));
  await item.getByRole('button', { name: 'Dismiss' }).click();
  await dropFile(page, 'files-panel', 'weights.bin', 1000, 2);
  await page.getByTestId('replace-dialog').getByRole('button', { name: 'Replace' }).click();
  await expect(item).toHaveAttribute('data-state', 'done', { timeout: 60_000 });
  expect(fs.readFileSync(path.join(dir, 'weights.bin')).equals(pattern(1000, 2))).toBe(true);

  // Download through the browser: the harness's stand-in for the save dialog is $GPU_DESK_HARNESS_DOWNLOADS.
  const saveDir = fs.mkdtempSync(path.join(env.home, 'downloads-'));
  process.env.GPU_DESK_HARNESS_DOWNLOADS = saveDir;
  await page.getByRole('button', { name: 'Download weights.bin' }).click();
  await expect(page.getByTestId('files-note')).toHaveText(`Saved weights.bin to ${path.join(saveDir, 'weights.bin')}`, { timeout: 60_000 });
  expect(fs.readFileSync(path.join(saveDir, 'weights.bin')).equals(pattern(1000, 2))).toBe(true);

  // A big file over the slow link: progress shows, the screenshot is taken, Cancel leaves nothing.
  await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
  await page.getByRole('button', { name: 'Connect to files-slow' }).click();
  await expect(page.getByRole('heading', { name: 'files-slow', level: 1 })).toBeVisible({ timeout: 60_000 });
  await page.getByRole('tab', { name: 'Files' }).click();
  await page.getByRole('button', { name: 'Reload' }).click();
  await page.getByTestId(`file-${path.posix.basename(dir)}`).getByRole('button').click();
  await expect(page.getByTestId('files-path')).toHaveText(dir);
  const big = 64 * 1024 * 1024;
  await dropFile(page, 'files-panel', 'dataset.tar', big, 3);
  const up = page.getByTestId('upload-dataset.tar');
  await expect.poll(async () => Number(await up.getByTestId('upload-progress').getAttribute('value')), { timeout: 120_000, message: 'bytes acknowledged by the server' }).toBeGreaterThan(1024 * 1024);
  await env.docShot(page, 'upload');
  await env.shot(page, 'upload-in-progress');
  await up.getByTestId('upload-cancel').click();
  await expect(up).toHaveAttribute('data-state', 'cancelled', { timeout: 60_000 });
  await expect.poll(() => fs.readdirSync(dir).sort(), { timeout: 30_000 }).toEqual(['weights.bin']);
  await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
});
