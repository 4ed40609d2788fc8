import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export function makeTempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** A port that was free a moment ago on 127.0.0.1 (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.unref();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, host, () => s.close(() => resolve(true)));
  });
}

export async function waitForPort(port: number, timeoutMs = 10_000, host = '127.0.0.1'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect({ host, port }, () => { s.destroy(); resolve(true); });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on ${host}:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Read bytes from a socket until `n` bytes or the predicate matches. */
export function readUntil(sock: net.Socket, pred: (buf: Buffer) => boolean, timeoutMs = 10_000): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => { cleanup(); reject(new Error(`timed out; got ${JSON.stringify(buf.toString('latin1'))}`)); }, timeoutMs);
    const onData = (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (pred(buf)) { cleanup(); resolve(buf); }
    };
    const onEnd = () => { cleanup(); reject(new Error(`closed; got ${JSON.stringify(buf.toString('latin1'))}`)); };
    const onErr = (e: Error) => { cleanup(); reject(e); };
    const cleanup = () => {
      clearTimeout(timer);
      sock.off('data', onData); sock.off('end', onEnd); sock.off('error', onErr);
    };
    sock.on('data', onData); sock.on('end', onEnd); sock.on('error', onErr);
  });
}

const cleanups = new Set<() => Promise<void> | void>();
const exitKillers = new Set<() => void>();
let hooked = false;
/**
 * Every bed resource registers here so a crashed test still leaves no process behind:
 * `fn` is the orderly stop, `atExit` a synchronous kill for when the process exits first.
 */
export function registerCleanup(fn: () => Promise<void> | void, atExit?: () => void): void {
  cleanups.add(fn);
  if (atExit) exitKillers.add(atExit);
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const k of exitKillers) {
        try { k(); } catch { /* best effort at exit */ }
      }
    });
  }
}
export async function cleanupAll(): Promise<void> {
  for (const fn of [...cleanups].reverse()) {
    try { await fn(); } catch { /* keep going */ }
  }
  cleanups.clear();
}

/** pid and all its descendants (sshd's per-connection children call setsid, so a group kill misses them). */
export function processTree(pid: number): number[] {
  let table: [number, number][] = [];
  try {
    table = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
      .trim().split('\n').map((l) => l.trim().split(/\s+/).map(Number) as [number, number]);
  } catch { return [pid]; }
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    for (const [p, pp] of table) if (pp === out[i] && !out.includes(p)) out.push(p);
  }
  return out;
}

export function killTree(pid: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  for (const p of processTree(pid).reverse()) {
    try { process.kill(p, signal); } catch { /* gone */ }
  }
}

/**
 * Signals a detached child's process group, but only while Node has not reaped its leader. Until
 * then the pid (a zombie's at least) cannot be handed out again, so the group is ours. Once reaped,
 * the pid is free. This machine's pid_max is 32768 and a full test run starts far more processes, so
 * a late `kill(-pid)` can hit a group that another test started since: a desktop's program, an
 * sshd session, a vncserver wrapper. A group whose leader has gone is left alone.
 */
export function signalGroup(child: Pick<ChildProcess, 'pid' | 'exitCode' | 'signalCode'>, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    /* gone between the check and the signal */
  }
}
