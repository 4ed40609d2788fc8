import type { JobDesktopLink } from '../cluster/connect';
import { openJobTunnel } from '../cluster/jobTunnel';
import { GpuDeskError, registerSecret } from '../errors';
import { ownerText, tigerVncPassword, trustedListener, type DisplayOwner, type SessionEndpoint } from '../remote/vncSessions';
import type { SshConnection } from '../ssh/connection';
import type { ConnectOptions, SshSession } from '../ssh/types';
import type { TunnelInfo } from './tunnel';
import type { TunnelManager } from './tunnelManager';

/** What tunnel-only mode opens: a display of the server, or a Slurm job's desktop. */
export type DesktopTarget = { display: number } | { jobId: string };

export interface DesktopTunnelOptions {
  localPort?: number;
  /** How the person names the server in a fix (`gpu-desk … <destination>`). */
  destination: string;
  /** The login's options: a job's node is reached with them (ProxyJump through the login node). */
  loginOptions: ConnectOptions;
  /** Forward a display that is not one of this account's desktops (the person asked: `--any-listener`). */
  anyListener?: boolean;
  /**
   * Make no password (`--no-password`): the person already holds one, e.g. an invite's view-only
   * one-time password, which a fresh TurboVNC one-time password would replace (Xvnc keeps one at a time).
   */
  noPassword?: boolean;
  /** The server's answers (the app's RemoteOps seam, or vncSessions with the CLI's install prefix). */
  remote: {
    endpoint(s: SshSession, display: number): Promise<SessionEndpoint>;
    oneTimePassword(s: SshSession, display: number): Promise<string>;
  };
  /** A TigerVNC session's password, where the caller holds it (the app, for desktops it started). */
  sessionPassword?(display: number): string | null;
}

export interface DesktopTunnel {
  info: TunnelInfo;
  /** The manager that holds the tunnel: the caller's, or a job's own (over its link to the node). */
  tunnels: TunnelManager;
  link: JobDesktopLink | null;
  /** Who serves the display (a server's display only). */
  owner: DisplayOwner | null;
  /**
   * The password a VNC viewer gives: a fresh TurboVNC one-time password (one connection), or a
   * TigerVNC session's password; null with `passwordNote` saying why there is none.
   */
  password: string | null;
  passwordKind: 'otp' | 'session' | null;
  passwordNote: string | null;
  /** Ends the password's redaction (it is shown to the person; kept out of logs while the tunnel is open). */
  release(): void;
}

/**
 * Tunnel-only mode's one sequence, for `gpu-desk tunnel` and the app's Tunnel only alike: where the
 * display is (refusing one that is not this account's desktop unless asked), the forward, and the
 * password a native viewer needs (TurboVNC desktops take only one-time passwords). A job's desktop:
 * its link to the node, the forward, and a one-time password made on the node.
 */
export async function openDesktopTunnel(conn: SshConnection, tm: TunnelManager, target: DesktopTarget, o: DesktopTunnelOptions): Promise<DesktopTunnel> {
  if ('jobId' in target) {
    const jt = await openJobTunnel(conn, o.loginOptions, target.jobId, { localPort: o.localPort });
    let otp: string;
    try {
      otp = await jt.link.oneTimePassword();
    } catch (e) {
      await jt.close();
      throw e;
    }
    return { info: jt.info, tunnels: jt.tunnels, link: jt.link, owner: null, password: otp, passwordKind: 'otp', passwordNote: null, release: registerSecret(otp) };
  }
  const { display } = target;
  const at = await displayTarget(conn, display, o);
  const info = await tm.openDisplay(display, { localPort: o.localPort, ...(at.kind === 'unix' ? { remoteSocket: at.path } : { remoteHost: at.host, remotePort: at.port }) });
  const pw = await displayPassword(conn, display, at, o);
  return { info, tunnels: tm, link: null, owner: at.owner, ...pw, release: pw.password ? registerSecret(pw.password) : () => {} };
}

/** Where the forward goes; a display nobody serves, or another account serves, is refused before any port is opened. */
async function displayTarget(conn: SshConnection, display: number, o: DesktopTunnelOptions): Promise<SessionEndpoint> {
  let at: SessionEndpoint;
  try {
    at = await o.remote.endpoint(conn, display);
  } catch (e) {
    // An account that may forward but not run commands: only the person can vouch for what listens.
    if (!o.anyListener) throw e;
    return { kind: 'tcp', host: '127.0.0.1', port: 5900 + display, flavor: null, owner: { kind: 'unknown' } };
  }
  if (at.owner.kind === 'none') {
    throw new GpuDeskError('VNC_SESSION_FAILED', `No desktop is running on display :${display} of ${conn.label} (nothing listens on its port ${5900 + display})`, `start one with gpu-desk sessions ${o.destination} start ${display}, or list them with gpu-desk sessions ${o.destination} list`);
  }
  if (!trustedListener(at.owner) && !o.anyListener) {
    throw new GpuDeskError('VNC_SESSION_FAILED', `Display :${display} of ${conn.label} is not one of your desktops: ${ownerText(at.owner)} listens on its port ${5900 + display}`, `start your own with gpu-desk sessions ${o.destination} start; only if you trust that listener, add --any-listener`);
  }
  return at;
}

/** Another password for a display tunnel already open (TurboVNC's one-time passwords serve one connection each). */
export async function desktopPassword(conn: SshConnection, display: number, o: DesktopTunnelOptions): Promise<Pick<DesktopTunnel, 'password' | 'passwordKind' | 'passwordNote'>> {
  return displayPassword(conn, display, await displayTarget(conn, display, o), o);
}

async function displayPassword(conn: SshConnection, display: number, at: SessionEndpoint, o: DesktopTunnelOptions): Promise<Pick<DesktopTunnel, 'password' | 'passwordKind' | 'passwordNote'>> {
  if (at.owner.kind !== 'mine') return { password: null, passwordKind: null, passwordNote: `not one of your desktops: ${ownerText(at.owner)} serves it` };
  if (o.noPassword) return { password: null, passwordKind: null, passwordNote: 'none made (--no-password): give the viewer the password you were given' };
  if (at.flavor === 'turbovnc') {
    try {
      return { password: await o.remote.oneTimePassword(conn, display), passwordKind: 'otp', passwordNote: null };
    } catch (e) {
      return { password: null, passwordKind: null, passwordNote: (e as Error).message };
    }
  }
  // TigerVNC: the desktop's own password, as the app holds it or as gpu-desk left it on the server.
  const held = o.sessionPassword?.(display) ?? (await tigerVncPassword(conn, display).catch(() => null));
  if (held) return { password: held, passwordKind: 'session', passwordNote: null };
  return { password: null, passwordKind: null, passwordNote: 'a desktop gpu-desk did not start: give the password it was started with' };
}
