/**
 * The two VNC servers bench:viewer measures against: TigerVNC's Xvnc (the bed's, started directly,
 * no authentication) and TurboVNC 3.3's (what gpu-desk installs; started as the bed's user the way
 * the product does, one-time passwords only, since the machine's TurboVNC security file permits no
 * unauthenticated session). Each says how both viewers reach it and what the server counted for
 * each connection.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freeXDisplay, signalGroup, startXvnc, type SshdBed } from '../../test/bed';
import { logSize, statsSince } from '../3d/turboLog';
import { startTurboSession } from '../3d/turboSession';
import { vncPasswdFile } from '../3d/vncPasswd';
import type { BrowserViewer } from './browserViewer';
import { benchProfile } from './setup';
import { parseEncodeStats } from './xvncLog';

export type Flavour = 'TigerVNC' | 'TurboVNC';

/** What the server counted for one viewer connection, once it closed. */
export interface ServerCount { updates: number; pixels: number }

export interface BenchDesktop {
  flavour: Flavour;
  display: number;
  /** The server's RFB port on loopback. */
  port: number;
  /** Starts a program on the desktop (as the desktop's owner may see it: its X authority). */
  run(argv: string[], env?: NodeJS.ProcessEnv): ChildProcess;
  /** Adds gpu-desk's profile `name` for this desktop, reached through the bed's sshd on `sshPort`. */
  addProfile(viewer: BrowserViewer, name: string, sshPort: number): Promise<void>;
  /** Opens gpu-desk's viewer on this desktop with the profile `name`; resolves on the first frame. */
  open(viewer: BrowserViewer, name: string): Promise<void>;
  /** A VNC password file for the native viewer (a fresh one-time password on TurboVNC), or undefined. */
  nativePasswordFile(dir: string): Promise<string | undefined>;
  /** A VNC password for one more connection (a fresh one-time password on TurboVNC), or null where none is asked. */
  vncPassword(): Promise<string | null>;
  /** A mark in the server's log; `countSince` gives the statistics of the connection that closed after it. */
  /** Xvnc's pid (from the X server's own lock file), for the header's placement check. */
  pid(): number | null;
  mark(): number;
  countSince(mark: number): Promise<ServerCount>;
  stop(): Promise<void>;
}

/** `wrap`: the server side's taskset (test/bed/placement.ts) for Xvnc and what runs inside it; TurboVNC's session starts through the bed's sshd and inherits its placement. */
export async function startBenchDesktop(flavour: Flavour, bed: SshdBed, geometry: string, wrap: string[] = []): Promise<BenchDesktop> {
  return flavour === 'TigerVNC' ? tigerDesktop(bed, geometry, wrap) : turboDesktop(bed, geometry, wrap);
}

async function tigerDesktop(bed: SshdBed, geometry: string, wrap: string[]): Promise<BenchDesktop> {
  const x = await startXvnc({ geometry, wrap });
  return {
    flavour: 'TigerVNC',
    display: x.display,
    port: x.port,
    run: (argv, env = {}) => x.run(['env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...argv]),
    addProfile: async (viewer, name, sshPort) => { await viewer.addProfile(benchProfile(name, sshPort, bed.user, bed.userKeyPath, x.display)); },
    // The profile names the display: Connect opens the viewer straight away.
    open: async (viewer, name) => { await viewer.connect(name); },
    nativePasswordFile: async () => undefined,
    vncPassword: async () => null,
    pid: () => x.pid,
    mark: () => logSize(x.logPath),
    countSince: async (mark) => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const st = parseEncodeStats(fs.readFileSync(x.logPath, 'utf8').slice(mark))[0];
        if (st) return { updates: st.updates, pixels: st.pixels };
        if (Date.now() > deadline) throw new Error(`no EncodeManager statistics in ${x.logPath} within 15 s of the viewer leaving`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    stop: () => x.stop(),
  };
}

async function turboDesktop(bed: SshdBed, geometry: string, wrap: string[]): Promise<BenchDesktop> {
  const s = await startTurboSession(bed, geometry, freeXDisplay);
  const children: ChildProcess[] = [];
  return {
    flavour: 'TurboVNC',
    display: s.display,
    port: s.port,
    run: (cmd, env = {}) => {
      const argv = [...wrap, ...cmd];
      // The session belongs to the bed's user; root may use its X authority, as the e2e's screenshots do.
      const c = spawn(argv[0], argv.slice(1), {
        env: { ...process.env, ...env, DISPLAY: `:${s.display}`, XAUTHORITY: path.join(bed.home, '.Xauthority') },
        stdio: 'ignore',
        detached: true,
      });
      children.push(c);
      return c;
    },
    // No default display: the server page's probe is how gpu-desk learns it is TurboVNC and fetches a one-time password.
    addProfile: async (viewer, name, sshPort) => { await viewer.addProfile({ ...benchProfile(name, sshPort, bed.user, bed.userKeyPath, s.display), display: {} }); },
    open: async (viewer, name) => { await viewer.viewSession(name, s.display); },
    nativePasswordFile: async (dir) => {
      const file = path.join(dir, `otp-${s.display}`);
      fs.writeFileSync(file, await vncPasswdFile(await s.otp()), { mode: 0o600 });
      return file;
    },
    vncPassword: () => s.otp(),
    pid: () => xLockPid(s.display),
    mark: () => logSize(s.logPath),
    countSince: async (mark) => {
      const st = await statsSince(s.logPath, mark, 15_000, true);
      return { updates: st.updates, pixels: st.pixels! };
    },
    stop: async () => {
      for (const c of children) signalGroup(c, 'SIGTERM');
      await s.stop();
    },
  };
}

function xLockPid(display: number): number | null {
  try {
    return Number(fs.readFileSync(`/tmp/.X${display}-lock`, 'utf8').trim()) || null;
  } catch {
    return null;
  }
}
