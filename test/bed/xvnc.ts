import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { isPortFree, makeTempDir, readUntil, registerCleanup, signalGroup } from './util';

export interface XvncOptions {
  geometry?: string;
  /** VNC password (VncAuth); default: no authentication (SecurityTypes None). */
  password?: string;
  /** Programs to start inside the session (e.g. ['xterm', '-geometry', '80x24+10+10']). */
  clients?: string[][];
  /** A command Xvnc and the programs run inside it start under (the server side's taskset, placement.ts); default none. */
  wrap?: string[];
  /**
   * A desktop for a person (npm run demo), not a test: Xvnc and its programs run as this account, in its
   * home, with only its own environment plus `env`, and X clients need the session's cookie (no -ac), so
   * no other local user can type into its terminal.
   */
  account?: { user: string; env?: Record<string, string> };
}

export interface XvncBed {
  display: number;
  port: number;
  /** DISPLAY value for clients on this machine (":N"). */
  x11Display: string;
  logPath: string;
  dir: string;
  pid: number;
  /** Run an X client inside the session; killed at stop(). */
  run(argv: string[]): ChildProcess;
  stop(): Promise<void>;
}

/** An X display number between :20 and :99 with no lock, socket or VNC port in use (a stale lock from a killed server counts as used). */
export async function freeXDisplay(): Promise<number> {
  // Random start so parallel test files rarely race for the same number.
  const start = 20 + Math.floor(Math.random() * 60);
  for (let i = 0; i < 80; i++) {
    const n = 20 + ((start - 20 + i) % 79);
    if (fs.existsSync(`/tmp/.X${n}-lock`) || fs.existsSync(`/tmp/.X11-unix/X${n}`)) continue;
    if (await isPortFree(5900 + n)) return n;
  }
  throw new Error('no free X display between :20 and :99');
}

/** A real TigerVNC Xvnc on 127.0.0.1:5900+n, ready once its RFB banner is readable. */
export async function startXvnc(opts: XvncOptions = {}): Promise<XvncBed> {
  const dir = makeTempDir('gd-xvnc-');
  const logPath = path.join(dir, 'Xvnc.log');
  const acct = opts.account ? accountOf(opts.account.user) : null;
  if (acct) {
    fs.chownSync(dir, acct.uid, acct.gid);
    fs.mkdirSync('/tmp/.X11-unix', { recursive: true, mode: 0o1777 });
  }
  const owned = (file: string) => { if (acct) fs.chownSync(file, acct.uid, acct.gid); };
  for (let attempt = 0; attempt < 5; attempt++) {
    const display = await freeXDisplay();
    const port = 5900 + display;
    const args = [
      `:${display}`,
      '-localhost',
      '-rfbport', String(port),
      '-geometry', opts.geometry ?? '1280x720',
      '-depth', '24',
      '-AlwaysShared',
      // Tests open and drop many connections; TigerVNC would blacklist 127.0.0.1 after 5 of them.
      '-BlacklistThreshold', '1000000',
      ...(acct ? [] : ['-ac']),
      '-nolisten', 'tcp',
      // Per-connection encoder statistics are logged at this level (the viewer benchmark reads them).
      '-Log', '*:stderr:100',
    ];
    if (opts.password) {
      const pwFile = path.join(dir, 'passwd');
      execFileSync('vncpasswd', ['-f'], { input: opts.password + '\n' });
      fs.writeFileSync(pwFile, execFileSync('vncpasswd', ['-f'], { input: opts.password + '\n' }), { mode: 0o600 });
      owned(pwFile);
      args.push('-SecurityTypes', 'VncAuth', '-PasswordFile', pwFile);
    } else {
      args.push('-SecurityTypes', 'None');
    }
    const authFile = path.join(dir, 'Xauthority');
    if (acct) {
      fs.rmSync(authFile, { force: true });
      execFileSync('xauth', ['-q', '-f', authFile, 'add', `:${display}`, '.', randomBytes(16).toString('hex')], { stdio: 'ignore' });
      owned(authFile);
      args.push('-auth', authFile);
    }
    // As the account: its ids, its home as the working directory, its own environment (not the caller's).
    const identity = acct ? { cwd: acct.home, ...(acct.uid !== process.getuid?.() ? { uid: acct.uid, gid: acct.gid } : {}) } : {};
    const baseEnv = acct
      ? { HOME: acct.home, USER: opts.account!.user, LOGNAME: opts.account!.user, SHELL: acct.shell, PATH: '/usr/local/bin:/usr/bin:/bin', LANG: process.env.LANG ?? 'C.UTF-8', XAUTHORITY: authFile, ...opts.account!.env }
      : process.env;
    const logFd = fs.openSync(logPath, 'a');
    const wrap = opts.wrap ?? [];
    const proc = spawn(wrap[0] ?? 'Xvnc', [...wrap.slice(1), ...(wrap.length ? ['Xvnc'] : []), ...args], { stdio: ['ignore', logFd, logFd], detached: true, env: baseEnv, ...identity });
    fs.closeSync(logFd);
    const ok = await waitBanner(port, proc, 10_000);
    if (!ok) {
      signalGroup(proc, 'SIGKILL');
      continue;
    }
    const children: ChildProcess[] = [];
    const x11Display = `:${display}`;
    const run = (cmd: string[]) => {
      const argv = [...wrap, ...cmd];
      const c = spawn(argv[0], argv.slice(1), {
        env: { ...baseEnv, DISPLAY: x11Display },
        stdio: 'ignore',
        detached: true,
        ...identity,
      });
      children.push(c);
      return c;
    };
    for (const c of opts.clients ?? []) run(c);
    let stopped = false;
    const killAll = () => {
      for (const c of children) signalGroup(c, 'SIGKILL');
      signalGroup(proc, 'SIGKILL');
    };
    const bed: XvncBed = {
      display,
      port,
      x11Display,
      logPath,
      dir,
      pid: proc.pid!,
      run,
      stop: async () => {
        if (stopped) return;
        stopped = true;
        for (const c of children) signalGroup(c, 'SIGTERM');
        const gone = new Promise((r) => (proc.exitCode !== null ? r(null) : proc.once('exit', r)));
        signalGroup(proc, 'SIGTERM');
        await Promise.race([gone, new Promise((r) => setTimeout(r, 3000))]);
        killAll();
        fs.rmSync(`/tmp/.X${display}-lock`, { force: true });
        fs.rmSync(`/tmp/.X11-unix/X${display}`, { force: true });
      },
    };
    registerCleanup(bed.stop, killAll);
    return bed;
  }
  throw new Error(`Xvnc did not start: ${fs.existsSync(logPath) ? fs.readFileSync(logPath, 'utf8').slice(-500) : ''}`);
}

function accountOf(user: string): { uid: number; gid: number; home: string; shell: string } {
  const f = execFileSync('getent', ['passwd', user], { encoding: 'utf8' }).trim().split(':');
  return { uid: Number(f[2]), gid: Number(f[3]), home: f[5], shell: f[6] || '/bin/sh' };
}

async function waitBanner(port: number, proc: ChildProcess, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) return false;
    try {
      const s = net.connect({ host: '127.0.0.1', port });
      await new Promise<void>((res, rej) => { s.once('connect', () => res()); s.once('error', rej); });
      const b = await readUntil(s, (buf) => buf.length >= 12, 3000);
      s.destroy();
      if (b.toString('latin1').startsWith('RFB ')) return true;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
