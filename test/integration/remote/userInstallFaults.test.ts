/**
 * Issue 42, bad input and faults of the install into the home: a home that is full (or over its quota)
 * and a home mounted noexec. The real CLI applies the no-root plan on a fresh Debian 12 server
 * (test/bed/freshServer.ts, an account without sudo); the fault is a real tmpfs mounted over the
 * account's ~/.local/share inside the server (a few MB, or noexec). The first step must stop with one
 * line naming the cause and the fix, and leave nothing half-installed: no `current` link, no versioned
 * directory. The full install after a fault is userInstall.test.ts's (minutes of downloads), not repeated here.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, isRoot, makeTempDir, startFreshServer, startPackageMirror, type FreshServer, type PackageMirror } from '../../bed';
import { applyEvents, deskCli, type DeskCli } from '../../bed/userDesk';

const NAME = 'turbovnc-3.3_virtualgl-3.1.4';
const BASE = '.local/share/gpu-desk';
const SETUP_MS = 15 * 60_000;

let server: FreshServer;
let mirror: PackageMirror;
let desk: DeskCli;

if (!isRoot) console.log('userInstallFaults.test.ts: not running as root, so no chroot server can be made; these tests cannot run here');

/** The account's ~/.local/share, as a path on this machine (the fault is mounted there). */
const shareDir = () => path.join(server.root, server.home, '.local/share');

/** Mounts a tmpfs the account owns over ~/.local/share with `opts`, runs `fn`, and unmounts it whatever happens. */
async function withMount<T>(opts: string, fn: () => Promise<T>): Promise<T> {
  const ids = server.rootSh(`id -u ${server.user}; id -g ${server.user}`).out.trim().split('\n');
  server.runAs([`HOME=${server.home}`], 'mkdir -p "$HOME/.local/share"');
  execFileSync('mount', ['-t', 'tmpfs', '-o', `${opts},mode=0755,uid=${ids[0]},gid=${ids[1]}`, 'gd-fault', shareDir()]);
  try {
    return await fn();
  } finally {
    execFileSync('umount', [shareDir()]);
  }
}

/** The apply stops in its first step with exactly one error line; nothing of the install is left. */
async function applyStops(): Promise<string> {
  const r = await desk.run(['setup', '--apply', '--yes', '--json', '--packages-from', mirror.url]);
  const ev = applyEvents(r.stdout);
  const said = `${r.stderr}\n${ev.filter((e) => e.type === 'output').map((e) => e.text).join('\n')}`;
  expect(r.code, said).toBe(1);
  expect(ev.filter((e) => e.type === 'step-failed').map((e) => e.stepId), said).toEqual(['user-turbovnc']);
  expect(ev.filter((e) => e.type === 'step-done'), said).toEqual([]);
  const errors = r.stderr.trim().split('\n').filter((l) => l.startsWith('error:'));
  expect(errors, said).toHaveLength(1);
  // Read while the fault is still mounted: this is what the account sees.
  const base = path.join(shareDir(), 'gpu-desk');
  expect(fs.existsSync(path.join(base, 'current'))).toBe(false);
  expect(fs.existsSync(path.join(base, NAME))).toBe(false);
  expect(fs.existsSync(base) ? fs.readdirSync(base) : []).toEqual([]);
  return errors[0];
}

describe.runIf(isRoot)('install into the home: a full home and a noexec home stop the first step with one line, nothing half-installed', () => {
  beforeAll(async () => {
    [server, mirror] = await Promise.all([startFreshServer({ account: 'no-sudo', packages: 'gpu-driver' }), startPackageMirror()]);
    desk = deskCli(server, makeTempDir('gd-userfaults-'));
  }, SETUP_MS);
  afterAll(cleanupAll, 120_000);

  it('a home with 4 MB free (a full disk or quota): names the space free and needed, and says to free space', async () => {
    const line = await withMount('size=4m', applyStops);
    expect(line).toMatch(new RegExp(`only \\d+ MB free in \\S*/${BASE}, \\d+ MB needed: nothing was installed; free space \\(or ask for a larger quota\\)`));
  }, SETUP_MS);

  it('a home mounted noexec: says programs cannot run there and to ask for a home without noexec', async () => {
    const line = await withMount('size=512m,noexec', applyStops);
    expect(line).toMatch(new RegExp(`programs cannot run from \\S*/${BASE} \\(your home is mounted noexec, or full\\): nothing was installed; ask the administrator for a home without noexec`));
  }, SETUP_MS);
});
