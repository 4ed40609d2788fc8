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
import { colourCount, differingPixels, serverScreen, type Rect } from './screen';
import { registerCleanup } from './util';
import { GPU_DESK_BIN, runCli, type CliResult } from '../helpers/cli';


export type CliRun = CliResult;

export interface DeskCli {
  /** `gpu-desk <command> <server> <args…>` with this desk's own home, key and known_hosts. */
  run(args: string[], opts?: { host?: string; port?: number; stdin?: string; onLine?(line: string): void }): Promise<CliRun>;
  /** The `gpu-desk tunnel` to a session's display: its 127.0.0.1 port on this side. */
  tunnel(display: number): Promise<{ port: number; password: string | null; stop(): Promise<void> }>;
}

/** `via`: reach the server through this 127.0.0.1 port instead (a shaped or counting link in front of its sshd), for every command and the tunnel. */
export function deskCli(server: FreshServer, home: string, via?: { host: string; port: number }): DeskCli {
  const dest = (host: string, port: number) => [`${server.user}@${host}`, '-p', String(port), '-i', server.userKeyPath, '-F', 'none', '--no-agent', '--known-hosts', path.join(home, 'known_hosts'), '--accept-new-host-key'];
  const env = { ...process.env, GPU_DESK_HOME: home, HOME: home, SSH_AUTH_SOCK: '' };
  return {
    run: (args, opts = {}) => runCli([args[0], ...dest(opts.host ?? via?.host ?? server.host, opts.port ?? via?.port ?? server.port), ...args.slice(1)], { home, stdin: opts.stdin, onLine: opts.onLine }),
    tunnel: (display) => new Promise((resolve, reject) => {
      const p: ChildProcess = spawn(process.execPath, [GPU_DESK_BIN, 'tunnel', ...dest(via?.host ?? server.host, via?.port ?? server.port), '--display', String(display), '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
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
        if (!line) return;
        const l = JSON.parse(line) as { local: string; password?: string | null };
        // The tunnel hands out a fresh one-time password (it replaces the one sessions start printed).
        resolve({ port: Number(l.local.split(':').pop()), password: l.password ?? null, stop });
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

export interface Desktop3dResult {
  session: { display: number; flavor: string; unixPath: string | null; port: number | null; localhostOnly: boolean; passwordKind: string };
  /** The socket's mode bits on the server. */
  socketMode: number;
  /** The executables of the session's Xvnc processes (paths inside the server). */
  xvncExe: string[];
  /** PATH of the desktop's window manager (what a program started from the desktop inherits). */
  desktopPath: string[];
  /** The viewer's size from the server's ServerInit. */
  viewerSize: { w: number; h: number };
  /** glxspheres64's output (VGL_VERBOSE) and whether its process mapped the faker from `fakerDir`. */
  spheresLog: string;
  fakerMapped: string[];
  /** Pixels the viewer showed unlike the server's own screenshot once both settled, with glxspheres' still frame: 0 means the same. */
  spheresUnlike: number;
  /** The screen with the spheres has more colours than the bare desktop (they drew something). */
  coloursBare: number;
  coloursSpheres: number;
  /** The same for vkcube's frame (stopped so that it holds still), when asked for. */
  vkcube?: { log: string; unlike: number };
  /** Milliseconds from `sessions start` to: the session listed, the viewer's first update, the first 3D frame identical in the viewer. */
  ms: { sessionStart: number; viewerConnected: number; firstFrame: number };
  /** Bytes the viewer read through the tunnel. */
  viewerBytes: number;
}

/**
 * Starts a desktop with gpu-desk, views it through gpu-desk's tunnel with the Raw RFB viewer, runs
 * glxspheres64 in it by its bare name under `vglrun -d egl` (as a user types it in the desktop's
 * terminal, with the window manager's environment) and waits until the viewer holds exactly the
 * server's own screenshot; optionally vkcube (a copy of this machine's, as the user's own program)
 * the same way. Kills the session at the end. Returns what was seen, for the caller to judge; throws
 * only where it cannot go on (naming what it waited for).
 */
export async function desktop3d(server: FreshServer, desk: DeskCli, opts: { geometry?: { w: number; h: number }; vkcube?: boolean; waitMs?: number } = {}): Promise<Desktop3dResult> {
  const g = opts.geometry ?? { w: 800, h: 600 };
  const waitMs = opts.waitMs ?? 120_000;
  const t0 = performance.now();
  const s = await desk.run(['sessions', 'start', '--geometry', `${g.w}x${g.h}`, '--json']);
  if (s.code !== 0) throw new Error(`gpu-desk sessions start failed (${s.code}): ${s.stderr.trim()} ${s.stdout.trim()}`);
  const info = JSON.parse(s.stdout) as Desktop3dResult['session'] & { password: string };
  const tStarted = performance.now();
  let killed = false;
  const kill = async () => {
    if (killed) return;
    killed = true;
    await desk.run(['sessions', 'kill', String(info.display)]);
  };
  registerCleanup(kill);
  const cleanups: (() => void | Promise<void>)[] = [];
  try {
    const socketMode = info.unixPath ? fs.statSync(path.join(server.root, info.unixPath)).mode & 0o777 : -1;
    const xvncExe = serverProcesses(server, 'Xvnc').filter((p) => p.argv[1] === `:${info.display}`).map((p) => p.exe.slice(server.root.length));
    const wm = await waitUntil(`a window manager on :${info.display}`, () => desktopProcess(server, info.display, 'openbox'), waitMs);
    const env = wm.env;
    const desktopPath = (env.find((e) => e.startsWith('PATH=')) ?? 'PATH=').slice(5).split(':');
    const xauth = xauthorityOnDesk(server, env);
    const full = { x: 0, y: 0, ...g };
    const shot = () => screenOf(server, info.display, full, xauth);

    const tunnel = await desk.tunnel(info.display);
    cleanups.push(() => tunnel.stop());
    const viewer = await connectRfbViewer(tunnel.port, tunnel.password ?? info.password);
    cleanups.push(() => viewer.close());
    const tViewer = performance.now();

    const bare = await shot();
    const log = `${server.home}/gd-spheres-${info.display}.log`;
    const pid = Number(server.runAs([...env, 'VGL_VERBOSE=1'], `vglrun -d egl glxspheres64 -i -w 500x400 > ${log} 2>&1 & echo $!`).out.trim());
    cleanups.push(() => { try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ } });
    const readLog = (p: string) => { try { return fs.readFileSync(path.join(server.root, p), 'utf8'); } catch { return ''; } };
    // Where it never does, its own output says why (a missing library, no EGL device).
    await waitUntil('glxspheres64 to say which renderer it uses', () => /OpenGL Renderer: /.test(readLog(log)), waitMs)
      .catch((e: Error) => { throw new Error(`${e.message}; its output:\n${readLog(log).split('\n').slice(-15).join('\n')}`); });
    const fakerMapped = fs.readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n').map((l) => l.split(/\s+/)[5] ?? '').filter((f) => /libvglfaker/.test(f)).map((f) => f.replace(server.root, ''));
    await waitUntil('the spheres on the server\'s screen', async () => differingPixels(await shot(), bare) > 0, waitMs);
    const spheresUnlike = await viewerMatchesServer(viewer, shot, full, waitMs);
    const tFrame = performance.now();
    const withSpheres = await shot();
    process.kill(pid, 'SIGKILL');

    let vkcube: Desktop3dResult['vkcube'];
    if (opts.vkcube) {
      const prog = `${server.home}/vkcube`;
      fs.copyFileSync('/usr/bin/vkcube', path.join(server.root, prog));
      server.rootSh(`chown ${server.user}: ${prog}`);
      const vkLog = `${server.home}/gd-vkcube-${info.display}.log`;
      await waitUntil('the spheres\' window gone', async () => differingPixels(await shot(), bare) === 0, waitMs);
      // stdbuf: vkcube names its device with printf, which a file would hold until it exits.
      const vk = Number(server.runAs(env, `stdbuf -oL ${prog} --width 300 --height 300 > ${vkLog} 2>&1 & echo $!`).out.trim());
      cleanups.push(() => { try { process.kill(vk, 'SIGKILL'); } catch { /* gone */ } });
      await waitUntil('vkcube to name its device', () => /Selected GPU \d+: /.test(readLog(vkLog)), waitMs);
      await waitUntil('the cube on the server\'s screen', async () => differingPixels(await shot(), bare) > 0, waitMs);
      // Stopped, its last presented frame holds still: then the viewer must show exactly that.
      process.kill(vk, 'SIGSTOP');
      vkcube = { log: readLog(vkLog), unlike: await viewerMatchesServer(viewer, shot, full, waitMs) };
      process.kill(vk, 'SIGKILL');
    }
    return {
      session: info,
      socketMode,
      xvncExe,
      desktopPath,
      viewerSize: { w: viewer.width, h: viewer.height },
      spheresLog: readLog(log),
      fakerMapped,
      spheresUnlike,
      coloursBare: colourCount(bare),
      coloursSpheres: colourCount(withSpheres),
      vkcube,
      ms: { sessionStart: tStarted - t0, viewerConnected: tViewer - t0, firstFrame: tFrame - t0 },
      viewerBytes: viewer.bytesIn,
    };
  } finally {
    for (const c of cleanups.reverse()) await c();
    await kill();
  }
}

/** Polls `get` (every 100 ms: spacing, not a wait for time) until it gives something; throws naming `what` after `timeoutMs`. */
async function waitUntil<T>(what: string, get: () => T | null | false | Promise<T | null | false>, timeoutMs: number): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (v) return v;
    if (Date.now() > end) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
