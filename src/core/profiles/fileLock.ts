import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GpuDeskError } from '../errors';

/**
 * An inter-process lock around read-modify-write of one file: a lock file beside it, in the
 * user's private (0700) data directory, so no other local user can create, hold or remove it.
 * (An abstract Unix socket or a named pipe is freed by the kernel when its holder dies, but its
 * name is global to the machine: any local user could take it first and block every write.)
 *
 * A holder that died without releasing is recognised and taken over: on this host by its pid —
 * and on Linux its start time, so a pid the kernel has since given to another process does not
 * keep the lock — and from another host sharing the home directory by the lock's age.
 */
export interface LockOptions {
  timeoutMs?: number;
  /** Locks from another host (shared home) older than this are broken. */
  staleMs?: number;
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
  assertPrivateDir(path.dirname(target));
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  for (;;) {
    const release = tryLock(target, opts.staleMs ?? 60_000);
    if (release) return release;
    if (Date.now() > deadline) {
      throw new GpuDeskError(
        'PROFILES_LOCKED',
        `another gpu-desk process has held the lock on ${target} for over ${Math.round(timeoutMs / 1000)} s`,
        `close other gpu-desk windows; if none is running, delete ${target}.lock`,
      );
    }
    // Jitter keeps two waiting processes from retrying in lock-step.
    await new Promise((r) => setTimeout(r, delay + Math.random() * delay));
    delay = Math.min(delay * 2, 50);
  }
}

/**
 * The lock is only as private as its directory: one that another user can write to lets them
 * create the lock first (or replace the files it guards). Refused, as OpenSSH refuses a
 * ~/.ssh that others can write.
 */
function assertPrivateDir(dir: string): void {
  if (process.platform === 'win32' || typeof process.getuid !== 'function') return;
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    return; // the write that follows names the missing directory
  }
  const uid = process.getuid();
  if ((st.mode & 0o022) !== 0 || (st.uid !== uid && st.uid !== 0)) {
    const who = (st.mode & 0o022) !== 0 ? 'can be written by other users' : 'belongs to another user';
    throw new GpuDeskError(
      'DATA_DIR_UNSAFE',
      `the gpu-desk data directory ${dir} ${who}, who could block or replace its files`,
      st.uid !== uid && st.uid !== 0 ? `use a data directory of your own (GPU_DESK_HOME)` : `chmod 700 ${dir}`,
    );
  }
}

interface Holder {
  pid: number;
  host: string;
  /** Linux start time of the pid (clock ticks since boot), '-' where unknown. */
  start: string;
}

function tryLock(target: string, staleMs: number): (() => Promise<void>) | null {
  const lock = `${target}.lock`;
  const token = `${process.pid} ${os.hostname()} ${processStart(process.pid) ?? '-'} ${randomBytes(8).toString('hex')}`;
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

function parseHolder(text: string): Holder {
  const [pid, host, start] = text.split(' ');
  // Lock files written before start times were recorded have a random token in third place.
  return { pid: Number(pid), host: host ?? '', start: start && /^(\d+|-)$/.test(start) ? start : '-' };
}

function breakIfStale(lock: string, staleMs: number): void {
  let text: string;
  let age: number;
  try {
    text = fs.readFileSync(lock, 'utf8');
    age = Date.now() - fs.statSync(lock).mtimeMs;
  } catch {
    return;
  }
  const holder = parseHolder(text);
  const dead = holder.host === os.hostname() ? !holderAlive(holder) : age > staleMs;
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
    if (fs.readFileSync(aside, 'utf8') !== text) {
      try { fs.linkSync(aside, lock); } catch { /* a third process holds it now */ }
    }
  } finally {
    fs.rmSync(aside, { force: true });
  }
}

function holderAlive(h: Holder): boolean {
  if (!pidAlive(h.pid)) return false;
  if (h.start === '-') return true;
  const now = processStart(h.pid);
  return now === null || now === h.start;
}

/** Field 22 of /proc/PID/stat: fixed for a process's life, different for a later one with its pid. */
export function processStart(pid: number): string | null {
  if (process.platform !== 'linux') return null;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
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
