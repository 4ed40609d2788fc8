import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processStart } from '../../../src/core/profiles/fileLock';
import { ProfileStore } from '../../../src/core/profiles/profileStore';
import { storeDocSchema } from '../../../src/core/profiles/schema';
import { isRoot } from '../../bed';
import { bundleWorker } from '../../helpers/profiles/bundle';
import { waitFor } from '../../helpers/until';

/**
 * Real processes against one profiles file: a writer SIGKILLed at random moments, and writers
 * racing each other. The worker is the real ProfileStore, bundled once so a launch is cheap.
 */
let dir: string;
let worker: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-procs-'));
  worker = bundleWorker(path.join(__dirname, '../../helpers/profiles/storeWorker.ts'), dir);
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function startWorker(args: string[]) {
  const child = spawn(process.execPath, [worker, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => out.includes('ready\n') && resolve());
    child.once('exit', (code) => reject(new Error(`worker exited ${code} before ready: ${err}`)));
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; out: string; err: string }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, out, err })),
  );
  const wrote = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => out.includes('wrote\n') && resolve());
    child.once('exit', () => reject(new Error('worker exited before its first write')));
  });
  ready.catch(() => {});
  wrote.catch(() => {});
  return { child, ready, wrote, exited };
}

/** Parse exactly as the app does, but with no recovery: a torn file must fail here. */
function strictRead(file: string) {
  return storeDocSchema.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
}

describe('profiles file lock', () => {
  it('two processes adding 100 profiles each at once: all 200 present', async () => {
    const file = path.join(dir, 'race.json');
    const a = startWorker(['add', file, 'a', '100']);
    const b = startWorker(['add', file, 'b', '100']);
    const [ra, rb] = await Promise.all([a.exited, b.exited]);
    expect(ra.code, ra.err).toBe(0);
    expect(rb.code, rb.err).toBe(0);
    expect(ra.out + rb.out).not.toContain('notices');
    const names = strictRead(file).profiles.map((p) => p.name);
    expect(names).toHaveLength(200);
    expect(new Set(names).size).toBe(200);
    for (let i = 0; i < 100; i++) {
      expect(names).toContain(`a-${i}`);
      expect(names).toContain(`b-${i}`);
    }
  });

  it('is a file in the data directory; a holder SIGKILLed while holding it is taken over', async () => {
    const file = path.join(dir, 'held.json');
    const holder = startWorker(['hold', file]);
    // "ready" comes from inside the locked update.
    await holder.ready;
    expect(fs.readFileSync(`${file}.lock`, 'utf8').split(' ')[0]).toBe(String(holder.child.pid));
    // While it lives, another process cannot write: it gives up with the one-line error.
    const blocked = await startWorker(['add', file, 'blocked', '1', '1500']).exited;
    expect(blocked.code).toBe(1);
    expect(blocked.err).toContain('PROFILES_LOCKED');
    holder.child.kill('SIGKILL');
    expect((await holder.exited).signal).toBe('SIGKILL');
    const after = await startWorker(['add', file, 'after', '1']).exited;
    expect(after.code, after.err).toBe(0);
    expect(strictRead(file).profiles.map((p) => p.name)).toEqual(['after-0']);
    expect(fs.existsSync(`${file}.lock`)).toBe(false);
  });

  it('a lock left by a pid that now belongs to another process is taken over; the live holder is not', async () => {
    const file = path.join(dir, 'reused.json');
    // A live process standing in for "the kernel gave the dead holder's pid to someone else".
    const other = spawn('sleep', ['600'], { stdio: 'ignore' });
    try {
      await waitFor(() => processStart(other.pid!) !== null, 'the other process to have started');
      const start = Number(processStart(other.pid!));
      const host = os.hostname();
      fs.writeFileSync(`${file}.lock`, `${other.pid} ${host} ${start} deadbeef`);
      const live = await startWorker(['add', file, 'live', '1', '1000']).exited;
      expect(live.err).toContain('PROFILES_LOCKED');
      fs.writeFileSync(`${file}.lock`, `${other.pid} ${host} ${start + 1} deadbeef`);
      const reused = await startWorker(['add', file, 'reused', '1']).exited;
      expect(reused.code, reused.err).toBe(0);
      expect(strictRead(file).profiles.map((p) => p.name)).toEqual(['reused-0']);
    } finally {
      other.kill('SIGKILL');
    }
  });

  it('a data directory other users can write to is refused, naming the fix', async () => {
    const open = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-open-'));
    try {
      fs.chmodSync(open, 0o777);
      const store = new ProfileStore({ file: path.join(open, 'profiles.json'), notice: () => {} });
      const e = await store.add({ name: 'x', host: 'h' }).catch((x) => x);
      expect(e).toMatchObject({ code: 'DATA_DIR_UNSAFE', fix: `chmod 700 ${fs.realpathSync(open)}` });
      expect(fs.readdirSync(open)).toEqual([]);
      fs.chmodSync(open, 0o700);
      await store.add({ name: 'x', host: 'h' });
    } finally {
      fs.rmSync(open, { recursive: true, force: true });
    }
  });

  // Another local user: the data directory is 0700, so they can create nothing in it; the abstract
  // socket name the lock used to be is theirs to take, and must no longer matter.
  it('another local user (nobody) trying to hold the lock has no effect on writes', async () => {
    if (!isRoot) {
      console.log('NOT RUN: running a process as another user (nobody) needs root');
      return;
    }
    const file = path.join(fs.realpathSync(dir), 'other-user.json');
    const oldSocketName = `gpu-desk-lock-${createHash('sha256').update(file).digest('hex').slice(0, 32)}`;
    const attacker = spawn('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', ATTACKER, oldSocketName, `${file}.lock`], { cwd: '/', stdio: ['ignore', 'pipe', 'pipe'] });
    let said = '';
    let err = '';
    attacker.stdout.on('data', (d) => (said += d));
    attacker.stderr.on('data', (d) => (err += d));
    try {
      await waitFor(() => said.includes('\n') || attacker.exitCode !== null, 'the attacker to answer or exit');
      expect(said, err).toContain('{');
      // It really did take what used to block us, and could not make the lock file.
      expect(JSON.parse(said)).toEqual({ uid: 65534, socket: 'held', lockFile: 'EACCES' });
      const w = await startWorker(['add', file, 'mine', '3', '5000']).exited;
      expect(w.code, w.err).toBe(0);
      expect(strictRead(file).profiles.map((p) => p.name)).toEqual(['mine-0', 'mine-1', 'mine-2']);
    } finally {
      attacker.kill('SIGKILL');
    }
  });
});

