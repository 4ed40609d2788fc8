import type { Duplex } from 'node:stream';
import { GpuDeskError, registerSecret } from '../errors';
import { endpointInListing, ownerText, trustedListener, type SessionEndpoint } from '../remote/vncSessions';
import type { StartedSession, VncSessionInfo } from '../remote/types';
import type { SshSession } from '../ssh/types';
import type { VncFlavor } from '../../shared/models';
import type { ConnectionScope } from './connectionScope';

/** How long a listing stands for where a session is reached: about the time from seeing it to clicking it. */
const LISTING_FRESH_MS = 60_000;

/** The password a session was started with (memory only; OTPs are used once), registered until `release`. */
export interface SessionPassword {
  password: string;
  once: boolean;
  release: () => void;
}

interface ConnectionDesktops {
  /** The server's VNC flavour as the probe found it (null: none found yet). */
  flavor: VncFlavor | null;
  /** Display → its session's password. */
  passwords: Map<number, SessionPassword>;
  /** This account's sessions as the probe or the desktops list last saw them (a viewer uses a fresh one). */
  listed?: { at: number; sessions: VncSessionInfo[] };
}

/** The connection a desktop is looked for on. */
export interface DesktopHost {
  connectionId: string;
  /** Where a display was found outlives the connection: a reconnect or Connect again goes there at once. */
  profileId: string;
  /** For the refusal's wording. */
  label: string;
  conn: SshSession;
}

/** Where a viewer's stream goes (DesktopEndpoints.locate). */
export interface LocatedDesktop {
  at: SessionEndpoint;
  /**
   * Opens the stream to `at`: at once where nothing but this account can be listening there (a fresh
   * look-up, or the session's 0600 socket), else only once a fresh look-up confirms it (a TCP port
   * from a listing or from last time may since have been taken by another account). A stale endpoint
   * that fails is looked up again.
   */
  open(reach: (e: SessionEndpoint) => Promise<Duplex>): Promise<Duplex>;
  /** For an endpoint remembered from last time: whether a look-up beside the connection still finds it. Null: nothing to confirm. */
  confirmed: Promise<'same' | 'moved'> | null;
}

export interface DesktopEndpointsDeps {
  /** Where display :n is, asked of the server (vncSessions.displayEndpoint). */
  lookUp(conn: SshSession, display: number): Promise<SessionEndpoint>;
  /** The connection's scope: what is kept for it (its passwords, its listing) goes with it. */
  scope(connectionId: string): ConnectionScope;
}

/**
 * The one owner of "where is display :N of this connection, what kind, what password": the listing the
 * server page last saw, where each profile's displays were found, and the passwords of the sessions
 * this app started. Servers tells it what it starts, lists and kills; Viewers and Tunnels ask it. It is
 * also where a display that is not this account's session is refused (issue 40: a viewer would hand
 * the desk's keys and clipboard to whoever listens on 5900+N).
 */
export class DesktopEndpoints {
  private readonly connections = new Map<string, ConnectionDesktops>();
  /** "profileId:display" → where that desktop was last found (memory only). */
  private readonly remembered = new Map<string, SessionEndpoint>();

  constructor(private readonly deps: DesktopEndpointsDeps) {}

  /** The probe or the desktops list saw these sessions (and, from the probe, the server's VNC flavour). */
  listed(connectionId: string, sessions: VncSessionInfo[], flavor?: VncFlavor | null): void {
    const s = this.of(connectionId);
    s.listed = { at: Date.now(), sessions };
    if (flavor !== undefined) s.flavor = flavor;
  }

  /** A display is starting or stopping: it is no longer where it was last found. */
  changing(host: Pick<DesktopHost, 'connectionId' | 'profileId'>, display?: number): void {
    this.of(host.connectionId).listed = undefined;
    if (display !== undefined) this.remembered.delete(`${host.profileId}:${display}`);
  }

  started(host: Pick<DesktopHost, 'connectionId' | 'profileId'>, s: StartedSession): void {
    this.changing(host, s.display);
    const st = this.of(host.connectionId);
    st.flavor = s.flavor;
    if (s.password) {
      st.passwords.get(s.display)?.release();
      st.passwords.set(s.display, { password: s.password, once: s.passwordKind === 'otp', release: registerSecret(s.password) });
    }
  }

  killed(host: Pick<DesktopHost, 'connectionId' | 'profileId'>, display: number): void {
    this.changing(host, display);
    const st = this.of(host.connectionId);
    st.passwords.get(display)?.release();
    st.passwords.delete(display);
  }

