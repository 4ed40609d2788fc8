import { test as base, expect, type Page } from '@playwright/test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanupAll, startSshd, type SshdBed } from '../bed';
import { startHarness, type Harness } from '../../src/harness/server';
import { connectSsh } from '../../src/core/ssh/connection';
import { killSession, listSessions } from '../../src/core/remote';

export interface Env {
  bed: SshdBed;
  harness: Harness;
  home: string;
  sshConfigPath: string;
  shot(page: Page, name: string): Promise<void>;
}

export const SCREENS = path.resolve(__dirname, '../../test-results/screens');
let shotNo = 0;

/**
 * Per worker: a real sshd (the bed account, with an nvidia-smi shim first on its PATH), a private
 * GPU_DESK_HOME and keychain service, and the harness in this process serving the built renderer.
 */
export const test = base.extend<object, { env: Env }>({
  env: [
    async ({}, use) => {
      const home = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-e2e-home-'));
      process.env.GPU_DESK_HOME = home;
      process.env.GPU_DESK_KEYCHAIN_SERVICE = `gpu-desk-e2e-${process.pid}`;
      const shimDir = path.resolve(__dirname, 'shims');
      fs.chmodSync(shimDir, 0o755);
      const bed = await startSshd({ extraConfig: [`SetEnv PATH=${shimDir}:/usr/local/bin:/usr/bin:/bin`] });
      const sshConfigPath = path.join(home, 'ssh_config');
      fs.writeFileSync(sshConfigPath, `Host bed-alias\n  HostName 127.0.0.1\n  Port ${bed.port}\n  User ${bed.user}\n  IdentityFile ${bed.userKeyPath}\n\nHost *.wild\n  User nobody\n`);
      const harness = await startHarness({ build: false, log: () => {}, deps: { sshConfigPath, userKnownHostsFiles: [] } });
      fs.mkdirSync(SCREENS, { recursive: true });
      const shot = async (page: Page, name: string) => {
        shotNo++;
        await page.screenshot({ path: path.join(SCREENS, `${String(shotNo).padStart(2, '0')}-${name}.png`) });
      };
      const bedSessions = async () => {
        const conn = await connectSsh({ destination: `${bed.user}@127.0.0.1`, port: bed.port, identityFiles: [bed.userKeyPath], agent: false, sshConfigPath: null, userKnownHostsFiles: [], appKnownHostsFile: path.join(home, 'fixture_known_hosts'), callbacks: { onUnknownHostKey: async () => 'accept-once' } });
        return { conn, list: await listSessions(conn) };
      };
      // Other suites may run desktops for the same bed account: only ours are stopped afterwards.
      const before = await bedSessions();
      const existing = new Set(before.list.map((s) => s.display));
      await before.conn.close();
      await use({ bed, harness, home, sshConfigPath, shot });
      await harness.close();
      const after = await bedSessions();
      for (const s of after.list) if (!existing.has(s.display)) await killSession(after.conn, s.display).catch(() => {});
      await after.conn.close();
      await cleanupAll();
      fs.rmSync(home, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
});

export { expect };

/** Adds a profile through the Add server dialog. */
export async function addProfile(page: Page, env: Env, name: string, opts: { screenshot?: boolean } = {}): Promise<void> {
  await page.getByRole('button', { name: 'Add server' }).click();
  const dlg = page.getByRole('dialog', { name: 'Add server' });
  await dlg.getByLabel('Name', { exact: true }).fill(name);
  await dlg.getByLabel('Host', { exact: true }).fill('127.0.0.1');
  await dlg.getByLabel('Port', { exact: true }).fill(String(env.bed.port));
  await dlg.getByLabel('User', { exact: true }).fill(env.bed.user);
  await dlg.getByLabel('Authentication', { exact: true }).selectOption('key-file');
  await dlg.getByLabel('Key file', { exact: true }).fill(env.bed.userKeyPath);
  await dlg.getByLabel('Display', { exact: true }).fill('');
  await dlg.getByLabel('Geometry', { exact: true }).fill('1024x768');
  if (opts.screenshot) await env.shot(page, 'add-server');
  await dlg.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId(`server-${name}`)).toBeVisible();
}
