import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { _electron, type ElectronApplication } from '@playwright/test';

/**
 * Where the Electron binary is, or why it is not there. Never `require('electron')`: without the
 * binary that call starts a download (impossible here and in CI) instead of answering.
 */
export function findElectron(root: string): { path: string } | { missing: string } {
  const pkg = path.join(root, 'node_modules', 'electron');
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  const pathTxt = path.join(pkg, 'path.txt');
  const rel = existsSync(pathTxt) ? readFileSync(pathTxt, 'utf8').trim() : null;
  if (override) {
    const p = path.join(override, rel ?? 'electron');
    return existsSync(p) ? { path: p } : { missing: `ELECTRON_OVERRIDE_DIST_PATH is set but ${p} does not exist` };
  }
  if (!rel) return { missing: 'node_modules/electron/path.txt is absent: the Electron binary was never downloaded (ELECTRON_SKIP_BINARY_DOWNLOAD=1, or no network)' };
  const p = path.join(pkg, 'dist', rel);
  return existsSync(p) ? { path: p } : { missing: `${p} does not exist` };
}

export interface LaunchedApp {
  app: ElectronApplication;
  /** The X display it runs on (a virtual one on a headless Linux box). */
  display: string | undefined;
  close(): Promise<void>;
}

/**
 * The built app (out/, built first if absent) in the real Electron binary via Playwright's
 * _electron.launch, on a virtual screen when the box has none. `env` is added to this process's.
 */
export async function launchElectronApp(root: string, electronPath: string, env: Record<string, string>): Promise<LaunchedApp> {
  if (!existsSync(path.join(root, 'out/main/index.js'))) execFileSync('npx', ['electron-vite', 'build'], { cwd: root, stdio: 'inherit' });
  let xvfb: ChildProcess | null = null;
  let display = process.env.DISPLAY;
  if (process.platform === 'linux' && !display) {
    display = `:${97 + (process.pid % 50)}`;
    xvfb = spawn('Xvfb', [display, '-screen', '0', '1600x1000x24', '-nolisten', 'tcp'], { stdio: 'ignore' });
    await new Promise((r) => setTimeout(r, 1000));
  }
  const app = await _electron.launch({
    executablePath: electronPath,
    args: [root, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])],
    cwd: root,
    env: { ...process.env, ...(display ? { DISPLAY: display } : {}), ELECTRON_ENABLE_LOGGING: '1', ...env } as Record<string, string>,
  });
  return {
    app,
    display,
    close: async () => {
      await app.close().catch(() => {});
      xvfb?.kill();
    },
  };
}
