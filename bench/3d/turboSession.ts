/** A real TurboVNC 3.3 session of the bed's user, started the way the product does (-localhost, one-time passwords). */
import fs from 'node:fs';
import type { SshdBed } from '../../test/bed';
import { parseOtp, parseStartedDisplay } from '../../src/core/remote/parsers';
import { sshRun, TURBOVNC_BIN } from './remote';

export interface TurboSession {
  display: number;
  /** TCP port on the server's loopback (TurboVNC's default 5900+n, -localhost). */
  port: number;
  /** Xvnc's log, where it writes each connection's statistics when the viewer leaves. */
  logPath: string;
  /** A fresh one-time password (each is good for one connection). */
  otp(): Promise<string>;
  /** Whether its X server still runs (the bed account is shared: another test's clean-up can end it). */
  alive(): boolean;
  stop(): Promise<void>;
}

/**
 * `pickDisplay` chooses the display: vncserver's own choice is the lowest free one, which the tests of
 * anyone else sharing the bed account (their sessions come and go there) race for.
 */
export async function startTurboSession(bed: SshdBed, geometry: string, pickDisplay: () => Promise<number>): Promise<TurboSession> {
  let out = '';
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      out = await sshRun(bed, [`${TURBOVNC_BIN}/vncserver`, `:${await pickDisplay()}`, '-localhost', '-securitytypes', 'OTP', '-otp', '-geometry', geometry, '-noxstartup']);
      break;
    } catch (e) {
      if (attempt === 3) throw e;
    }
  }
  const started = parseStartedDisplay(out);
  const logPath = /Log file is (\S+)/.exec(out)?.[1];
  if (!started || !logPath) throw new Error(`TurboVNC's vncserver did not say which display it started: ${out.trim().split('\n').slice(-3).join(' | ')}`);
  const { display } = started;
  return {
    display,
    port: 5900 + display,
    logPath,
    otp: async () => {
      const said = await sshRun(bed, [`${TURBOVNC_BIN}/vncpasswd`, '-o', '-display', `:${display}`]);
      const otp = parseOtp(said);
      if (!otp) throw new Error(`vncpasswd -o gave no one-time password for :${display}`);
      return otp;
    },
    alive: () => {
      try {
        process.kill(Number(fs.readFileSync(`/tmp/.X${display}-lock`, 'utf8').trim()), 0);
        return true;
      } catch {
        return false;
      }
    },
    stop: async () => {
      await sshRun(bed, [`${TURBOVNC_BIN}/vncserver`, '-kill', `:${display}`]).catch(() => {});
    },
  };
}

export interface ConnectionStats {
  /** Framebuffer updates Xvnc sent to this connection. */
  updates: number;
  bytes: number;
  /** "subsampling N, QM" as Xvnc chose it for this viewer's request (same for every party or the figures are not comparable). */
  jpeg: string | null;
}

/**
 * Per-connection statistics in a TurboVNC Xvnc log, in order of the connections closing:
 * "[id] Statistics:" then "[id]   framebuffer updates N, rectangles R, bytes B" (rfbPrintStats, stats.c);
 * the JPEG settings are the last "[id] Using JPEG subsampling S, QN" before it.
 */
export function parseTurboStats(log: string): ConnectionStats[] {
  const out: ConnectionStats[] = [];
  const jpeg = new Map<string, string>();
  const inStats = new Set<string>();
  for (const line of log.split('\n')) {
    const m = /\[(\d+)\] (.*)$/.exec(line);
    if (!m) continue;
    const [, id, text] = m;
    const j = /^Using JPEG subsampling (\d+), Q(\d+)/.exec(text);
    if (j) jpeg.set(id, `subsampling ${j[1]}, Q${j[2]}`);
    if (text === 'Statistics:') inStats.add(id);
    const u = /^\s*framebuffer updates (\d+), rectangles \d+, bytes (\d+)/.exec(text);
    if (u && inStats.has(id)) {
      inStats.delete(id);
      out.push({ updates: Number(u[1]), bytes: Number(u[2]), jpeg: jpeg.get(id) ?? null });
    }
  }
  return out;
}

/** The statistics of connections that closed after `offset` bytes of the log, waiting (Xvnc notices a closed viewer on its next read). */
export async function statsSince(logPath: string, offset: number, timeoutMs = 15_000): Promise<ConnectionStats> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = parseTurboStats(fs.readFileSync(logPath, 'utf8').slice(offset));
    if (s.length > 0) return s[s.length - 1];
    if (Date.now() > deadline) throw new Error(`no per-connection statistics in ${logPath} within ${timeoutMs} ms of the viewer leaving`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const logSize = (logPath: string) => fs.statSync(logPath).size;
