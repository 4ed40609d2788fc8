import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { DISPLAY_TAKEN_SH, PICK_DISPLAY_SH } from '../../../src/core/remote/displayPick';

// The server-side shell text, run by the real /bin/sh with HOME on a temp dir standing for the account's ~/.vnc.
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-display-pick-'));
const vnc = path.join(home, '.vnc');
fs.mkdirSync(vnc);
const sh = (script: string, ...args: string[]) => execFileSync('sh', ['-c', script, 'sh', ...args], { env: { ...process.env, HOME: home } }).toString().trim();
const isTaken = (n: number) => sh(`${DISPLAY_TAKEN_SH}\ntaken "$1" && echo taken || echo free`, String(n));
/** Displays with no X server on this machine right now: the only ones a verdict here is about. */
const noX = (n: number) => !fs.existsSync(`/tmp/.X${n}-lock`) && !fs.existsSync(`/tmp/.X11-unix/X${n}`);
const quietDisplays = () => Array.from({ length: 60 }, (_, i) => 30 + i).filter(noX);
/** A pid no process has: one that just ran and was reaped. */
const deadPid = () => Number(execFileSync('sh', ['-c', 'sh -c "echo \\$\\$"']).toString().trim());
const live = spawn('sleep', ['600'], { stdio: 'ignore' });

afterAll(() => {
  live.kill('SIGKILL');
  fs.rmSync(home, { recursive: true, force: true });
});

describe('which display a new session may take (shell text shared by every start)', () => {
  it('a wrapper pid file of a live process takes its display; one left by a dead process does not', () => {
    const [a, b] = quietDisplays();
    fs.writeFileSync(path.join(vnc, `${os.hostname()}:${a}.pid`), `${live.pid}\n`);
    fs.writeFileSync(path.join(vnc, `${os.hostname()}:${b}.pid`), `${deadPid()}\n`);
    expect(isTaken(a)).toBe('taken');
    expect(isTaken(b)).toBe('free');
  });

  it('another host\'s file in a shared home counts by its pid too, and garbage in a pid file counts as nothing', () => {
    const [, , c, d] = quietDisplays();
    fs.writeFileSync(path.join(vnc, `node17.cluster:${c}.pid`), `${deadPid()}\n`);
    fs.writeFileSync(path.join(vnc, `${os.hostname()}:${d}.pid`), 'not a pid\n');
    expect(isTaken(c)).toBe('free');
    expect(isTaken(d)).toBe('free');
  });

  it('a display whose VNC or X port something listens on, or whose abstract X socket is bound, is taken (TurboVNC would refuse it)', async () => {
    const listen = (where: number | string) => new Promise<net.Server | null>((resolve) => {
      const srv = net.createServer();
      srv.once('error', () => resolve(null));
      if (typeof where === 'number') srv.listen(where, '127.0.0.1', () => resolve(srv));
      else srv.listen(where, () => resolve(srv));
    });
    const servers: net.Server[] = [];
    try {
      // Each on a display with no X server here whose port or socket this test could take (other
      // test runs on this machine may hold some).
      const kinds: [string, (n: number) => number | string][] = [
        ['VNC port', (n) => 5900 + n],
        ['X port', (n) => 6000 + n],
        ['abstract X socket', (n) => `\0/tmp/.X11-unix/X${n}`],
      ];
      let candidates = quietDisplays().slice(4);
      for (const [kind, where] of kinds) {
        let held: number | null = null;
        for (const n of candidates) {
          const srv = await listen(where(n));
          if (!srv) continue;
          servers.push(srv);
          held = n;
          break;
        }
        expect(held, `a display whose ${kind} this test could hold`).not.toBeNull();
        expect(isTaken(held!), kind).toBe('taken');
        candidates = candidates.filter((n) => n !== held);
      }
    } finally {
      for (const srv of servers) srv.close();
    }
  });

  it('a hundred stale pid files (jobs killed after KillWait) still leave a display to start on', () => {
    for (let n = 1; n <= 99; n++) fs.writeFileSync(path.join(vnc, `${os.hostname()}:${n}.pid`), `${deadPid()}\n`);
    // Counting them, the pick ended in "No free display between :1 and :99" (sh exits 1, execFileSync throws).
    const picked = Number(sh(`n=""; min=1\n${PICK_DISPLAY_SH}\necho "$n"`));
    expect(picked).toBeGreaterThanOrEqual(1);
    expect(picked).toBeLessThanOrEqual(99);
  });
});
