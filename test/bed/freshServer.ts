/**
 * A throwaway server with nothing installed: a Debian 12 root file system made by
 * mmdebstrap, unpacked into a temp dir with /proc and /dev mounted in, and its own sshd started inside
 * it with chroot on a random 127.0.0.1 port. A non-root account with a password and sudo, as on a real
 * server; or (account: 'no-sudo') one that is in no administrator's group, on a server whose
 * administrator installed only a GPU driver (packages: 'gpu-driver'); or (network: 'isolated') with its
 * sshd in a network namespace of its own that has no route out, reached over a veth pair. Everything is torn down at stop(), at process exit and on SIGINT/SIGTERM/SIGHUP: processes
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
  /** 127.0.0.1, or the server's end of the veth pair when its network is isolated. */
  host: string;
  /** Whether the account may use sudo. */
  sudo: boolean;
  /** The network namespace the sshd runs in (network: 'isolated'), else null. */
  netns: string | null;
  /** This machine's end of the veth pair (network: 'isolated'): its counters are every byte the server sent or got. */
  veth: string | null;
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
  /**
   * Every file, directory and link of the root outside the user's home and the kernel's and the
   * runtime's own trees, with what a change would alter (type, mode, owner, size, mtime, link target).
   * Compare one taken before with one taken after to prove that nothing outside the home changed.
   */
  listing(): Map<string, string>;
  stop(): Promise<void>;
}

const CACHE_DIR = process.env.GPU_DESK_BED_CACHE || '/var/cache/gpu-desk-bed';
const TREE_PREFIX = 'gd-freshroot-';
const BASE_PACKAGES = ['openssh-server', 'sudo', 'curl', 'ca-certificates'];
/**
 * What an administrator who installed only a GPU driver leaves on a server (Mesa stands for it here):
 * the EGL/GL/GBM libraries and the Vulkan drivers with their loader, nothing of X, VNC or VirtualGL.
 */
