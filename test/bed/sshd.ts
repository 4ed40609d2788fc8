import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort, waitForPort, makeTempDir, registerCleanup, killTree } from './util';

/** The account tests log in as when the bed runs as root (a real account with a real password). */
export const BED_USER = 'gdtest';
/** Loopback-only test sshd; the account exists only on test machines. */
export const BED_PASSWORD = 'gdtest-Loopback-Only-7';

export interface SshdOptions {
  /** Extra sshd_config lines (e.g. "SetEnv PATH=..." for GPU shims). */
  extraConfig?: string[];
  /**
   * Lines placed before the bed's own defaults: sshd keeps a keyword's first value, so this is how a test
   * overrides one (e.g. "AllowTcpForwarding no", "PermitOpen 127.0.0.1:1").
   */
  overrideConfig?: string[];
  /** A user CA made for this bed and trusted by sshd (TrustedUserCAKeys): bed.signUserKey makes certificates. */
  userCa?: boolean;
  /** false: the bed's user key is not in the bed's authorized_keys (a certificate is the only way in). */
  authorizeUserKey?: boolean;
  /** Reuse a port (restart tests use bed.restart() instead). */
  port?: number;
  /** Host key type: ed25519 (default), ecdsa or rsa. */
  hostKeyType?: 'ed25519' | 'ecdsa' | 'rsa';
  /** Also present a host certificate for these names, signed by a CA made for this bed (ssh-keygen -s). */
  hostCertificatePrincipals?: string[];
  /** The host certificate's validity, as ssh-keygen -V takes it (default: forever). */
  hostCertificateValidity?: string;
  /** More ssh-keygen -s arguments for the host certificate, e.g. ['-z', '7'] or ['-O', 'critical:name=value']. */
  hostCertificateArgs?: string[];
  /** Allow `ssh -X` (needs xauth on this machine); off by default like a hardened server. */
  x11Forwarding?: boolean;
  /** A command sshd runs under, e.g. ['taskset', '-c', '1'] (test/bed/placement.ts): what sshd forks inherits it. */
  wrap?: string[];
}

