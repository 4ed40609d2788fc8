import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../src/core/profiles/profileStore';
import { storeDocSchema } from '../../../src/core/profiles/schema';
import { bundleWorker } from '../../helpers/profiles/bundle';

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

for (const lock of ['socket', 'file'] as const) {
  describe(`profiles file with ${lock} lock`, () => {
    it('two processes adding 100 profiles each at once: all 200 present', async () => {
      const file = path.join(dir, `race-${lock}.json`);
      const a = startWorker(['add', file, lock, 'a', '100']);
      const b = startWorker(['add', file, lock, 'b', '100']);
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
  });
}

describe('crash safety', () => {
  it('a writer SIGKILLed at random moments 200 times: the file always parses to one complete write', async () => {
    const file = path.join(dir, 'crash.json');
    const notices: string[] = [];
    const seed = new ProfileStore({ file, notice: (l) => notices.push(l) });
    for (let i = 0; i < 40; i++) await seed.add({ name: `p${i}`, host: `h${i}.example`, port: 1 });
    let last = 1;
    let advanced = 0;
    const rounds = 200;
    for (let round = 0; round < rounds; round++) {
      // Both lock kinds must also survive a holder that died holding them.
      const w = startWorker(['loop', file, round % 2 ? 'file' : 'socket']);
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
  }, 180_000);
});
