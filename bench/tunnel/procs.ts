/** Child processes of the bench: the service behind the tunnel, delay proxies, and the two tunnels. */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { SshdBed } from '../../test/bed';
import { freePort, makeTempDir, waitForPort } from '../../test/bed';
import type { DelayProxyOptions } from '../../test/bed/delayProxy';
import type { HolderConfig } from './holder';

export interface Proc {
  /** Local port the party listens on. */
  port: number;
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
/** known_hosts dirs of the OpenSSH parties: in use until their ssh exits, so removed at the end. */
const tempDirs: string[] = [];
process.once('exit', () => {
  for (const c of live) {
    try { c.kill('SIGKILL'); } catch { /* gone */ }
  }
  for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
});

function stopper(child: ChildProcess): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      live.delete(child);
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      const t = setTimeout(() => child.kill('SIGKILL'), 3000);
      child.once('exit', () => { clearTimeout(t); resolve(); });
      if (child.connected) child.disconnect();
      else child.kill('SIGTERM');
    });
}

/** A tsx child that reports { port } (or { error }) over IPC. */
async function forkTs(file: string, arg: unknown, execArgv: string[] = [], wrap: string[] = []): Promise<Proc> {
  // With a wrapper (e.g. taskset -c 1, test/bed/placement.ts) node runs under it; the IPC channel's fd passes through its exec.
  const child = fork(path.join(__dirname, file), [JSON.stringify(arg)], {
    ...(wrap.length ? { execPath: wrap[0] } : {}),
    execArgv: [...(wrap.length ? [...wrap.slice(1), process.execPath] : []), '--import', 'tsx', ...execArgv],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  live.add(child);
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port?: number; error?: string }) =>
      m.port ? resolve(m.port) : reject(new Error(`${file}: ${m.error}`)),
    );
    child.once('exit', (code) => reject(new Error(`${file} exited (${code}) before it was ready`)));
  });
  return { port, pid: child.pid!, child, stop: stopper(child) };
}

export const startSource = () => forkTs('source.ts', {});
/** `wrap`: a command the proxy runs under (the server side's taskset, test/bed/placement.ts). */
export const startProxy = (targetPort: number, delayMs: number, link: Omit<DelayProxyOptions, 'targetPort' | 'delayMs'> = {}, wrap: string[] = []) =>
  forkTs('proxyProc.ts', { targetPort, delayMs, ...link }, [], wrap);

/** known_hosts for the address actually dialled (the proxy's port when there is one). */
export function knownHostsFor(bed: SshdBed, sshPort: number): string {
  const dir = makeTempDir('gd-bench-kh-');
  tempDirs.push(dir);
  const f = path.join(dir, 'known_hosts');
  fs.writeFileSync(f, bed.knownHostsLine.replace(/^\[127\.0\.0\.1\]:\d+/, `[127.0.0.1]:${sshPort}`) + '\n');
  return f;
}

export function startOurs(bed: SshdBed, sshPort: number, targetPort: number): Promise<Proc> {
  const cfg: HolderConfig = { sshPort, user: bed.user, keyPath: bed.userKeyPath, knownHostsFile: knownHostsFor(bed, sshPort), targetPort };
  return forkTs('holder.ts', cfg, ['--expose-gc', ...(process.env.GD_HOLDER_EXECARGV ?? '').split(' ').filter(Boolean)]);
}

/** OpenSSH client options for the bed: its key only, its host key only, no config, never a prompt. */
export function opensshClientArgs(bed: SshdBed, sshPort: number): string[] {
  return [
    '-F', '/dev/null', '-o', 'BatchMode=yes',
    '-o', 'StrictHostKeyChecking=yes', '-o', `UserKnownHostsFile=${knownHostsFor(bed, sshPort)}`,
    '-o', 'GlobalKnownHostsFile=/dev/null', '-o', 'IdentitiesOnly=yes', '-i', bed.userKeyPath,
    '-p', String(sshPort),
  ];
}

export async function startOpenssh(bed: SshdBed, sshPort: number, targetPort: number): Promise<Proc> {
  const port = await freePort();
  const child = spawn('ssh', [
    '-N', '-o', 'ExitOnForwardFailure=yes', ...opensshClientArgs(bed, sshPort),
    '-L', `127.0.0.1:${port}:127.0.0.1:${targetPort}`, `${bed.user}@127.0.0.1`,
  ], { stdio: ['ignore', 'ignore', 'pipe'] });
  live.add(child);
  let err = '';
  child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
  const exited = new Promise<never>((_, reject) => child.once('exit', (c) => reject(new Error(`ssh exited (${c}): ${err.trim()}`))));
  exited.catch(() => {});
  // Connecting opens (and drops) one forwarded connection; the service ignores it.
  await Promise.race([waitForPort(port, 20_000), exited]);
  return { port, pid: child.pid!, child, stop: stopper(child) };
}

/** The floor reference in Node: a bare TCP relay built from the tunnel's socket layer, no SSH (nodeRelay.ts). */
export const startNodeRelay = (targetPort: number) => forkTs('nodeRelay.ts', { targetPort });

/**
 * The native floor reference (cRelay.c), built with the system's C compiler into a temp dir.
 * Rejects with the reason when there is no compiler or the build fails.
 */
export async function startCRelay(targetPort: number): Promise<Proc> {
  const dir = makeTempDir('gd-bench-crelay-');
  const bin = path.join(dir, 'cRelay');
  const cc = process.env.CC ?? 'cc';
  await new Promise<void>((resolve, reject) => {
    const b = spawn(cc, ['-O2', '-o', bin, path.join(__dirname, 'cRelay.c')], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    b.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
    b.once('error', (e) => reject(new Error(`no C compiler (${cc}: ${e.message})`)));
    b.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cc} failed: ${err.trim().split('\n')[0]}`))));
  }).catch((e: Error) => {
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  });
  const child = spawn(bin, [String(targetPort)], { stdio: ['ignore', 'pipe', 'inherit'] });
  live.add(child);
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
    child.once('exit', (code) => reject(new Error(`cRelay exited (${code}) before it was ready`)));
  });
  const stop = stopper(child);
  return { port, pid: child.pid!, child, stop: () => stop().finally(() => fs.rmSync(dir, { recursive: true, force: true })) };
}
