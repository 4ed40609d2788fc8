import { randomBytes } from 'node:crypto';
import type { SFTPWrapper } from 'ssh2';
import { GpuDeskError, redactSecrets, toErrorValue } from '../../errors';
import { connectSsh, type SshConnection } from '../../ssh/connection';
import type { ConnectOptions, ConnectionStateEvent } from '../../ssh/types';
import { TunnelManager } from '../../tunnels/tunnelManager';
import type { SecretStore } from '../../keychain/secretStore';
import { savedPassword, savePassword } from '../../keychain/passwords';
import type { Emit, HandlersOf } from '../../../shared/contract';
import type { ConnectionView, Profile } from '../../../shared/models';
import type { PromptBroker } from '../prompts';
import { appConnectOptions, type AppConnectDeps, type PasswordState } from './appConnectOptions';
import { testConnection } from './connectionTest';
import { ConnectionScope } from '../connectionScope';

/** The longest a viewer's round-trip probe waits (video mode's link signal). */
const RTT_PROBE_MS = 3000;

/** A connection past its first login: what every service works with (never half-made). */
export interface LiveConnection {
  readonly id: string;
  readonly profile: Profile;
  readonly label: string;
  readonly conn: SshConnection;
  /** How conn was made: a job's node is reached with the same settings, through conn. */
  readonly options: ConnectOptions;
  /** The connection's local listeners (display tunnels and forwards). */
  readonly tunnels: TunnelManager;
  /** Answers typed into this connection's keyboard-interactive prompts: short ones are redacted only in its own lines. */
  readonly typed: string[];
  /** "hop fingerprint" of host keys the person accepted for this connection: a key-only proving login trusts them too. */
  readonly accepted: Set<string>;
  /** What the connection owns: each service adds what it opens here, and all of it goes when the connection closes. */
  readonly scope: ConnectionScope;
}

interface Entry {
  id: string;
  profile: Profile;
  label: string;
  state: ConnectionView['state'];
  error: ConnectionView['error'];
  typed: string[];
  accepted: Set<string>;
  live: LiveConnection | null;
  /** One SFTP session per link; a reconnect starts a new one. */
  sftp: Promise<SFTPWrapper> | null;
  scope: ConnectionScope;
}

export interface ConnectionsDeps extends AppConnectDeps {
  emit: Emit;
  prompts: PromptBroker;
  secrets?: SecretStore;
  profileById(id: string): Promise<Profile>;
  log(line: string): void;
  /** The SSH layer (tests pass a fake one). */
  connect?(options: ConnectOptions): Promise<SshConnection>;
}

/**
 * Open, dial and close: one live connection per profile, its prompts, remembered passwords and SFTP
 * session. Services add what they open for a connection to its scope (connectionScope.ts) and are told
 * of each reconnect with `onReady`; nothing else reaches into a connection's record.
 */
export class Connections {
  private readonly entries = new Map<string, Entry>();
  private readonly closedHooks: (() => Promise<void> | void)[] = [];
  private readonly readyHooks: ((c: LiveConnection) => void)[] = [];

  constructor(private readonly deps: ConnectionsDeps) {}

  handlers(): HandlersOf<'connections'> {
    return {
      'connections.list': async () => [...this.entries.values()].map((e) => this.view(e)),
      'connections.open': ({ profileId }) => this.open(profileId),
      'connections.close': ({ connectionId }) => this.close(connectionId),
      'connections.test': ({ profile }) => testConnection(this.deps, profile),
    };
  }

  /** Runs once a closed connection is gone from the list (services announce what is left). */
  onClosed(hook: () => Promise<void> | void): void {
    this.closedHooks.push(hook);
  }

  /** Runs each time a connection comes back after a drop (same local ports; the services behind may differ). */
  onReady(hook: (c: LiveConnection) => void): void {
    this.readyHooks.push(hook);
  }

