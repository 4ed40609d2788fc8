import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

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
