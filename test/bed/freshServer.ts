/**
 * A throwaway server with nothing installed: a Debian 12 root file system made by
 * mmdebstrap, unpacked into a temp dir with /proc and /dev mounted in, and its own sshd started inside
 * it with chroot on a random 127.0.0.1 port. A non-root account with a password and sudo, as on a real
 * server. Everything is torn down at stop(), at process exit and on SIGINT/SIGTERM/SIGHUP: processes
 * whose root is the tree are killed (found through /proc/<pid>/root, the only link every process
 * started inside keeps), mounts come off, and only then is the tree removed. A tree left by a run that
 * was SIGKILLed is swept by the next start.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { shellQuote } from '../../src/core/remote/shellQuote';
import { fingerprintOfPublicKeyLine } from './sshd';
import { freePort, registerCleanup, waitForPort } from './util';

/**
 * Debian 12 only: mmdebstrap builds from this machine's own Debian package sources. An Ubuntu 24.04 root
 * needs Ubuntu's archive and its signing key, which Debian 12 does not ship (tried: mmdebstrap noble
 * stops at apt's NO_PUBKEY 871920D1991BC93C, "the repository is not signed").
 */
export type FreshDistro = 'debian-12';

export interface FreshServer {
  distro: FreshDistro;
  /** The root file system on this machine. */
  root: string;
  host: '127.0.0.1';
  port: number;
  user: string;
  /** The account's login and sudo password (random per server). */
  password: string;
  /** Home of `user` as the server sees it. */
  home: string;
  /** An unencrypted ed25519 key that `user` accepts. */
  userKeyPath: string;
  knownHostsLine: string;
  hostKeyFingerprint: string;
  /**
   * SIGKILL the server's processes with these command names (what a session that dies with its
   * connection does to what it ran). Matched by root directory, so nothing outside the tree is touched.
   */
  killInside(names: string[]): number;
  /** Run a shell command as root inside the server (for the test's own look at it). */
  rootSh(script: string, opts?: { input?: string; allowFail?: boolean }): { code: number; out: string };
  /**
   * The environment of the window manager (by command name) drawing on display :N of a desktop in the
   * server, null while none runs: what every program started from that desktop inherits.
   */
  desktopEnv(display: number, windowManager?: string): string[] | null;
  /** Run a shell command as `user` with exactly this environment (as a program started from the desktop). */
  runAs(env: string[], script: string, opts?: { allowFail?: boolean }): { code: number; out: string };
  stop(): Promise<void>;
}

const CACHE_DIR = process.env.GPU_DESK_BED_CACHE || '/var/cache/gpu-desk-bed';
const TREE_PREFIX = 'gd-freshroot-';
const BASE_PACKAGES = ['openssh-server', 'sudo', 'curl', 'ca-certificates'];
const DEBIAN_SOURCES = '/etc/apt/sources.list.d/debian.sources';

interface Recipe {
  suite: string;
  /** mmdebstrap's mirror arguments: a sources file or a deb822/one-line source. */
  mirrors: () => string[];
  include: string[];
  /** The group whose members may use sudo. */
  sudoGroup: string;
}

const RECIPES: Record<FreshDistro, Recipe> = {
  'debian-12': { suite: 'bookworm', mirrors: () => [DEBIAN_SOURCES], include: BASE_PACKAGES, sudoGroup: 'sudo' },
};

/** The tarball for a recipe, built once and kept under CACHE_DIR, keyed by everything that shapes it. */
export function rootTarball(distro: FreshDistro): string {
  const r = RECIPES[distro];
  const mirrors = r.mirrors();
  const key = createHash('sha256')
    .update(JSON.stringify({ suite: r.suite, include: r.include, mirrors: mirrors.map((m) => (fs.existsSync(m) ? fs.readFileSync(m, 'utf8') : m)) }))
    .digest('hex')
    .slice(0, 16);
  const tar = path.join(CACHE_DIR, `${distro}-${key}.tar`);
  if (fs.existsSync(tar)) return tar;
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  // Built beside the target and renamed: a parallel run or a killed build never leaves half a tarball.
  const tmp = `${tar}.${process.pid}.tmp`;
  try {
    execFileSync('mmdebstrap', ['--quiet', '--format=tar', '--variant=apt', `--include=${r.include.join(',')}`, r.suite, tmp, ...mirrors], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 20 * 60_000 });
    fs.renameSync(tmp, tar);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    const err = e as { stderr?: Buffer };
    throw new Error(`mmdebstrap could not build a ${distro} root: ${err.stderr?.toString().trim().split('\n').slice(-3).join(' | ') ?? String(e)}`);
  }
  return tar;
}

