/**
 * The desk side of the user-install tests and bench (issue 42): the real gpu-desk CLI against a fresh
 * server (freshServer.ts), its tunnel to a session, and a look at the desktop the session draws: the
 * server's own screenshot beside what an RFB viewer through the tunnel holds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { FreshServer } from './freshServer';
import { connectRfbViewer, type RfbViewer } from './rfbClient';
import { differingPixels, serverScreen, type Rect } from './screen';
import { registerCleanup } from './util';

export const GPU_DESK_BIN = path.resolve(__dirname, '../../bin/gpu-desk.cjs');

export interface CliRun { code: number; stdout: string; stderr: string; ms: number }

export interface DeskCli {
  /** `gpu-desk <command> <server> <args…>` with this desk's own home, key and known_hosts. */
  run(args: string[], opts?: { host?: string; port?: number; stdin?: string; onLine?(line: string): void }): Promise<CliRun>;
  /** The `gpu-desk tunnel` to a session's display: its 127.0.0.1 port on this side. */
  tunnel(display: number): Promise<{ port: number; stop(): Promise<void> }>;
}

export function deskCli(server: FreshServer, home: string): DeskCli {
  const dest = (host: string, port: number) => [`${server.user}@${host}`, '-p', String(port), '-i', server.userKeyPath, '-F', 'none', '--no-agent', '--known-hosts', path.join(home, 'known_hosts'), '--accept-new-host-key'];
  const env = { ...process.env, GPU_DESK_HOME: home, HOME: home, SSH_AUTH_SOCK: '' };
  return {
    run: (args, opts = {}) => new Promise((resolve) => {
      const t0 = performance.now();
      const p = spawn(process.execPath, [GPU_DESK_BIN, args[0], ...dest(opts.host ?? server.host, opts.port ?? server.port), ...args.slice(1)], { env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      let partial = '';
      p.stdout.on('data', (d: Buffer) => {
        stdout += d;
        partial += d;
        const lines = partial.split('\n');
        partial = lines.pop()!;
        for (const l of lines) opts.onLine?.(l);
      });
      p.stderr.on('data', (d) => (stderr += d));
      p.stdin.end(opts.stdin ?? '');
      p.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr, ms: performance.now() - t0 }));
    }),
    tunnel: (display) => new Promise((resolve, reject) => {
      const p: ChildProcess = spawn(process.execPath, [GPU_DESK_BIN, 'tunnel', ...dest(server.host, server.port), '--display', String(display), '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const stop = async () => {
        if (p.exitCode !== null || p.signalCode !== null) return;
        const gone = new Promise((r) => p.once('exit', r));
        p.kill('SIGTERM');
        await gone;
      };
      registerCleanup(stop);
      let out = '';
      let err = '';
      p.stderr!.on('data', (d) => (err += d));
      p.stdout!.on('data', (d) => {
        out += d;
        const line = out.split('\n').find((x) => x.includes('"listening"'));
        if (line) resolve({ port: Number((JSON.parse(line) as { local: string }).local.split(':').pop()), stop });
      });
      p.on('exit', (code) => reject(new Error(`gpu-desk tunnel exited (${code}): ${err.trim()}`)));
    }),
  };
}

/** The JSON lines of a `--json` apply: its progress events and the final one. */
export interface ApplyEvent { type: string; stepId?: string; text?: string; ok?: boolean; ms?: number; message?: string; applied?: string[]; error?: { message: string } }
export const applyEvents = (out: string): ApplyEvent[] => out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as ApplyEvent);

/** The processes inside the server with DISPLAY=:N in their environment whose command is `comm`: a desktop's own programs. */
export function desktopProcess(server: FreshServer, display: number, comm: string): { pid: number; env: string[] } | null {
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const root = fs.readlinkSync(`/proc/${name}/root`);
      if (root !== server.root) continue;
      if (fs.readFileSync(`/proc/${name}/comm`, 'utf8').trim() !== comm) continue;
      const env = fs.readFileSync(`/proc/${name}/environ`, 'utf8').split('\0').filter(Boolean);
      if (env.includes(`DISPLAY=:${display}`)) return { pid: Number(name), env };
    } catch { /* gone */ }
  }
  return null;
}

/** The server's processes with this command name: pid, argv and executable (as a path on this machine). */
export function serverProcesses(server: FreshServer, comm: string): { pid: number; argv: string[]; exe: string }[] {
  const out: { pid: number; argv: string[]; exe: string }[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (fs.readlinkSync(`/proc/${name}/root`) !== server.root) continue;
      if (fs.readFileSync(`/proc/${name}/comm`, 'utf8').trim() !== comm) continue;
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean);
      // The kernel gives the executable's path as the process sees it (inside the root): this machine's is the root plus it.
      out.push({ pid: Number(name), argv, exe: path.join(server.root, fs.readlinkSync(`/proc/${name}/exe`).replace(server.root, '')) });
    } catch { /* gone */ }
  }
  return out;
}

/** The X authority file of a desktop (from its window manager's environment) as a path on this machine. */
export function xauthorityOnDesk(server: FreshServer, env: string[]): string {
  const inServer = env.find((e) => e.startsWith('XAUTHORITY='))?.slice('XAUTHORITY='.length) ?? `${server.home}/.Xauthority`;
  return path.join(server.root, inServer);
}

/** What the server's X screen shows in `rect` (its own screenshot), read with the desktop's X authority. */
export function screenOf(server: FreshServer, display: number, rect: Rect, xauthority: string): Promise<Buffer> {
  return serverScreen(path.join(server.root, server.home), display, rect, { xauthority, netns: server.netns });
}

/**
 * Waits until the viewer holds exactly what the server's screen shows (each poll after the viewer's
 * next update or a fresh screenshot): the number of pixels that differ, 0 when they are the same.
 */
export async function viewerMatchesServer(viewer: RfbViewer, shot: () => Promise<Buffer>, rect: Rect, timeoutMs: number): Promise<number> {
  const end = Date.now() + timeoutMs;
  let last = -1;
  for (;;) {
    const server = await shot();
    const shown = viewer.rgb(rect);
    last = differingPixels(shown, server);
    if (last === 0 || Date.now() > end) return last;
    // The viewer is behind (or the screen still changes): wait for its next update, or a little for the screen.
    await Promise.race([viewer.nextUpdate(), new Promise((r) => setTimeout(r, 200))]);
  }
}

export { connectRfbViewer };
