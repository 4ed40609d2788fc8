import { test as base, expect, type ConsoleMessage, type Page, type WebError } from '@playwright/test';
import type { MethodInput, MethodName, MethodOutput } from '../../src/shared/contract';
import { findElectron, launchElectronApp, type LaunchedApp } from '../e2e-electron/electronBinary';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanupAll, desktopConfig, startSshd, type DesktopConfig, type SshdBed } from '../bed';
import { startHarness, type Harness } from '../../src/harness/server';
import { connectSsh } from '../../src/core/ssh/connection';
import { killSession, listSessions } from '../../src/core/remote/vncSessions';

/** Which shell the specs drive: the browser harness here, the real Electron app where its binary exists. */
export type Shell = 'harness' | 'electron';

/** The app under test, whichever shell hosts it. */
export interface AppDriver {
  /** Shows the app's first screen with what is saved now (a fresh load). */
  open(page: Page): Promise<void>;
  /** Calls the contract as the renderer does (set-up shortcuts for what a user would do by hand). */
  invoke<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodOutput<M>>;
}

export interface Env {
  bed: SshdBed;
  /** What desktops started through this bed run (the window manager to pick, the terminal it opens). */
  desktop: DesktopConfig;
  app: AppDriver;
  home: string;
  sshConfigPath: string;
  shot(page: Page, name: string): Promise<void>;
  /**
   * A screenshot the README shows (docs/images/<name>.png), taken only with GPU_DESK_SCREENSHOTS=1 so
   * an ordinary test run leaves the tree as it found it.
   */
  docShot(page: Page, name: string): Promise<void>;
  /** The Electron app's window (Electron shell only). */
  window: Page | null;
  /**
   * Every line the app logged in this worker, each with the time: its core's (harness shell) and its
   * pages' consoles (the renderer's own lines, page errors). A failed test prints its part; secret scans read it all.
   */
  log: string[];
  /**
   * The harness's stand-in for the native file dialogs (Chromium cannot show Electron's): each
   * open/save dialog takes the next path queued here; null is the user pressing Cancel.
   */
  dialogs: { queue(...paths: (string | null)[]): void; pending(): number };
}

const root = path.resolve(__dirname, '../..');
const electron = findElectron(root);

export const SCREENS = path.resolve(__dirname, '../../test-results/screens');
const DOC_IMAGES = path.resolve(__dirname, '../../docs/images');
let shotNo = 0;

/**
 * Per worker: a real sshd (the bed account, with an nvidia-smi shim first on its PATH, and desktops
 * that open the bed's own terminal under openbox), a private GPU_DESK_HOME and keychain service,
 * and the harness in this process serving the built renderer.
 */