  /**
   * What the connection owns. A connection that is gone has a scope already disposed: whatever a late
   * reply adds for it is let go of at once.
   */
  scope(connectionId: string): ConnectionScope {
    const e = this.entries.get(connectionId);
    if (e) return e.scope;
    const gone = new ConnectionScope(this.deps.log, connectionId);
    void gone.dispose();
    return gone;
  }

  /** The connection, ready for work; else a NOT_CONNECTED error the person can act on. */
  ready(connectionId: string): LiveConnection {
    const e = this.entries.get(connectionId);
    if (!e || !e.live) throw new GpuDeskError('NOT_CONNECTED', 'Not connected to that server', 'connect from the server list first');
    if (e.state !== 'ready') throw new GpuDeskError('NOT_CONNECTED', `The connection to ${e.label} is ${e.state}`, 'wait for it to come back, or reconnect');
    return e.live;
  }

  /** Every connection past its first login, ready or not (listings show them all). */
  all(): LiveConnection[] {
    return [...this.entries.values()].flatMap((e) => (e.live ? [e.live] : []));
  }

  profileIdOf(connectionId: string): string | undefined {
    return this.entries.get(connectionId)?.profile.id;
  }

  rttMs(connectionId: string): number | null {
    return this.entries.get(connectionId)?.live?.conn.rttMs ?? null;
  }

  /** A round trip measured now; one that times out counts as that long (a full queue), not as the last keepalive's figure. */
  async measureRtt(connectionId: string): Promise<number | null> {
    const conn = this.entries.get(connectionId)?.live?.conn;
    if (!conn) return null;
    return conn.measureRtt(RTT_PROBE_MS).catch((e: GpuDeskError) => (e.code === 'CONNECT_TIMEOUT' ? RTT_PROBE_MS : conn.rttMs));
  }

  /** The live connection for a profile, opened (with its usual questions) when there is none. */
  async readyFor(profileId: string): Promise<LiveConnection> {
    const v = await this.open(profileId);
    return this.ready(v.id);
  }

  /** Like readyFor, but waits out a reconnect in progress (the tray's saved tunnels). */
  async openAndWait(profileId: string, timeoutMs: number): Promise<LiveConnection> {
    const v = await this.open(profileId);
    const e = this.entries.get(v.id)!;
    if (e.state !== 'ready') await e.live?.conn.whenReady(timeoutMs);
    return e.live ?? this.ready(v.id);
  }

  /** The connection's options without secrets or questions, for a second login as the same account. */
  async optionsFor(c: LiveConnection): Promise<ConnectOptions> {
    return appConnectOptions(this.deps, c.profile, this.entries.get(c.id) ?? c, {});
  }

  sftp(connectionId: string): Promise<SFTPWrapper> {
    this.ready(connectionId);
    const e = this.entries.get(connectionId)!;
    if (!e.sftp) {
      const p = e.live!.conn.sftp();
      e.sftp = p;
      p.then(
        (s) => {
          // The server's sftp-server ends with its channel.
          const remove = e.scope.add(() => s.end());
          s.once('close', () => { remove(); if (e.sftp === p) e.sftp = null; });
        },
        () => { if (e.sftp === p) e.sftp = null; },
      );
    }
    return e.sftp;
  }

  async closeProfile(profileId: string): Promise<void> {
    for (const e of [...this.entries.values()]) if (e.profile.id === profileId) await this.close(e.id);
  }

  async close(connectionId: string): Promise<void> {
    const e = this.entries.get(connectionId);
    if (!e) return;
    this.deps.prompts.cancelFor(connectionId);
    // Newest first: what the services opened over the link, then its listeners, then the link.
    await e.scope.dispose();
    e.state = 'closed';
    this.deps.emit('connection.state', this.view(e));
    this.entries.delete(connectionId);
    for (const hook of this.closedHooks) await hook();
  }

  async shutdown(): Promise<void> {
    for (const id of [...this.entries.keys()]) await this.close(id).catch(() => {});
  }

  private view(e: Entry): ConnectionView {
    return { id: e.id, profileId: e.profile.id, label: e.label, state: e.state, rttMs: e.live?.conn.rttMs ?? null, login: e.live?.conn.lastLogin ?? null, error: e.error };
  }