/** Processes whose root directory is `root` or inside it. */
function processesIn(root: string): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const r = fs.readlinkSync(`/proc/${name}/root`);
      if (r === root || r.startsWith(root + '/')) out.push(Number(name));
    } catch { /* gone, or not ours to read */ }
  }
  return out;
}

function killAllIn(root: string): void {
  // A dying parent can fork once more (sshd, dbus): repeat until nothing is left.
  for (let round = 0; round < 50; round++) {
    const pids = processesIn(root);
    if (pids.length === 0) return;
    for (const p of pids) {
      try { process.kill(p, 'SIGKILL'); } catch { /* gone */ }
    }
    execFileSync('sleep', ['0.1']);
  }
  throw new Error(`processes inside ${root} survive SIGKILL: ${processesIn(root).join(' ')}`);
}

/** Mount points at or under `root`, deepest first (mountinfo's 5th field, with octal escapes). */
function mountsUnder(root: string): string[] {
  const text = fs.readFileSync('/proc/self/mountinfo', 'utf8');
  const points = text.split('\n').filter(Boolean)
    .map((l) => l.split(' ')[4].replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))))
    .filter((p) => p === root || p.startsWith(root + '/'));
  return [...new Set(points)].sort((a, b) => b.length - a.length);
}

/** Kill, unmount, verify, remove: never rm -rf a tree that still has a mount in it. */
function teardownTree(root: string): void {
  if (!fs.existsSync(root)) return;
  killAllIn(root);
  for (let round = 0; round < 5; round++) {
    const m = mountsUnder(root);
    if (m.length === 0) break;
    for (const p of m) {
      try { execFileSync('umount', [p], { stdio: 'ignore' }); } catch {
        // Busy: detach it from the tree (the kernel frees it when its last user goes), which is all rm needs.
        try { execFileSync('umount', ['-l', p], { stdio: 'ignore' }); } catch { /* next round */ }
      }
    }
  }
  const left = mountsUnder(root);
  if (left.length > 0) throw new Error(`cannot remove ${root}: still mounted: ${left.join(', ')}`);
  fs.rmSync(root, { recursive: true, force: true });
}

/** Trees of runs that died without cleaning up (their owner pid is gone). */
function sweepStale(): void {
  const base = os.tmpdir();
  for (const name of fs.readdirSync(base)) {
    if (!name.startsWith(TREE_PREFIX)) continue;
    const dir = path.join(base, name);
    let owner = 0;
    try { owner = Number(fs.readFileSync(path.join(dir, '.owner-pid'), 'utf8')); } catch { /* unpacking */ }
    if (!owner) {
      // An unpack in progress writes .owner-pid first; a dir without one older than a minute is stale.
      try { if (Date.now() - fs.statSync(dir).mtimeMs < 60_000) continue; } catch { continue; }
    } else {
      try { process.kill(owner, 0); continue; } catch { /* owner gone */ }
    }
    try { teardownTree(dir); } catch { /* leave it for the next sweep */ }
  }
}

const live = new Set<string>();
let signalsHooked = false;
function hookSignals(): void {
  if (signalsHooked) return;
  signalsHooked = true;
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(sig, () => {
      for (const r of live) {
        try { teardownTree(r); } catch { /* best effort */ }
      }
      process.kill(process.pid, sig);
    });
  }
}

