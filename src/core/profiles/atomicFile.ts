import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Replace `file` so that a crash at any instant leaves either the old or the new content:
 * write a temp file beside it, fsync, rename over, fsync the directory. With `backup`, the old
 * content first becomes `file.bak` (by the same temp-and-rename dance).
 * Callers hold the file's lock, so any temp file left beside it is from a crashed writer.
 */
export function writeFileAtomic(file: string, data: string | Buffer, opts: { mode?: number; backup?: boolean } = {}): void {
  const mode = opts.mode ?? 0o600;
  const dir = path.dirname(file);
  removeStaleTemps(file);
  if (opts.backup && fs.existsSync(file)) {
    const bakTmp = tempName(`${file}.bak`);
    fs.copyFileSync(file, bakTmp);
    fs.chmodSync(bakTmp, mode);
    fsyncPath(bakTmp);
    fs.renameSync(bakTmp, `${file}.bak`);
  }
  const tmp = tempName(file);
  const fd = fs.openSync(tmp, 'wx', mode);
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  fsyncDir(dir);
}

function tempName(file: string): string {
  return `${file}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
}

export function removeStaleTemps(file: string): void {
  const dir = path.dirname(file);
  const base = path.basename(file);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    if (n.startsWith(`${base}.tmp-`) || n.startsWith(`${base}.bak.tmp-`)) fs.rmSync(path.join(dir, n), { force: true });
  }
}

function fsyncPath(p: string): void {
  const fd = fs.openSync(p, 'r+');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Make the rename itself durable; Windows cannot open directories, and NTFS journals renames. */
function fsyncDir(dir: string): void {
  if (process.platform === 'win32') return;
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch { /* some filesystems refuse fsync on directories; the rename is still atomic */ }
  finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