export const GPU_DRIVER_PACKAGES = ['libegl1', 'libgl1', 'libegl-mesa0', 'libglx-mesa0', 'libgl1-mesa-dri', 'libgbm1', 'libvulkan1', 'mesa-vulkan-drivers'];
export type FreshPackages = 'bare' | 'gpu-driver';
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
export function rootTarball(distro: FreshDistro, packages: FreshPackages = 'bare'): string {
  const r = RECIPES[distro];
  const mirrors = r.mirrors();
  const include = packages === 'gpu-driver' ? [...r.include, ...GPU_DRIVER_PACKAGES] : r.include;
  // The bare recipe's key is what it was before the GPU-driver variant existed: its cached tarball stays good.
  const shape = packages === 'gpu-driver' ? { suite: r.suite, include, mirrors: [] as string[] } : { suite: r.suite, include: r.include, mirrors: [] as string[] };
  const key = createHash('sha256')
    .update(JSON.stringify({ ...shape, mirrors: mirrors.map((m) => (fs.existsSync(m) ? fs.readFileSync(m, 'utf8') : m)) }))
    .digest('hex')
    .slice(0, 16);
  const tar = path.join(CACHE_DIR, `${distro}${packages === 'bare' ? '' : `-${packages}`}-${key}.tar`);
  if (fs.existsSync(tar)) return tar;
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  // Built beside the target and renamed: a parallel run or a killed build never leaves half a tarball.
  const tmp = `${tar}.${process.pid}.tmp`;
  try {
    execFileSync('mmdebstrap', ['--quiet', '--format=tar', '--variant=apt', `--include=${include.join(',')}`, r.suite, tmp, ...mirrors], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 20 * 60_000 });
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
    let netns = '';
    try { netns = fs.readFileSync(path.join(dir, '.netns'), 'utf8').trim(); } catch { /* not isolated */ }
    try { teardownTree(dir); } catch { /* leave it for the next sweep */ }
    // Its network namespace (and so its veth pair) goes with it.
    if (/^gd-fresh-\d+$/.test(netns)) try { execFileSync('ip', ['netns', 'del', netns], { stdio: 'ignore' }); } catch { /* gone */ }
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

/**
 * A shell in the tree. With `netns` (an isolated server) it runs in the server's network namespace: an
 * X client started here must reach the desktop's Xvnc there, not an abstract socket of the same display
 * number that another X server on this machine holds (abstract sockets are per network namespace).
 */
function chrootSh(root: string, script: string, opts: { input?: string; allowFail?: boolean; netns?: string | null } = {}): { code: number; out: string } {
  try {
    const argv = ['chroot', root, '/bin/sh', '-c', script];
    const out = execFileSync(opts.netns ? 'ip' : argv[0], opts.netns ? ['netns', 'exec', opts.netns, ...argv] : argv.slice(1), {
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
  /** 'sudo' (default): the account is in the sudo group. 'no-sudo': in no administrator's group, as on a shared server. */
  account?: 'sudo' | 'no-sudo';
  /** 'bare' (default): nothing but sshd, sudo, curl. 'gpu-driver': and what an administrator's GPU driver brings (GPU_DRIVER_PACKAGES). */
  packages?: FreshPackages;
  /**
   * 'host' (default): the server shares this machine's network (its sshd on a 127.0.0.1 port).
   * 'isolated': its sshd runs in a network namespace of the bed's own, joined to this machine by a veth
   * pair and nothing else: no default route, no name server, so neither the package mirror on this
   * machine's loopback nor any site outside can be reached from the server. Only the desk reaches it.
   */
  network?: 'host' | 'isolated';
  /**
   * A /dev of the server's own (a tmpfs with this machine's null, zero, random, tty and pts in it)
   * holding these GPU device nodes, as a server whose driver made them for a group. This machine has no
   * GPU, so a node that exists only to be found and refused: without it the server sees this machine's /dev.
   */
  gpuNodes?: { path: string; major: number; minor: number; group: string; mode: number }[];
}

/** The nodes of this machine's /dev that a program expects (bound in one by one into a private /dev). */
const DEV_FILES = ['null', 'zero', 'full', 'random', 'urandom', 'tty'];

function mountPrivateDev(root: string, nodes: NonNullable<FreshServerOptions['gpuNodes']>): void {
  const dev = path.join(root, 'dev');
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'mode=755,nosuid', 'gd-dev', dev]);
  for (const f of DEV_FILES) {
    fs.writeFileSync(path.join(dev, f), '');
    execFileSync('mount', ['--bind', `/dev/${f}`, path.join(dev, f)]);
  }
  for (const d of ['pts', 'shm']) fs.mkdirSync(path.join(dev, d));
  execFileSync('mount', ['--bind', '/dev/pts', path.join(dev, 'pts')]);
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'mode=1777,nosuid,nodev', 'gd-shm', path.join(dev, 'shm')]);
  fs.symlinkSync('pts/ptmx', path.join(dev, 'ptmx'));
  fs.symlinkSync('/proc/self/fd', path.join(dev, 'fd'));
  ['stdin', 'stdout', 'stderr'].forEach((n, i) => fs.symlinkSync(`/proc/self/fd/${i}`, path.join(dev, n)));
  for (const n of nodes) {
    const group = shellQuote(n.group);
    // The group as a driver's udev rule names it; the account is not in it.
    chrootSh(root, `getent group ${group} >/dev/null || groupadd -r ${group}; mkdir -p ${shellQuote(path.posix.dirname(n.path))}; mknod -m ${n.mode.toString(8)} ${shellQuote(n.path)} c ${n.major} ${n.minor}; chgrp ${group} ${shellQuote(n.path)}`);
  }
}

/** Paths of the root that the listing leaves out, and why: none of them is where an install puts files. */
const UNLISTED = [
  '/proc', '/sys', '/dev', // the kernel's
  '/run', // runtime state: sshd's privilege-separation directory and the like
  '/var/log', // sshd and login record every login here (wtmp, lastlog, btmp) and the bed logs sshd's output
];
/** What an X server creates in /tmp wherever it runs (its socket directory and lock files): no install's files. */
const X_RUNTIME_IN_TMP = /^\/tmp\/(\.X11-unix|\.ICE-unix|\.XIM-unix|\.font-unix|\.X\d+-lock)(\/|$)/;