  async open(profileId: string): Promise<ConnectionView> {
    const profile = await this.deps.profileById(profileId);
    // One live connection per profile: a second "Connect" shows the existing one.
    for (const e of this.entries.values()) {
      if (e.profile.id === profileId && e.state !== 'closed') return this.view(e);
    }
    const id = `c${randomBytes(6).toString('hex')}`;
    const label = `${profile.user ? `${profile.user}@` : ''}${profile.host}${profile.port === 22 ? '' : `:${profile.port}`}`;
    const e: Entry = { id, profile, label, state: 'connecting', error: null, typed: [], accepted: new Set(), live: null, sftp: null, scope: new ConnectionScope(this.deps.log, label) };
    this.entries.set(id, e);
    this.deps.emit('connection.state', this.view(e));
    try {
      const { conn, options } = await this.dial(profile, e);
      const live: LiveConnection = { id, profile, label, conn, options, tunnels: new TunnelManager(conn), typed: e.typed, accepted: e.accepted, scope: e.scope };
      // Added first, so gone last: every listener and channel the services open rides on the link.
      e.scope.add(() => conn.close());
      e.scope.add(() => live.tunnels.closeAll());
      e.live = live;
      e.state = 'ready';
      conn.on('state', (ev: ConnectionStateEvent) => {
        e.state = ev.state;
        e.error = ev.reason ? { code: ev.code ?? 'CONNECTION_LOST', message: redactSecrets(ev.reason, e.typed) } : ev.state === 'ready' ? null : e.error;
        // A question of an attempt that is over is no question any more: closed, a failed reconnect
        // attempt (the next one asks again if it must), or connected again by a later attempt.
        if (ev.state === 'closed' || ev.state === 'reconnecting' || ev.state === 'ready') this.deps.prompts.cancelFor(id);
        if (ev.state !== 'ready') e.sftp = null;
        this.deps.emit('connection.state', this.view(e));
        if (ev.state === 'ready') for (const hook of this.readyHooks) hook(live);
      });
      this.deps.emit('connection.state', this.view(e));
      return this.view(e);
    } catch (err) {
      e.state = 'closed';
      const v = toErrorValue(err);
      e.error = { ...v, message: redactSecrets(v.message, e.typed) };
      this.deps.prompts.cancelFor(id);
      this.deps.emit('connection.state', this.view(e));
      this.entries.delete(id);
      await e.scope.dispose();
      throw err;
    }
  }

  /**
   * Connects as the profile says. A remembered password is tried first; when the server refuses it,
   * the person is asked (once) and what worked replaces it. A password typed for a profile that
   * remembers passwords is saved only after the server accepted it.
   */
  private async dial(profile: Profile, e: Entry): Promise<{ conn: SshConnection; options: ConnectOptions }> {
    const secrets = this.deps.secrets;
    const connect = this.deps.connect ?? connectSsh;
    const remembers = profile.auth.kind === 'password' && profile.auth.remember && secrets !== undefined;
    const pw: PasswordState = {};
    if (remembers) pw.saved = (await savedPassword(secrets!, profile.id)) ?? undefined;
    let options: ConnectOptions;
    let conn: SshConnection;
    try {
      options = await appConnectOptions(this.deps, profile, e, pw);
      conn = await connect(options);
    } catch (err) {
      if (pw.saved === undefined || (err as GpuDeskError).code !== 'AUTH_FAILED') throw err;
      this.deps.log(`[${profile.name}] the remembered password was refused; asking for it again`);
      pw.saved = undefined;
      pw.typed = undefined;
      options = await appConnectOptions(this.deps, profile, e, pw);
      conn = await connect(options);
    }
    if (remembers && pw.typed !== undefined) {
      await savePassword(secrets!, profile.id, pw.typed).catch((x: unknown) => this.deps.log(`[${profile.name}] could not remember the password: ${toErrorValue(x).message}`));
    }
    return { conn, options };
  }
}