function chrootSh(root: string, script: string, opts: { input?: string; allowFail?: boolean } = {}): { code: number; out: string } {
  try {
    const out = execFileSync('chroot', [root, '/bin/sh', '-c', script], {
      input: opts.input ?? '',
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8', HOME: '/root' },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, out };
  } catch (e) {
    const err = e as { status?: number; stdout?: string; stderr?: string };
    const res = { code: err.status ?? 1, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
    if (!opts.allowFail) throw new Error(`in the fresh server, "${script.slice(0, 80)}" failed (${res.code}): ${res.out.trim().slice(-500)}`);
    return res;
  }
}

/** The apt archive of earlier runs, copied in (apt checks every file against the index, so a stale one is refetched). */
function debCacheDir(distro: FreshDistro): string {
  return path.join(CACHE_DIR, 'debs', distro);
}

function copyDebs(from: string, to: string): void {
  if (!fs.existsSync(from)) return;
  fs.mkdirSync(to, { recursive: true });
  for (const f of fs.readdirSync(from)) {
    if (!f.endsWith('.deb') || fs.existsSync(path.join(to, f))) continue;
    // Written under a temp name and renamed, so a parallel reader never sees half a package.
    const tmp = path.join(to, `.${f}.${process.pid}`);
    fs.copyFileSync(path.join(from, f), tmp);
    fs.renameSync(tmp, path.join(to, f));
  }
}

export interface FreshServerOptions {
  distro?: FreshDistro;
  /** Reuse apt's downloaded packages across runs (default true): the plan still downloads nothing it needs twice. */
  aptCache?: boolean;
}

export async function startFreshServer(opts: FreshServerOptions = {}): Promise<FreshServer> {
  const distro = opts.distro ?? 'debian-12';
  sweepStale();
  const tarball = rootTarball(distro);
  const root = fs.mkdtempSync(path.join(os.tmpdir(), TREE_PREFIX));
  fs.writeFileSync(path.join(root, '.owner-pid'), String(process.pid));
  live.add(root);
  hookSignals();
  let sshd: ChildProcess | null = null;
  const aptArchives = path.join(root, 'var/cache/apt/archives');
  let stopped = false;
  const teardown = () => {
    if (stopped) return;
    stopped = true;
    try {
      if (opts.aptCache !== false) copyDebs(aptArchives, debCacheDir(distro));
    } catch { /* the cache is an optimisation */ }
    teardownTree(root);
    live.delete(root);
  };
  registerCleanup(async () => teardown(), () => { try { teardown(); } catch { /* at exit */ } });

  execFileSync('tar', ['-xf', tarball, '-C', root, '--numeric-owner']);
  fs.copyFileSync('/etc/resolv.conf', path.join(root, 'etc/resolv.conf'));
  // The tree shares this machine's host name; Debian's installer writes /etc/hosts with it (the
  // tarball has none), and without it every sudo prints "unable to resolve host" into the plan's output.
  fs.writeFileSync(path.join(root, 'etc/hosts'), `127.0.0.1\tlocalhost\n127.0.1.1\t${os.hostname()}\n::1\tlocalhost ip6-localhost ip6-loopback\n`);
  // The tree shares this machine's network and process table: a daemon that a package's maintainer
  // script starts (dbus, ssh on port 22) would bind this machine's ports. Containers do the same.
  fs.writeFileSync(path.join(root, 'usr/sbin/policy-rc.d'), '#!/bin/sh\nexit 101\n', { mode: 0o755 });
  // What Debian's container images set: no fsync per file (the tree is thrown away) and no manuals,
  // docs or translations (man-db's trigger alone costs a minute on 2 cores). Package states,
  // maintainer scripts and dependencies are untouched: the plan meets the same dpkg as on a server.
  fs.writeFileSync(path.join(root, 'etc/dpkg/dpkg.cfg.d/gpu-desk-bed'), [
    'force-unsafe-io',
    'path-exclude=/usr/share/man/*', 'path-exclude=/usr/share/doc/*', 'path-include=/usr/share/doc/*/copyright',
    'path-exclude=/usr/share/locale/*', 'path-exclude=/usr/share/info/*',
  ].join('\n') + '\n');
  if (opts.aptCache !== false) copyDebs(debCacheDir(distro), aptArchives);

  execFileSync('mount', ['-t', 'proc', 'proc', path.join(root, 'proc')]);
  execFileSync('mount', ['--bind', '/dev', path.join(root, 'dev')]);
  execFileSync('mount', ['--bind', '/dev/pts', path.join(root, 'dev/pts')]);

  const user = 'desk';
  const password = `fresh-${randomBytes(9).toString('base64url')}`;
  const r = RECIPES[distro];
  chrootSh(root, `id -u ${user} >/dev/null 2>&1 || useradd -m -s /bin/bash -G ${r.sudoGroup} ${user}; chpasswd`, { input: `${user}:${password}\n` });
  const home = `/home/${user}`;

  const keyDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-freshkey-'));
  registerCleanup(() => fs.rmSync(keyDir, { recursive: true, force: true }), () => fs.rmSync(keyDir, { recursive: true, force: true }));
  const userKeyPath = path.join(keyDir, 'id_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'fresh-bed', '-f', userKeyPath], { stdio: 'ignore' });
  chrootSh(root, `install -d -m 700 -o ${user} -g ${user} ${home}/.ssh && cat > ${home}/.ssh/authorized_keys && chown ${user}: ${home}/.ssh/authorized_keys`, {
    input: fs.readFileSync(userKeyPath + '.pub', 'utf8'),
  });
  // The tarball is cached, so its host keys would be the same every run: make new ones.
  chrootSh(root, 'rm -f /etc/ssh/ssh_host_* && ssh-keygen -A >/dev/null && mkdir -p /run/sshd');
  const pub = fs.readFileSync(path.join(root, 'etc/ssh/ssh_host_ed25519_key.pub'), 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');

  const port = await freePort();
  const startSshd = async () => {
    const log = fs.openSync(path.join(root, 'var/log/gd-bed-sshd.log'), 'a');
    sshd = spawn('chroot', [root, '/usr/sbin/sshd', '-D', '-e', '-p', String(port), '-o', 'ListenAddress=127.0.0.1', '-o', 'PidFile=none', '-o', 'MaxStartups=100'], {
      stdio: ['ignore', log, log],
      detached: true,
      env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' },
    });
    fs.closeSync(log);
    const p = sshd;
    const exited = new Promise<never>((_, reject) => p.once('exit', (code) => {
      let log = '';
      try { log = fs.readFileSync(path.join(root, 'var/log/gd-bed-sshd.log'), 'utf8').trim().split('\n').slice(-3).join(' | '); } catch { /* torn down */ }
      reject(new Error(`the fresh server's sshd exited (${code}): ${log}`));
    }));
    exited.catch(() => {});
    await Promise.race([waitForPort(port, 20_000), exited]);
  };
  await startSshd();

  return {
    distro,
    root,
    host: '127.0.0.1',
    port,
    user,
    password,
    home,
    userKeyPath,
    knownHostsLine: `[127.0.0.1]:${port} ${pub}`,
    hostKeyFingerprint: fingerprintOfPublicKeyLine(pub),
    rootSh: (script, o) => chrootSh(root, script, o),
    killInside: (names) => {
      let n = 0;
      for (const pid of processesIn(root)) {
        let comm = '';
        try { comm = fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim(); } catch { continue; }
        if (!names.includes(comm)) continue;
        try { process.kill(pid, 'SIGKILL'); n++; } catch { /* gone */ }
      }
      return n;
    },
    desktopEnv: (display, windowManager = 'openbox') => {
      for (const pid of processesIn(root)) {
        try {
          if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== windowManager) continue;
          const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
          if (env.includes(`DISPLAY=:${display}`)) return env;
        } catch { /* gone */ }
      }
      return null;
    },
    runAs: (env, script, o) => chrootSh(root, `runuser -u ${user} -- env -i ${env.map(shellQuote).join(' ')} /bin/sh -c ${shellQuote(script)}`, o),
    stop: async () => teardown(),
  };
}