function listRoot(root: string, home: string): Map<string, string> {
  const out = new Map<string, string>();
  const skip = new Set([...UNLISTED, home, '/.owner-pid', '/.netns']);
  const walk = (rel: string) => {
    for (const name of fs.readdirSync(path.join(root, rel))) {
      const p = `${rel === '/' ? '' : rel}/${name}`;
      if (skip.has(p) || X_RUNTIME_IN_TMP.test(p)) continue;
      const full = path.join(root, p);
      const st = fs.lstatSync(full);
      const kind = st.isSymbolicLink() ? `link->${fs.readlinkSync(full)}` : st.isDirectory() ? 'dir' : st.isFile() ? `file ${st.size}` : 'special';
      // A directory's mtime changes when an entry is added or removed, which the entry itself shows.
      out.set(p, `${kind} mode=${(st.mode & 0o7777).toString(8)} owner=${st.uid}:${st.gid}${st.isDirectory() ? '' : ` mtime=${st.mtimeMs}`}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk('/');
  return out;
}

/** What differs between two listings, one line a path: '+' added, '-' removed, '~' changed (before → after). */
export function listingChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [p, v] of after) {
    const was = before.get(p);
    if (was === undefined) out.push(`+ ${p} (${v})`);
    else if (was !== v) out.push(`~ ${p} (${was} → ${v})`);
  }
  for (const p of before.keys()) if (!after.has(p)) out.push(`- ${p}`);
  return out.sort();
}

/**
 * A network namespace with only a veth pair to this machine: the server's end gets `inside`, this
 * machine's end `outside`, both in a /30 of 10.213.x.y that nothing else here uses; the namespace has no
 * default route. Removed with the namespace (which takes its end of the pair, and so the pair, with it).
 */
function makeIsolatedNetwork(): { name: string; inside: string; outside: string; hostIf: string; remove(): void } {
  const ip = (args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  for (let attempt = 0; attempt < 20; attempt++) {
    const n = randomBytes(2).readUInt16BE(0) & 0x3fff; // 16384 /30 subnets in 10.213.0.0/16
    const base = n * 4;
    const net = `10.213.${base >> 8}.${base & 0xff}`.split('.').map(Number);
    const addr = (k: number) => `${net[0]}.${net[1]}.${net[2]}.${net[3] + k}`;
    const name = `gd-fresh-${n}`;
    const hostIf = `gdh${n}`;
    const nsIf = `gdn${n}`;
    const inUse = execFileSync('ip', ['-o', 'addr'], { encoding: 'utf8' }).includes(` ${addr(1)}/`) || fs.existsSync(`/run/netns/${name}`);
    if (inUse) continue;
    ip(['netns', 'add', name]);
    const remove = () => {
      try { ip(['netns', 'del', name]); } catch { /* gone */ }
      try { ip(['link', 'del', hostIf]); } catch { /* went with the namespace */ }
    };
    try {
      ip(['link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf]);
      ip(['link', 'set', nsIf, 'netns', name]);
      ip(['addr', 'add', `${addr(1)}/30`, 'dev', hostIf]);
      ip(['link', 'set', hostIf, 'up']);
      ip(['netns', 'exec', name, 'ip', 'addr', 'add', `${addr(2)}/30`, 'dev', nsIf]);
      ip(['netns', 'exec', name, 'ip', 'link', 'set', nsIf, 'up']);
      ip(['netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up']);
    } catch (e) {
      remove();
      throw new Error(`cannot make the isolated server's network namespace ${name}: ${(e as { stderr?: Buffer }).stderr?.toString().trim() ?? String(e)}`);
    }
    return { name, inside: addr(2), outside: addr(1), hostIf, remove };
  }
  throw new Error('no free 10.213.x.y/30 subnet for the isolated server');
}

export async function startFreshServer(opts: FreshServerOptions = {}): Promise<FreshServer> {
  const distro = opts.distro ?? 'debian-12';
  const sudo = (opts.account ?? 'sudo') === 'sudo';
  sweepStale();
  const tarball = rootTarball(distro, opts.packages ?? 'bare');
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
    isolated?.remove();
  };
  let isolated: ReturnType<typeof makeIsolatedNetwork> | null = null;
  registerCleanup(async () => teardown(), () => { try { teardown(); } catch { /* at exit */ } });

  execFileSync('tar', ['-xf', tarball, '-C', root, '--numeric-owner']);
  // An isolated server has no name server either: nothing outside resolves, as on a network with no way out.
  if (opts.network === 'isolated') fs.writeFileSync(path.join(root, 'etc/resolv.conf'), '');
  else fs.copyFileSync('/etc/resolv.conf', path.join(root, 'etc/resolv.conf'));
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
  if (opts.gpuNodes) mountPrivateDev(root, opts.gpuNodes);
  else {
    execFileSync('mount', ['--bind', '/dev', path.join(root, 'dev')]);
    execFileSync('mount', ['--bind', '/dev/pts', path.join(root, 'dev/pts')]);
  }

  const user = 'desk';
  const password = `fresh-${randomBytes(9).toString('base64url')}`;
  const r = RECIPES[distro];
  const groups = sudo ? `-G ${r.sudoGroup} ` : '';
  chrootSh(root, `id -u ${user} >/dev/null 2>&1 || useradd -m -s /bin/bash ${groups}${user}; chpasswd`, { input: `${user}:${password}\n` });
  if (!sudo) {
    // No sudo: in no group that sudoers names, and sudo itself says so (checked here, so a test never rests on a bed that lies).
    const s = chrootSh(root, `runuser -u ${user} -- sudo -n -l 2>&1`, { allowFail: true });
    if (s.code === 0) throw new Error(`the fresh server's account ${user} was to have no sudo, but sudo -l says: ${s.out.trim()}`);
  }
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

  if (opts.network === 'isolated') {
    isolated = makeIsolatedNetwork();
    // For the sweep of a run killed before its teardown (the namespace outlives the tree otherwise).
    fs.writeFileSync(path.join(root, '.netns'), isolated.name);
  }
  const host = isolated?.inside ?? '127.0.0.1';
  // In its own namespace the address is the server's own: any port is free there.
  const port = isolated ? 22 : await freePort();
  const startSshd = async () => {
    const log = fs.openSync(path.join(root, 'var/log/gd-bed-sshd.log'), 'a');
    const sshdArgs = [root, '/usr/sbin/sshd', '-D', '-e', '-p', String(port), '-o', `ListenAddress=${host}`, '-o', 'PidFile=none', '-o', 'MaxStartups=100'];
    sshd = spawn(isolated ? 'ip' : 'chroot', isolated ? ['netns', 'exec', isolated.name, 'chroot', ...sshdArgs] : sshdArgs, {
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
    await Promise.race([waitForPort(port, 20_000, host), exited]);
  };
  await startSshd();

  return {
    distro,
    root,
    host,
    sudo,
    netns: isolated?.name ?? null,
    veth: isolated?.hostIf ?? null,
    port,
    user,
    password,
    home,
    userKeyPath,
    knownHostsLine: port === 22 ? `${host} ${pub}` : `[${host}]:${port} ${pub}`,
    hostKeyFingerprint: fingerprintOfPublicKeyLine(pub),
    rootSh: (script, o) => chrootSh(root, script, { ...o, netns: isolated?.name }),
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
    runAs: (env, script, o) => chrootSh(root, `runuser -u ${user} -- env -i ${env.map(shellQuote).join(' ')} /bin/sh -c ${shellQuote(script)}`, { ...o, netns: isolated?.name }),
    listing: () => listRoot(root, home),
    stop: async () => teardown(),
  };
}
