import { GpuDeskError } from '../errors';
import type { SshSession } from '../ssh/types';
import { displayToPort } from '../tunnels/forwardSpec';
import { shScript } from './shellQuote';
import { TURBOVNC_BIN_SH, USER_INSTALL_SH } from './userInstall';
import { listSessions, type SessionOptions } from './vncSessions';
import type { VncSessionInfo } from './types';

/**
 * A view-only invite to one of this account's TurboVNC desktops: a one-time password made with
 * `vncpasswd -o -v` (the viewer that uses it sees the desktop and sends no input the server takes),
 * and the command a colleague runs with their own SSH login to reach the display.
 */
export interface ViewOnlyInvite {
  display: number;
  /** The view-only one-time password (one connection). */
  password: string;
  /** What the colleague runs first, with their own login in place of LOGIN. */
  command: string;
  /** TurboVNC's rule for it: the password works for one connection, and not after the desktop stops. */
  expiry: 'one-connection';
}

/** The line `vncpasswd -o -v` prints ("View-only one-time password: …"). */
export function parseViewOnlyOtp(text: string): string | null {
  const m = /View-only one-time password:\s*(\S+)/.exec(text);
  return m ? m[1] : null;
}

/** `gpu-desk tunnel` for the colleague: their own login at this server (its port when not 22), display :n. */
export function inviteCommand(server: { host: string; port?: number }, display: number): string {
  const port = server.port && server.port !== 22 ? ` -p ${server.port}` : '';
  const host = server.host.includes(':') ? `[${server.host}]` : server.host;
  return `gpu-desk tunnel LOGIN@${host}${port} --display ${display} --no-password`;
}

/** Why display :n cannot be shared with another login (null: it can), from this account's session listing. */
export function inviteRefusal(sessions: readonly VncSessionInfo[], display: number): GpuDeskError | null {
  try {
    displayToPort(display);
  } catch (e) {
    return e as GpuDeskError;
  }
  const s = sessions.find((x) => x.display === display);
  if (!s || s.flavor !== 'turbovnc') {
    return new GpuDeskError('VNC_SESSION_FAILED', `Display :${display} is not a TurboVNC desktop of this account`, 'View-only invites need TurboVNC (its vncpasswd -o -v); start a TurboVNC desktop to share');
  }
  // Another account's SSH login reaches TCP on the server's loopback, never this account's 0600 socket.
  if (s.port === null) {
    return new GpuDeskError('VNC_SESSION_FAILED', `Display :${display} listens only on this account's private Unix socket, which another login cannot reach`, 'Start the desktop to share with its connection set to "TCP port on the server\u2019s localhost"');
  }
  return null;
}

export async function viewOnlyInvite(session: SshSession, display: number, server: { host: string; port?: number }, opts: SessionOptions & { listing?: readonly VncSessionInfo[] } = {}): Promise<ViewOnlyInvite> {
  const refused = inviteRefusal(opts.listing ?? (await listSessions(session, opts)), display);
  if (refused) throw refused;
  const r = await session.exec(shScript(`O="$1"\n${USER_INSTALL_SH}${TURBOVNC_BIN_SH}exec "$T/vncpasswd" -o -v -display ":$2" 2>&1`, [opts.optRoot ?? '/opt', String(display)]), { timeoutMs: 30_000 });
  const password = parseViewOnlyOtp(r.stdout + r.stderr);
  if (r.code !== 0 || !password) {
    throw new GpuDeskError('VNC_SESSION_FAILED', `No view-only password for :${display}: ${(r.stdout + r.stderr).trim().split('\n')[0] ?? ''}`, 'Check that the session is a running TurboVNC session of this account');
  }
  return { display, password, command: inviteCommand(server, display), expiry: 'one-connection' };
}
