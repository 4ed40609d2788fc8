import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { GpuDeskError } from '../errors';

/**
 * An inter-process lock around read-modify-write of one file.
 *
 * Linux (abstract Unix socket) and Windows (named pipe): only one process can listen on a name and
 * the kernel frees it when the holder dies, even on SIGKILL — no stale lock to guess about.
 * Elsewhere (macOS): a lock file created atomically with link(); a holder whose pid is gone on this
 * host, or whose lock is older than staleMs elsewhere, is taken over.
 */
export type LockKind = 'socket' | 'file';

export interface LockOptions {
  kind?: LockKind;
  timeoutMs?: number;
  /** File locks from another host (shared home) older than this are broken. */
  staleMs?: number;
}

export function defaultLockKind(platform = process.platform): LockKind {
  return platform === 'linux' || platform === 'win32' ? 'socket' : 'file';
}

// Serialise callers inside one process first: cheaper than polling the OS lock against ourselves.
const inProcess = new Map<string, Promise<unknown>>();

export async function withFileLock<T>(target: string, fn: () => Promise<T>, opts: LockOptions = {}): Promise<T> {
  const key = canonical(target);
  const prev = inProcess.get(key) ?? Promise.resolve();
  const run = prev.catch(() => {}).then(async () => {
    const release = await acquire(key, opts);
    try {
      return await fn();
    } finally {
      await release();
    }
  });
  inProcess.set(key, run);
  try {
    return await run;
  } finally {
    if (inProcess.get(key) === run) inProcess.delete(key);
  }
}

/** Two processes naming the file through different symlinks must still meet on one lock. */
function canonical(target: string): string {
  const abs = path.resolve(target);
  try {
    return path.join(fs.realpathSync(path.dirname(abs)), path.basename(abs));
  } catch {
    return abs;
  }
}

async function acquire(target: string, opts: LockOptions): Promise<() => Promise<void>> {
  const kind = opts.kind ?? defaultLockKind();
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  for (;;) {
    const release = kind === 'socket' ? await trySocket(target) : tryFile(target, opts.staleMs ?? 60_000);
    if (release) return release;
    if (Date.now() > deadline) {
      throw new GpuDeskError(
        'PROFILES_LOCKED',
        `another gpu-desk process has held the lock on ${target} for over ${Math.round(timeoutMs / 1000)} s`,
        kind === 'file' ? `close other gpu-desk windows; if none is running, delete ${target}.lock` : 'close other gpu-desk windows and retry',
      );
    }
    // Jitter keeps two waiting processes from retrying in lock-step.
    await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
    delay = Math.min(delay * 2, 50);
  }
}

export function socketLockName(target: string, platform = process.platform): string {
  const h = createHash('sha256').update(path.resolve(target)).digest('hex').slice(0, 32);
  return platform === 'win32' ? `\\\\.\\pipe\\gpu-desk-lock-${h}` : `\0gpu-desk-lock-${h}`;
}

function trySocket(target: string): Promise<(() => Promise<void>) | null> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((s) => s.destroy());
    server.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EADDRINUSE' || e.code === 'EACCES') resolve(null);
      else reject(new GpuDeskError('PROFILES_LOCKED', `cannot take the profiles lock: ${e.message}`, 'retry; report a bug if it persists'));
    });
    server.listen(socketLockName(target), () => {
      server.unref();
      resolve(() => new Promise<void>((r) => server.close(() => r())));
    });
  });
}

function tryFile(target: string, staleMs: number): (() => Promise<void>) | null {
  const lock = `${target}.lock`;
  const token = `${process.pid} ${os.hostname()} ${randomBytes(8).toString('hex')}`;
  const tmp = `${lock}.${process.pid}.${randomBytes(6).toString('hex')}`;
  fs.writeFileSync(tmp, token, { mode: 0o600 });
  try {
    // link() fails if the lock exists and is atomic, so a lock file is never seen half-written.
    fs.linkSync(tmp, lock);
    sweepDeadTemps(lock);
    return async () => {
      try {
        if (fs.readFileSync(lock, 'utf8') === token) fs.unlinkSync(lock);
      } catch { /* already gone */ }
    };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    breakIfStale(lock, staleMs);
    return null;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

function breakIfStale(lock: string, staleMs: number): void {
  let holder: string;
  let age: number;
  try {
    holder = fs.readFileSync(lock, 'utf8');
    age = Date.now() - fs.statSync(lock).mtimeMs;
  } catch {
    return;
  }
  const [pidText, host] = holder.split(' ');
  const pid = Number(pidText);
  const dead = host === os.hostname() ? !pidAlive(pid) : age > staleMs;
  if (!dead) return;
  // Move it aside under a unique name, then check we moved the lock we judged dead; if another
  // process replaced it in between, put theirs back.
  const aside = `${lock}.${process.pid}.stale-${randomBytes(6).toString('hex')}`;
  try {
    fs.renameSync(lock, aside);
  } catch {
    return;
  }
  try {
    if (fs.readFileSync(aside, 'utf8') !== holder) {
      try { fs.linkSync(aside, lock); } catch { /* a third process holds it now */ }
    }
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

/** Temp and moved-aside lock files of writers killed mid-way ("profiles.json.lock.<pid>.…"). */
function sweepDeadTemps(lock: string): void {
  const dir = path.dirname(lock);
  const prefix = `${path.basename(lock)}.`;
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir);
  } catch { /* nothing to sweep */ }
  for (const n of names) {
    if (!n.startsWith(prefix)) continue;
    const pid = Number(n.slice(prefix.length).split('.')[0]);
    if (pid !== process.pid && !pidAlive(pid)) fs.rmSync(path.join(dir, n), { force: true });
  }
}

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
