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
      // TVNC_PROFILE=1: Xvnc logs the update rate it sends, every 5 s of a connection (rfbserver.c).
      out = await sshRun(bed, ['env', 'TVNC_PROFILE=1', `${TURBOVNC_BIN}/vncserver`, `:${await pickDisplay()}`, '-localhost', '-securitytypes', 'OTP', '-otp', '-geometry', geometry, '-noxstartup']);
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
