import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface AppPaths {
  /** Everything gpu-desk keeps on disk: profiles, its own known_hosts, sealed keys. */
  dataDir: string;
  profilesFile: string;
  /** Host keys the user accepted in gpu-desk (never written into ~/.ssh/known_hosts). */
  knownHostsFile: string;
  /** AES-GCM sealed private keys too large for the platform keychain. */
  keysDir: string;
}

export interface AppPathsEnv {
  env?: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  home?: string;
}

/** The per-platform application data directory, as Electron's app.getPath('userData') would pick it. */
export function defaultDataDir({ env = process.env, platform = process.platform, home = os.homedir() }: AppPathsEnv = {}): string {
  if (platform === 'win32') return path.win32.join(env.APPDATA || path.win32.join(home, 'AppData', 'Roaming'), 'gpu-desk');
  if (platform === 'darwin') return path.posix.join(home, 'Library', 'Application Support', 'gpu-desk');
  const xdg = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(home, '.config');
  return path.join(xdg, 'gpu-desk');
}

/** GPU_DESK_HOME moves everything (tests, portable installs); otherwise the platform's data directory. */
export function appPaths(opts: AppPathsEnv = {}): AppPaths {
  const env = opts.env ?? process.env;
  const override = env.GPU_DESK_HOME?.trim();
  const dataDir = override ? path.resolve(override) : defaultDataDir(opts);
  const join = opts.platform === 'win32' ? path.win32.join : path.join;
  return {
    dataDir,
    profilesFile: join(dataDir, 'profiles.json'),
    knownHostsFile: join(dataDir, 'known_hosts'),
    keysDir: join(dataDir, 'keys'),
  };
}

/** Create the data directory private to the user (it holds host keys and sealed key blobs). */
export function ensureDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}
