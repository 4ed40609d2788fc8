import { inviteToWatch } from '../invites';
import { ShownOnce } from '../shownOnce';
import type { SetupPlan } from '../../remote/types';
import { registerSecret } from '../../errors';
import { endpointInListing, type SessionEndpoint } from '../../remote/vncSessions';
import type { VncSessionInfo } from '../../remote/types';
import type { Emit, HandlersOf, ParsedInput } from '../../../shared/contract';
import type { VncFlavor } from '../../../shared/models';
import type { RemoteOps } from '../remoteOps';
import { gpuView, planView, progressView, reportView, resultView, sessionView } from '../views';
import type { LiveConnection } from './connections';

/** How long a listing stands for where a session is reached: about the time from seeing it to clicking it. */
const LISTING_FRESH_MS = 60_000;

/** The password a session was started with (memory only; OTPs are used once), registered until `release`. */
export interface SessionPassword {
  password: string;
  once: boolean;
  release: () => void;
}

interface ServerState {
  flavor: VncFlavor;
  /** Display → its session's password. */
  passwords: Map<number, SessionPassword>;
  /** This account's sessions as the probe or the desktops list last saw them (a viewer uses a fresh one). */
  listed?: { at: number; sessions: VncSessionInfo[] };
}

/** What a viewer needs to know of a server's sessions. */
export interface SessionsOfServer {
  /** Where display :n is, when the server page listed it a moment ago. */
  freshEndpoint(connectionId: string, display: number): SessionEndpoint | null;
  flavor(connectionId: string): VncFlavor;
  hasPassword(connectionId: string, display: number): boolean;
  /** The session's password for a viewer: a one-time one is handed out once. */
  takePassword(connectionId: string, display: number): SessionPassword | null;
}

export interface ServersDeps {
  remote: RemoteOps;
  emit: Emit;
  ready(connectionId: string): LiveConnection;
  viewers: {
    /** Killing a session closes its viewers. */
    closeDisplay(connectionId: string, display: number): void;
    /** A display started or killed is no longer where it was last found. */
    forgetEndpoint(profileId: string, display: number): void;
  };
}

/** server.*, sessions.*, setup.*: the probe and GPU samples, VNC desktops, and the set-up plan. */
export class Servers implements SessionsOfServer {
  private readonly state = new Map<string, ServerState>();
  /** Set-up plans shown to the window, by id (setup.apply runs only one of these). */
  private readonly plans = new ShownOnce<SetupPlan>('set-up plan');

  constructor(private readonly deps: ServersDeps) {}

  handlers(): HandlersOf<'server' | 'sessions' | 'setup'> {
    return {
      'server.probe': async ({ connectionId }) => {
        const c = this.deps.ready(connectionId);
        const r = await this.deps.remote.probe(c.conn);
        const s = this.of(connectionId);
        s.flavor = r.vnc.flavor;
        s.listed = { at: Date.now(), sessions: r.sessions };
        return reportView(r);
      },
      'server.gpus': async ({ connectionId }) => ({ at: Date.now(), gpus: (await this.deps.remote.gpus(this.deps.ready(connectionId).conn)).map(gpuView) }),
      'sessions.list': async ({ connectionId }) => {
        const c = this.deps.ready(connectionId);
        const sessions = await this.deps.remote.listSessions(c.conn);
        this.of(connectionId).listed = { at: Date.now(), sessions };
        return sessions.map(sessionView);
      },
      'sessions.start': async ({ connectionId, display, geometry, windowManager, transport, gpu }) => {
        const c = this.deps.ready(connectionId);
        const st = this.of(connectionId);
        st.listed = undefined;
        const s = await this.deps.remote.startSession(c.conn, { display, geometry, windowManager, transport, ...(gpu === undefined ? {} : { gpu }) });
        this.deps.viewers.forgetEndpoint(c.profile.id, s.display);
        st.flavor = s.flavor;
        if (s.password) {
          st.passwords.get(s.display)?.release();
          st.passwords.set(s.display, { password: s.password, once: s.passwordKind === 'otp', release: registerSecret(s.password) });
        }
        return sessionView(s);
      },
      'sessions.invite': ({ connectionId, display }) => inviteToWatch(this.deps.ready(connectionId), display),
      'sessions.kill': async ({ connectionId, display }) => {
        const c = this.deps.ready(connectionId);
        this.deps.viewers.closeDisplay(connectionId, display);
        const st = this.of(connectionId);
        st.listed = undefined;
        this.deps.viewers.forgetEndpoint(c.profile.id, display);
        await this.deps.remote.killSession(c.conn, display);
        st.passwords.get(display)?.release();
        st.passwords.delete(display);
      },
      'setup.plan': async ({ connectionId, options }) => {
        const plan = await this.deps.remote.plan(this.deps.ready(connectionId).conn, options);
        return { ...planView(plan), planId: this.plans.keep(connectionId, plan) };
      },
      'setup.apply': (i) => this.apply(i),
    };
  }

  freshEndpoint(connectionId: string, display: number): SessionEndpoint | null {
    const l = this.state.get(connectionId)?.listed;
    return l && Date.now() - l.at < LISTING_FRESH_MS && l.sessions.some((x) => x.display === display) ? endpointInListing(l.sessions, display) : null;
  }

  flavor(connectionId: string): VncFlavor {
    return this.state.get(connectionId)?.flavor ?? null;
  }

  hasPassword(connectionId: string, display: number): boolean {
    return this.state.get(connectionId)?.passwords.has(display) ?? false;
  }

  takePassword(connectionId: string, display: number): SessionPassword | null {
    const passwords = this.state.get(connectionId)?.passwords;
    const pw = passwords?.get(display) ?? null;
    // A one-time password goes with this viewer: registered until it closes, then spent.
    if (pw?.once) passwords!.delete(display);
    return pw;
  }

  /** The connection closed: every password it held is released. */
  forget(connectionId: string): void {
    this.plans.forget(connectionId);
    const s = this.state.get(connectionId);
    for (const pw of s?.passwords.values() ?? []) pw.release();
    this.state.delete(connectionId);
  }

  private of(connectionId: string): ServerState {
    let s = this.state.get(connectionId);
    if (!s) {
      s = { flavor: null, passwords: new Map() };
      this.state.set(connectionId, s);
    }
    return s;
  }

  private async apply({ connectionId, runId, sudoPassword, planId }: ParsedInput<'setup.apply'>) {
    const c = this.deps.ready(connectionId);
    registerSecret(sudoPassword);
    // Exactly the plan the window showed, as core made it: the window sends only its id. Each step
    // still checks the server before it runs, so a step done meanwhile is skipped.
    const plan = this.plans.take(planId, connectionId);
    const result = await this.deps.remote.apply(c.conn, plan, {
      sudoPassword,
      onProgress: (p) => this.deps.emit('setup.progress', progressView(runId, p)),
    });
    return resultView(result);
  }
}