  /**
   * Where a viewer goes for display :n: what the server page just listed (what the person clicked: no
   * second look-up), else where this profile's display was found last time (a reconnect, Connect
   * again; confirmed beside the connection), else a look-up. Refuses a display that is not this
   * account's session unless this account or root serves it.
   */
  async locate(host: DesktopHost, display: number): Promise<LocatedDesktop> {
    const key = `${host.profileId}:${display}`;
    const listed = this.freshEndpoint(host.connectionId, display);
    const remembered = listed ? null : (this.remembered.get(key) ?? null);
    const at = listed ?? remembered ?? refuseStranger(await this.deps.lookUp(host.conn, display), display, host.label);
    this.remembered.set(key, at);
    // One look-up serves the confirmation and the retry.
    let again: Promise<SessionEndpoint> | null = null;
    const lookUpAgain = () => (again ??= this.deps.lookUp(host.conn, display).then((now) => {
      if (trustedListener(now.owner) && now.owner.kind !== 'none') this.remembered.set(key, now);
      else this.remembered.delete(key);
      return now;
    }));
    const current = async () => refuseStranger(await lookUpAgain(), display, host.label);
    const stale = listed !== null || remembered !== null;
    const open = (reach: (e: SessionEndpoint) => Promise<Duplex>): Promise<Duplex> => {
      if (!stale) return reach(at);
      if (at.kind === 'tcp') return current().then(reach);
      return reach(at).catch(async () => reach(await current()));
    };
    const confirmed = remembered
      // Nothing there any more is not a move: the stream fails by itself and says the display is not running.
      ? lookUpAgain().then((now) => (sameEndpoint(now, remembered) || now.owner.kind === 'none' ? 'same' as const : 'moved' as const), () => {
        // The server could not say: the next try looks it up afresh rather than trusting last time.
        this.remembered.delete(key);
        return 'moved' as const;
      })
      : null;
    return { at, open, confirmed };
  }

  flavor(connectionId: string): VncFlavor | null {
    return this.connections.get(connectionId)?.flavor ?? null;
  }

  hasPassword(connectionId: string, display: number): boolean {
    return this.connections.get(connectionId)?.passwords.has(display) ?? false;
  }

  /** The session's password for a viewer: a one-time one goes with it (registered until it closes, then spent). */
  takePassword(connectionId: string, display: number): SessionPassword | null {
    const passwords = this.connections.get(connectionId)?.passwords;
    const pw = passwords?.get(display) ?? null;
    if (pw?.once) passwords!.delete(display);
    return pw;
  }

  /** A TigerVNC session's own password (not a one-time one), for tunnel-only mode's viewer; null when this app did not start it. */
  sessionPassword(connectionId: string, display: number): string | null {
    const pw = this.connections.get(connectionId)?.passwords.get(display);
    return pw && !pw.once ? pw.password : null;
  }

  /** A fresh one-time password was made for :n elsewhere (tunnel-only mode): TurboVNC keeps one at a time, so the held one is spent. */
  replacedOneTime(connectionId: string, display: number): void {
    const passwords = this.connections.get(connectionId)?.passwords;
    const pw = passwords?.get(display);
    if (!pw?.once) return;
    pw.release();
    passwords!.delete(display);
  }

  /** The connection closed: every password it held is released. */
  private forget(connectionId: string, s: ConnectionDesktops): void {
    for (const pw of s.passwords.values()) pw.release();
    if (this.connections.get(connectionId) === s) this.connections.delete(connectionId);
  }

  private freshEndpoint(connectionId: string, display: number): SessionEndpoint | null {
    const l = this.connections.get(connectionId)?.listed;
    return l && Date.now() - l.at < LISTING_FRESH_MS ? endpointInListing(l.sessions, display) : null;
  }

  private of(connectionId: string): ConnectionDesktops {
    let s = this.connections.get(connectionId);
    if (!s) {
      const made: ConnectionDesktops = { flavor: null, passwords: new Map() };
      s = made;
      this.connections.set(connectionId, made);
      this.deps.scope(connectionId).add(() => this.forget(connectionId, made));
    }
    return s;
  }
}

/**
 * A display a viewer may open: one of this account's sessions, or served by this account or root.
 * Anything else is refused, naming who listens and the way round it.
 */
export function refuseStranger(at: SessionEndpoint, display: number, where: string): SessionEndpoint {
  if (trustedListener(at.owner)) return at;
  if (at.owner.kind === 'none') {
    throw new GpuDeskError('VNC_SESSION_FAILED', `No desktop is running on display :${display} of ${where}`, 'start one (Desktops, or gpu-desk sessions <server> start), or pick a running one from the list');
  }
  throw new GpuDeskError('VNC_SESSION_FAILED',
    `Display :${display} of ${where} is not one of your desktops: ${ownerText(at.owner)} listens on its port ${5900 + display}`,
    `start your own desktop instead; only if you trust that listener, forward it with gpu-desk tunnel <server> --display ${display} --any-listener`);
}

function sameEndpoint(a: SessionEndpoint, b: SessionEndpoint): boolean {
  return a.flavor === b.flavor && a.owner.kind === b.owner.kind && (a.kind === 'unix' ? b.kind === 'unix' && a.path === b.path : b.kind === 'tcp' && a.host === b.host && a.port === b.port);
}