export const test = base.extend<{ electronGate: void; afterEachTest: void }, { env: Env; shell: Shell }>({
  shell: ['harness', { option: true, scope: 'worker' }],
  // The Electron project on a box without the binary: each spec says plainly it did not run.
  electronGate: [
    async ({ shell }, use, testInfo) => {
      if (shell === 'electron' && 'missing' in electron) {
        console.log(`*** Electron e2e NOT RUN (${testInfo.title}): ${electron.missing}`);
        testInfo.skip(true, `Electron binary not available: ${electron.missing}`);
      }
      await use();
    },
    { auto: true },
  ],
  // Each test leaves the worker's app as it found it: a connection a test left open would otherwise
  // live on into later tests (one whose key a test removed, reconnecting when a later test restarts
  // the bed's sshd, asked for a password over that test's viewer). A failed test also prints what
  // the app and the bed's sshd logged meanwhile: CI keeps only its output.
  afterEachTest: [
    async ({ env }, use, testInfo) => {
      const from = env.log.length;
      const sshdFrom = fileSize(env.bed.logPath);
      await use();
      if (testInfo.status !== testInfo.expectedStatus) {
        console.log(`*** app log during "${testInfo.title}" (last 80 lines):\n${env.log.slice(from).slice(-80).join('\n')}`);
        console.log(`*** bed sshd log during it (last 60 lines):\n${fileTail(env.bed.logPath, sshdFrom, 60)}`);
      }
      const left = await env.app.invoke('connections.list', {}).catch(() => []);
      for (const c of left) await env.app.invoke('connections.close', { connectionId: c.id }).catch(() => {});
    },
    { auto: true },
  ],
  // Every spec fails on a text the catalogues lack (src/renderer/i18n records and logs each one).
  // What every page of the app says on its console goes into the app's log (debug lines aside).
  page: async ({ page, env }, use) => {
    const p = env.window ?? page;
    const missing: string[] = [];
    const onConsole = (m: ConsoleMessage) => {
      if (m.type() === 'error' && m.text().startsWith('i18n: missing')) missing.push(m.text());
    };
    const context = p.context();
    const toLog = (m: ConsoleMessage) => {
      if (m.type() !== 'debug') env.log.push(`${stamp()} page console.${m.type()}: ${m.text()}`);
    };
    const onError = (e: WebError) => env.log.push(`${stamp()} page uncaught: ${e.error().stack ?? e.error().message}`);
    p.on('console', onConsole);
    context.on('console', toLog);
    context.on('weberror', onError);
    await use(p);
    p.off('console', onConsole);
    context.off('console', toLog);
    context.off('weberror', onError);
    expect(missing, 'texts missing from the catalogues').toEqual([]);
  },
  env: [
    async ({ shell }, use) => {
      const home = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-e2e-home-'));
      process.env.GPU_DESK_HOME = home;
      process.env.GPU_DESK_KEYCHAIN_SERVICE = `gpu-desk-e2e-${process.pid}`;
      const shimDir = path.resolve(__dirname, 'shims');
      fs.chmodSync(shimDir, 0o755);
      const desktop = desktopConfig();
      const bed = await startSshd({ extraConfig: [`SetEnv PATH=${shimDir}:/usr/local/bin:/usr/bin:/bin XDG_CONFIG_HOME=${desktop.xdgConfigHome}`] });
      const sshConfigPath = path.join(home, 'ssh_config');
      fs.writeFileSync(sshConfigPath, `Host bed-alias\n  HostName 127.0.0.1\n  Port ${bed.port}\n  User ${bed.user}\n  IdentityFile ${bed.userKeyPath}\n\nHost *.wild\n  User nobody\n`);
      let harness: Harness | null = null;
      let launched: LaunchedApp | null = null;
      let window: Page | null = null;
      let app: AppDriver;
      const log: string[] = [];
      const dialogQueue: (string | null)[] = [];
      const nextPath = async () => {
        if (!dialogQueue.length) throw new Error('a file dialog opened that the test did not expect (queue its answer with env.dialogs.queue)');
        return dialogQueue.shift()!;
      };
      if (shell === 'electron' && 'path' in electron) {
        // The real app reads ~/.ssh/config and ~/.ssh/known_hosts: a private HOME holds the test's.
        const userHome = path.join(home, 'user-home');
        fs.mkdirSync(path.join(userHome, '.ssh'), { recursive: true, mode: 0o700 });
        fs.copyFileSync(sshConfigPath, path.join(userHome, '.ssh', 'config'));
        launched = await launchElectronApp(root, electron.path, {
          HOME: userHome, XDG_CONFIG_HOME: path.join(home, 'xdg-config'), GPU_DESK_HOME: home,
          GPU_DESK_KEYCHAIN_SERVICE: process.env.GPU_DESK_KEYCHAIN_SERVICE!,
        });
        const win = await launched.app.firstWindow();
        await win.setViewportSize({ width: 1280, height: 860 });
        window = win;
        app = {
          open: async (page) => {
            await page.reload();
            await page.waitForLoadState('domcontentloaded');
          },
          invoke: async (method, input) => {
            const r = await win.evaluate(([m, i]) => (globalThis as unknown as { gpuDesk: { invoke(m: string, i: unknown): Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string } }> } }).gpuDesk.invoke(m, i), [method, input] as const);
            if (!r.ok) throw new Error(`${method}: ${r.error?.code} ${r.error?.message}`);
            return r.value as never;
          },
        };
      } else {
        const h = await startHarness({
          build: false,
          log: (l) => log.push(`${stamp()} ${l}`),
          deps: { sshConfigPath, userKnownHostsFiles: [], dialogs: { openFile: nextPath, saveFile: nextPath } },
        });
        harness = h;
        app = {
          open: async (page) => {
            await page.goto(h.url);
          },
          invoke: async (method, input) => (h.core.handlers()[method] as (i: unknown) => Promise<never>)(input),
        };
      }
      fs.mkdirSync(SCREENS, { recursive: true });
      const shot = async (page: Page, name: string) => {
        shotNo++;
        await page.screenshot({ path: path.join(SCREENS, `${String(shotNo).padStart(2, '0')}-${shell === 'electron' ? 'electron-' : ''}${name}.png`) });
      };
      const docShot = async (page: Page, name: string) => {
        if (process.env.GPU_DESK_SCREENSHOTS !== '1') return;
        fs.mkdirSync(DOC_IMAGES, { recursive: true });
        await page.screenshot({ path: path.join(DOC_IMAGES, `${name}.png`) });
      };
      const bedSessions = async () => {
        const conn = await connectSsh({ destination: `${bed.user}@127.0.0.1`, port: bed.port, identityFiles: [bed.userKeyPath], agent: false, sshConfigPath: null, userKnownHostsFiles: [], appKnownHostsFile: path.join(home, 'fixture_known_hosts'), callbacks: { onUnknownHostKey: async () => 'accept-once' } });
        return { conn, list: await listSessions(conn) };
      };
      // Other suites (and other people) run desktops for the same bed account, starting and stopping
      // them while this worker runs: only desktops started through this bed are stopped afterwards,
      // known by the bed's XDG_CONFIG_HOME in their X server's environment.
      const startedHere = (pid: number | null): boolean => {
        if (pid === null) return false;
        try {
          return fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(`XDG_CONFIG_HOME=${desktop.xdgConfigHome}`);
        } catch {
          return false;
        }
      };
      const dialogs = { queue: (...paths: (string | null)[]) => void dialogQueue.push(...paths), pending: () => dialogQueue.length };
      await use({ bed, desktop, app, home, sshConfigPath, shot, docShot, window, log, dialogs });
      await harness?.close();
      await launched?.close();
      const after = await bedSessions();
      const ours = new Set(after.list.filter((s) => startedHere(s.pid)).map((s) => s.display));
      for (const display of ours) await killSession(after.conn, display).catch(() => {});
      await after.conn.close();
      await cleanupAll();
      fs.rmSync(home, { recursive: true, force: true });
    },
    { scope: 'worker' },
  ],
});