export interface SshdBed {
  host: '127.0.0.1';
  port: number;
  user: string;
  /** The bed user's home directory. */
  home: string;
  /** Password of `user` when the bed runs as root; null otherwise (password tests say why they cannot run). */
  password: string | null;
  /** Unencrypted ed25519 key accepted by this sshd. */
  userKeyPath: string;
  /** Same key, encrypted with `userKeyPassphrase`. */
  encryptedKeyPath: string;
  userKeyPassphrase: string;
  hostKeyPath: string;
  hostKeyType: string;
  /** OpenSSH-style "SHA256:…" of the host key. */
  hostKeyFingerprint: string;
  /** "[127.0.0.1]:port ssh-ed25519 AAAA…" */
  knownHostsLine: string;
  /** With hostCertificatePrincipals: the CA's public key ("ssh-ed25519 AAAA…") for an @cert-authority line. */
  hostCaPublicKey: string | null;
  /** Working directory (config, keys, logs); removed by stop(). */
  dir: string;
  logPath: string;
  authorizedKeysPath: string;
  /**
   * With userCa: signs `publicKeyPath` (ssh-keygen -s, as a site's CA does) and returns the certificate's
   * path (KEY-cert.pub beside it). `validity` as ssh-keygen -V takes it ("-5m:+1h", "-2d:-1d").
   */
  signUserKey(publicKeyPath: string, o: { principals: string[]; validity?: string; id?: string; ca?: string }): string;
  /** Kill sshd and every per-connection child (what a server crash looks like). */
  kill(): Promise<void>;
  /** Start it again on the same port with the same host key. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** The bed's account (created when the bed runs as root), for beds of other servers too (test/bed/dropbear.ts). */
export function ensureBedAccount(): { user: string; home: string } {
  return ensureBedUser();
}

/**
 * A second account whose login shell is `shell` (e.g. /usr/bin/tcsh), created once; root only. The bed's
 * sshd reads its own authorized_keys file for every account, so the bed's key logs in as this one too.
 */
export function ensureShellAccount(name: string, shell: string): { user: string; home: string } {
  if (!isRoot) throw new Error(`An account with the login shell ${shell} needs root to create`);
  if (!fs.existsSync(shell)) throw new Error(`${shell} is not installed (.ci/run installs it)`);
  try {
    execFileSync('id', ['-u', name], { stdio: 'ignore' });
  } catch {
    try {
      execFileSync('useradd', ['-m', '-s', shell, name], { stdio: 'ignore' });
    } catch {
      execFileSync('id', ['-u', name], { stdio: 'ignore' });
    }
  }
  execFileSync('usermod', ['-s', shell, name], { stdio: 'ignore' });
  const home = execFileSync('getent', ['passwd', name]).toString().split(':')[5];
  return { user: name, home };
}

function ensureBedUser(): { user: string; home: string } {
  if (!isRoot) return { user: os.userInfo().username, home: os.homedir() };
  try {
    execFileSync('id', ['-u', BED_USER], { stdio: 'ignore' });
  } catch {
    try {
      execFileSync('useradd', ['-m', '-s', '/bin/bash', BED_USER], { stdio: 'ignore' });
    } catch {
      // A parallel test file may have created it between our check and useradd.
      execFileSync('id', ['-u', BED_USER], { stdio: 'ignore' });
    }
  }
  execFileSync('chpasswd', [], { input: `${BED_USER}:${BED_PASSWORD}\n` });
  const home = execFileSync('getent', ['passwd', BED_USER]).toString().split(':')[5];
  return { user: BED_USER, home };
}

export function fingerprintOfPublicKeyLine(line: string): string {
  const b64 = line.trim().split(/\s+/)[1];
  return 'SHA256:' + createHash('sha256').update(Buffer.from(b64, 'base64')).digest('base64').replace(/=+$/, '');
}

export async function startSshd(opts: SshdOptions = {}): Promise<SshdBed> {
  const dir = makeTempDir('gd-sshd-');
  fs.chmodSync(dir, 0o755);
  const { user, home } = ensureBedUser();
  const hostKeyType = opts.hostKeyType ?? 'ed25519';
  const hostKeyPath = path.join(dir, `ssh_host_${hostKeyType}_key`);
  const keygen = (args: string[]) => execFileSync('ssh-keygen', ['-q', ...args], { stdio: 'ignore' });
  keygen(['-t', hostKeyType, ...(hostKeyType === 'rsa' ? ['-b', '2048'] : []), '-N', '', '-C', 'bed-host', '-f', hostKeyPath]);
  let hostCaPublicKey: string | null = null;
  const certConfig: string[] = [];
  if (opts.hostCertificatePrincipals) {
    const caPath = path.join(dir, 'host_ca');
    keygen(['-t', 'ed25519', '-N', '', '-C', 'bed-host-ca', '-f', caPath]);
    keygen(['-s', caPath, '-I', 'bed-host', '-h', '-n', opts.hostCertificatePrincipals.join(','), ...(opts.hostCertificateValidity ? ['-V', opts.hostCertificateValidity] : []), ...(opts.hostCertificateArgs ?? []), hostKeyPath + '.pub']);
    hostCaPublicKey = fs.readFileSync(caPath + '.pub', 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
    certConfig.push(`HostCertificate ${hostKeyPath}-cert.pub`);
  }
  const userKeyPath = path.join(dir, 'id_ed25519');
  keygen(['-t', 'ed25519', '-N', '', '-C', 'bed-user', '-f', userKeyPath]);
  const userKeyPassphrase = 'bed passphrase 42';
  const encryptedKeyPath = path.join(dir, 'id_ed25519_enc');
  fs.copyFileSync(userKeyPath, encryptedKeyPath);
  fs.chmodSync(encryptedKeyPath, 0o600);
  keygen(['-p', '-N', userKeyPassphrase, '-P', '', '-f', encryptedKeyPath]);

  const authorizedKeysPath = path.join(dir, 'authorized_keys');
  fs.writeFileSync(authorizedKeysPath, opts.authorizeUserKey === false ? '' : fs.readFileSync(userKeyPath + '.pub'), { mode: 0o644 });
  const userCaPath = path.join(dir, 'user_ca');
  if (opts.userCa) {
    keygen(['-t', 'ed25519', '-N', '', '-C', 'bed-user-ca', '-f', userCaPath]);
    certConfig.push(`TrustedUserCAKeys ${userCaPath}.pub`);
  }

  const port = opts.port ?? (await freePort());
  const logPath = path.join(dir, 'sshd.log');
  const pidPath = path.join(dir, 'sshd.pid');
  const config = [
    ...(opts.overrideConfig ?? []),
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${hostKeyPath}`,
    ...certConfig,
    `PidFile ${pidPath}`,
    `AuthorizedKeysFile ${authorizedKeysPath} .ssh/authorized_keys`,
    'StrictModes no',
    // PAM gives keyboard-interactive (the 2FA path) and password checks against the real account.
    `UsePAM ${isRoot ? 'yes' : 'no'}`,
    'PasswordAuthentication yes',
    'KbdInteractiveAuthentication yes',
    'PubkeyAuthentication yes',
    'PermitRootLogin yes',
    'AllowTcpForwarding yes',
    'AllowStreamLocalForwarding yes',
    'AllowAgentForwarding no',
    `X11Forwarding ${opts.x11Forwarding ? 'yes' : 'no'}`,
    'PrintMotd no',
    'MaxStartups 200',
    'MaxSessions 200',
    'MaxAuthTries 20',
    'ClientAliveInterval 0',
    'LogLevel VERBOSE',
    'Subsystem sftp internal-sftp',
    ...(opts.extraConfig ?? []),
  ];
  const configPath = path.join(dir, 'sshd_config');
  fs.writeFileSync(configPath, config.join('\n') + '\n');
  if (isRoot) fs.mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });

  let proc = null as ChildProcess | null;
  const start = async () => {
    const logFd = fs.openSync(logPath, 'a');
    const wrap = opts.wrap ?? [];
    proc = spawn(wrap[0] ?? '/usr/sbin/sshd', [...wrap.slice(1), ...(wrap.length ? ['/usr/sbin/sshd'] : []), '-D', '-e', '-f', configPath], {
      stdio: ['ignore', logFd, logFd],
      detached: true,
    });
    fs.closeSync(logFd);
    const p = proc;
    const exited = new Promise<never>((_, reject) =>
      p.once('exit', (code) => reject(new Error(`sshd exited (${code}): ${tail(logPath)}`))),
    );
    exited.catch(() => {});
    await Promise.race([waitForPort(port, 10_000), exited]);
  };
  const kill = async () => {
    const p = proc;
    proc = null;
    if (p?.pid) {
      const gone = new Promise((r) => (p.exitCode !== null ? r(null) : p.once('exit', r)));
      killTree(p.pid);
      await gone;
    }
    // Per-connection children re-exec and may sit outside the group: find them by our config path.
    try { execFileSync('pkill', ['-KILL', '-f', configPath], { stdio: 'ignore' }); } catch { /* none */ }
    await waitPortClosed(port);
  };
  await start();

  const pub = fs.readFileSync(hostKeyPath + '.pub', 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
  let stopped = false;
  const bed: SshdBed = {
    host: '127.0.0.1',
    port,
    user,
    home,
    password: isRoot ? BED_PASSWORD : null,
    userKeyPath,
    encryptedKeyPath,
    userKeyPassphrase,
    hostKeyPath,
    hostKeyType: pub.split(' ')[0],
    hostKeyFingerprint: fingerprintOfPublicKeyLine(pub),
    knownHostsLine: `[127.0.0.1]:${port} ${pub}`,
    hostCaPublicKey,
    dir,
    logPath,
    authorizedKeysPath,
    signUserKey: (publicKeyPath, o) => {
      const ca = o.ca ?? userCaPath;
      if (!fs.existsSync(ca)) throw new Error('signUserKey needs a bed started with userCa (or a CA key given)');
      keygen(['-s', ca, '-I', o.id ?? 'bed-user-cert', '-n', o.principals.join(','), ...(o.validity ? ['-V', o.validity] : []), publicKeyPath]);
      return publicKeyPath.replace(/\.pub$/, '') + '-cert.pub';
    },
    kill,
    restart: start,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  registerCleanup(bed.stop, () => {
    if (proc?.pid) killTree(proc.pid);
    try { execFileSync('pkill', ['-KILL', '-f', configPath], { stdio: 'ignore' }); } catch { /* none */ }
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return bed;
}

function tail(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-5).join(' | ');
  } catch {
    return '(no log)';
  }
}

async function waitPortClosed(port: number, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host: '127.0.0.1', port }, () => { s.destroy(); resolve(true); });
      s.on('error', () => resolve(false));
    });
    if (!open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}
