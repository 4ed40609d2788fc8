import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fingerprintOfPublicKeyLine, BED_PASSWORD, BED_USER, isRoot, ensureBedAccount } from './sshd';
import type { ConnectOptions } from '../../src/core/ssh/types';
import { freePort, waitForPort, makeTempDir, registerCleanup, signalGroup } from './util';

/**
 * Dropbear (Debian's dropbear-bin) on loopback: the small SSH server of routers, containers and some
 * clusters' login nodes. It differs from OpenSSH where gpu-desk used to rely on it: a command line
 * longer than 9000 bytes ends the connection, and it has no Unix-socket (stream-local) forwarding.
 * It reads only ~/.ssh/authorized_keys, so the bed logs in with the bed account's password instead of
 * touching a home directory other tests share; it needs root, as any server that switches users does.
 */
export interface DropbearBed {
  host: '127.0.0.1';
  port: number;
  user: string;
  password: string;
  /** "[127.0.0.1]:port ssh-ed25519 AAAA…" */
  knownHostsLine: string;
  hostKeyFingerprint: string;
  logPath: string;
  /** Everything Dropbear logged so far (it logs to stderr with -E). */
  log(): string;
  stop(): Promise<void>;
}

export interface DropbearOptions {
  /** -j: refuse local port forwarding (direct-tcpip), as `ssh -L` to such a server sees. */
  noLocalForwarding?: boolean;
}

export async function startDropbear(opts: DropbearOptions = {}): Promise<DropbearBed> {
  if (!isRoot) throw new Error('The Dropbear bed needs root: Dropbear switches to the bed account and checks its password in /etc/shadow');
  if (!fs.existsSync('/usr/sbin/dropbear')) throw new Error('dropbear is not installed: apt-get install dropbear-bin (.ci/run installs it)');
  const { user } = ensureBedAccount();
  const dir = makeTempDir('gd-dropbear-');
  const hostKeyPath = path.join(dir, 'dropbear_ed25519_host_key');
  execFileSync('dropbearkey', ['-t', 'ed25519', '-f', hostKeyPath], { stdio: 'ignore' });
  const pub = execFileSync('dropbearkey', ['-y', '-f', hostKeyPath]).toString().split('\n').find((l) => l.startsWith('ssh-ed25519 '))!.split(/\s+/).slice(0, 2).join(' ');
  const port = await freePort();
  const logPath = path.join(dir, 'dropbear.log');
  const logFd = fs.openSync(logPath, 'a');
  const args = ['-F', '-E', '-m', '-p', `127.0.0.1:${port}`, '-r', hostKeyPath, '-P', path.join(dir, 'dropbear.pid'), ...(opts.noLocalForwarding ? ['-j'] : [])];
  const proc: ChildProcess = spawn('/usr/sbin/dropbear', args, { stdio: ['ignore', logFd, logFd], detached: true });
  fs.closeSync(logFd);
  const exited = new Promise<never>((_, reject) => proc.once('exit', (code) => reject(new Error(`dropbear exited (${code}): ${readLog(logPath)}`))));
  exited.catch(() => {});
  await Promise.race([waitForPort(port, 10_000), exited]);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    // Dropbear forks one child per connection into its own group: end the listener's group, then the children by their ppid.
    const gone = new Promise((r) => (proc.exitCode !== null || proc.signalCode !== null ? r(null) : proc.once('exit', r)));
    try { execFileSync('pkill', ['-KILL', '-P', String(proc.pid)], { stdio: 'ignore' }); } catch { /* no connection left */ }
    signalGroup(proc, 'SIGKILL');
    await gone;
    fs.rmSync(dir, { recursive: true, force: true });
  };
  registerCleanup(stop, () => {
    try { execFileSync('pkill', ['-KILL', '-P', String(proc.pid)], { stdio: 'ignore' }); } catch { /* none */ }
    signalGroup(proc, 'SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    host: '127.0.0.1',
    port,
    user: user ?? BED_USER,
    password: BED_PASSWORD,
    knownHostsLine: `[127.0.0.1]:${port} ${pub}`,
    hostKeyFingerprint: fingerprintOfPublicKeyLine(pub),
    logPath,
    log: () => readLog(logPath),
    stop,
  };
}

/** Connection options for the bed: its account's password, and known-hosts files of the test's own. */
export function dropbearOptions(b: DropbearBed, extra: Partial<ConnectOptions> = {}): ConnectOptions {
  return {
    destination: `${b.user}@127.0.0.1`,
    port: b.port,
    password: b.password,
    identityFiles: [],
    sshConfigPath: null,
    userKnownHostsFiles: [],
    globalKnownHostsFiles: [],
    appKnownHostsFile: path.join(makeTempDir('gd-client-'), 'known_hosts'),
    agent: false,
    reconnect: { enabled: false },
    callbacks: { onUnknownHostKey: async () => 'accept-once' },
    ...extra,
  };
}

function readLog(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '(no log)';
  }
}