/** The time of day to the millisecond (UTC), as the app's log lines carry it. */
function stamp(): string {
  return new Date().toISOString().slice(11, 23);
}

function fileSize(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

function fileTail(file: string, from: number, lines: number): string {
  try {
    return fs.readFileSync(file).subarray(from).toString('utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch (e) {
    return `(unreadable: ${(e as Error).message})`;
  }
}

export { expect };

/** Adds a profile through the Add server dialog. */
/** Adds the bed as a server through the Add server dialog: by the bed's key file, or by password (asked at connect time). */
export async function addProfile(
  page: Page, env: Env, name: string,
  opts: { screenshot?: boolean; port?: number; auth?: { kind: 'key-file' } | { kind: 'password'; remember: boolean } } = {},
): Promise<void> {
  const auth = opts.auth ?? { kind: 'key-file' };
  await page.getByRole('button', { name: 'Add server' }).click();
  const dlg = page.getByRole('dialog', { name: 'Add server' });
  await dlg.getByLabel('Name', { exact: true }).fill(name);
  await dlg.getByLabel('Host', { exact: true }).fill('127.0.0.1');
  await dlg.getByLabel('Port', { exact: true }).fill(String(opts.port ?? env.bed.port));
  await dlg.getByLabel('User', { exact: true }).fill(env.bed.user);
  await dlg.getByLabel('Authentication', { exact: true }).selectOption(auth.kind);
  if (auth.kind === 'key-file') await dlg.getByLabel('Key file', { exact: true }).fill(env.bed.userKeyPath);
  else if (auth.remember) await dlg.getByLabel('Remember the password in the OS keychain').check();
  await dlg.getByLabel('Display', { exact: true }).fill('');
  await dlg.getByLabel('Geometry', { exact: true }).fill('1024x768');
  if (opts.screenshot) await env.shot(page, 'add-server');
  await dlg.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByTestId(`server-${name}`)).toBeVisible();
}