/** Runs as the other user: holds the old lock socket and tries to create the lock file. */
const ATTACKER = `
const net = require('node:net'), fs = require('node:fs');
const [socketName, lockFile] = process.argv.slice(1);
let lockFileResult = 'created';
try { fs.writeFileSync(lockFile, '1 x - y', { flag: 'wx' }); } catch (e) { lockFileResult = e.code; }
const server = net.createServer();
server.once('error', (e) => { console.log(JSON.stringify({ uid: process.getuid(), socket: e.code, lockFile: lockFileResult })); });
// The old lock was this abstract socket; its leading NUL cannot travel in argv.
server.listen('\\0' + socketName, () => console.log(JSON.stringify({ uid: process.getuid(), socket: 'held', lockFile: lockFileResult })));
setInterval(() => {}, 1 << 30);
`;

describe('crash safety', () => {
  // Generous: each round starts a node process, which takes seconds when the machine is shared.
  it('a writer SIGKILLed at random moments 100 times: the file always parses to one complete write', async () => {
    const file = path.join(dir, 'crash.json');
    const notices: string[] = [];
    const seed = new ProfileStore({ file, notice: (l) => notices.push(l) });
    for (let i = 0; i < 40; i++) await seed.add({ name: `p${i}`, host: `h${i}.example`, port: 1 });
    let last = 1;
    let advanced = 0;
    // 100 rounds: each starts a node process (seconds on a loaded machine); a quarter still kill
    // mid-write, enough to have caught every torn write this store has had.
    const rounds = 100;
    for (let round = 0; round < rounds; round++) {
      // The lock must also survive a holder that died holding it.
      const w = startWorker(['loop', file]);
      await w.ready;
      // Half the kills land right after start (often mid-write); the other half after at least one
      // complete write, so progress is certain however slow a loaded machine makes each write.
      if (round % 4 >= 2) await w.wrote;
      await new Promise((r) => setTimeout(r, Math.random() * 12));
      w.child.kill('SIGKILL');
      const r = await w.exited;
      expect(r.signal, r.err).toBe('SIGKILL');
      const doc = strictRead(file);
      // Each write bumps every profile's port: a mix of old and new would show as two values.
      const ports = new Set(doc.profiles.map((p) => p.port));
      expect(doc.profiles).toHaveLength(40);
      expect(ports.size).toBe(1);
      const now = [...ports][0];
      expect(now).toBeGreaterThanOrEqual(last);
      if (now > last) advanced++;
      last = now;
      // The backup is always a complete earlier version too.
      const bak = strictRead(`${file}.bak`);
      expect(new Set(bak.profiles.map((p) => p.port)).size).toBe(1);
    }
    // Kills landed both between and during writes; the app itself still reads the file cleanly.
    expect(advanced).toBeGreaterThan(rounds / 10);
    expect((await new ProfileStore({ file, notice: (l) => notices.push(l) }).list())).toHaveLength(40);
    expect(notices).toEqual([]);
    await seed.add({ name: 'after', host: 'h' });
    expect(fs.readdirSync(dir).filter((n) => n.startsWith('crash.json.tmp-'))).toEqual([]);
  }, 900_000);
});
