import { GpuDeskError, registerSecret } from '../../errors';
import { runningDesktopJob } from '../../cluster/jobTunnel';
import type { JobDesktopLink } from '../../cluster/connect';
import { desktopPassword, openDesktopTunnel, type DesktopTunnel, type DesktopTunnelOptions } from '../../tunnels/desktopTunnel';
import type { TunnelManager } from '../../tunnels/tunnelManager';
import type { Tunnel } from '../../tunnels/tunnel';
import type { DesktopEndpoints } from '../desktopEndpoints';
import type { Emit, HandlersOf, ParsedInput } from '../../../shared/contract';
import type { ForwardOpenFailure, SavedTunnelView, TunnelView } from '../../../shared/models';
import type { RemoteOps } from '../remoteOps';
import { viewerCommands } from '../tunnelInfo';
import type { LiveConnection } from './connections';
import type { HttpChecks } from './httpChecks';

type OpenJobTunnel = { link: JobDesktopLink; tunnels: TunnelManager; info: { id: string }; jobId: string; release: () => void };

interface TunnelState {
  /** Display tunnel id → the forwards opened with it. */
  forwardTunnels: Map<string, string[]>;
  /** Tunnel-only mode to a job's desktop (tunnel id → it), each over its own link to the node. */
  jobTunnels: Map<string, OpenJobTunnel>;
  /** Display tunnel id → the redaction of the password shown with it, dropped when it closes. */
  passwords: Map<string, () => void>;
  /** Tunnel id → takes it out of its connection's scope once it closed on its own. */
  unscope: Map<string, () => void>;
}

export interface TunnelsDeps {
  remote: RemoteOps;
  emit: Emit;
  connections: {
    ready(connectionId: string): LiveConnection;
    all(): LiveConnection[];
    openAndWait(profileId: string, timeoutMs: number): Promise<LiveConnection>;
  };
  /** The profile's saved forwards beside a saved tunnel. */
  openForwards(connectionId: string): Promise<unknown>;
  /** Whether each forward speaks HTTP (one cache for the app, cleared with its connection). */
  http: HttpChecks;
  /** TigerVNC desktops' passwords, for those this app started; told when a fresh one-time password replaces a held one. */
  desktops: Pick<DesktopEndpoints, 'sessionPassword' | 'replacedOneTime'>;
}

/** tunnels.*: tunnel-only mode, a display (or a job's desktop) on a local port with its forwards. */
export class Tunnels {
  private readonly state = new Map<string, TunnelState>();
  /** An extra forward's last connection the server would not open, until one opens (gone with the forward). */
  private readonly refused = new WeakMap<Tunnel, ForwardOpenFailure>();

  constructor(private readonly deps: TunnelsDeps) {}

  handlers(): HandlersOf<'tunnels'> {
    return {
      'tunnels.list': async () => this.views(),
      'tunnels.open': (i) => this.open(i),
      'tunnels.close': async ({ tunnelId }) => {
        for (const c of this.deps.connections.all()) await this.close(c, this.of(c), tunnelId);
        this.deps.emit('tunnels.changed', await this.views());
      },
      'tunnels.openSaved': ({ profileId, jobId }) => this.openSaved(profileId, jobId),
    };
  }

  /** A display tunnel with its forwards and its password, or a job's tunnel with its node link. */
  private async close(c: LiveConnection, s: TunnelState, tunnelId: string): Promise<void> {
    const jt = s.jobTunnels.get(tunnelId);
    if (jt) await this.closeJobTunnel(s, tunnelId, jt);
    const t = c.tunnels.get(tunnelId);
    if (!t) return;
    s.unscope.get(tunnelId)?.();
    s.unscope.delete(tunnelId);
    for (const fid of s.forwardTunnels.get(tunnelId) ?? []) {
      this.deps.http.drop(c.id, fid);
      await c.tunnels.close(fid);
    }
    s.forwardTunnels.delete(tunnelId);
    s.passwords.get(tunnelId)?.();
    s.passwords.delete(tunnelId);
    await c.tunnels.close(tunnelId);
  }

  /** The tunnel goes when its connection does (set up in the state first: the scope may close it at once). */
  private scoped(c: LiveConnection, s: TunnelState, tunnelId: string): void {
    s.unscope.set(tunnelId, c.scope.add(() => this.close(c, s, tunnelId)));
  }

  /**
   * A program that connects to an extra forward whose far end refuses is closed at once (Tunnel does);
   * the tunnel's screen says why, as `ssh -L` and `gpu-desk tunnel` print "open failed: …".
   */
  private watchRefusals(t: Tunnel | undefined): void {
    t?.on('forward-error', (e: Error) => {
      const x = e as Error & { code?: string; fix?: string };
      this.refused.set(t, { code: x.code ?? 'FORWARD_FAILED', message: e.message, ...(x.fix ? { fix: x.fix } : {}) });
      void this.announce();
    });
    t?.on('connection-opened', () => {
      if (this.refused.delete(t)) void this.announce();
    });
  }

  /** Same local ports after a reconnect; whether the services behind the forwards answer is asked again. */
  recheck(c: LiveConnection): void {
    for (const fids of this.state.get(c.id)?.forwardTunnels.values() ?? []) this.checkHttp(c, fids);
  }

  /** Asked beside the tunnel (a silent service must not hold up its listing); each answer is announced. */
  private checkHttp(c: LiveConnection, fids: string[]): void {
    for (const fid of fids) {
      const port = c.tunnels.get(fid)?.info.localPort;
      if (port !== undefined) void this.deps.http.check(c.id, fid, port, () => void this.announce());
    }
  }

  /** Tells the windows and the tray what is open now. */
  async announce(): Promise<void> {
    this.deps.emit('tunnels.changed', await this.views());
  }

  private of(c: LiveConnection): TunnelState {
    let s = this.state.get(c.id);
    if (!s) {
      s = { forwardTunnels: new Map(), jobTunnels: new Map(), passwords: new Map(), unscope: new Map() };
      this.state.set(c.id, s);
      c.scope.once('tunnels', () => void this.state.delete(c.id));
    }
    return s;
  }

  /** The one tunnel-only sequence (desktopTunnel.ts), with this app's view of the server. */
  private desktopTunnel(c: LiveConnection, target: { display: number } | { jobId: string }, localPort?: number): Promise<DesktopTunnel> {
    return openDesktopTunnel(c.conn, c.tunnels, target, { localPort, ...this.desktopOptions(c) });
  }

  private desktopOptions(c: LiveConnection): DesktopTunnelOptions {
    return { destination: c.profile.name, loginOptions: c.options, remote: this.deps.remote, sessionPassword: (d) => this.deps.desktops.sessionPassword(c.id, d) };
  }

  private async open({ connectionId, display, localPort, forwards }: ParsedInput<'tunnels.open'>): Promise<SavedTunnelView> {
    const c = this.deps.connections.ready(connectionId);
    const desk = await this.desktopTunnel(c, { display }, localPort);
    if (desk.passwordKind === 'otp') this.deps.desktops.replacedOneTime(connectionId, display);
    const { info } = desk;
    const fids: string[] = [];
    try {
      for (const f of forwards ?? c.profile.forwards) {
        const fid = (await c.tunnels.openForward({ localPort: f.localPort, remoteHost: f.remoteHost, remotePort: f.remotePort })).id;
        fids.push(fid);
        this.watchRefusals(c.tunnels.get(fid));
      }
    } catch (e) {
      for (const fid of fids) await c.tunnels.close(fid);
      await c.tunnels.close(info.id);
      desk.release();
      throw e;
    }
    const s = this.of(c);
    s.forwardTunnels.set(info.id, fids);
    // Shown to the person for their viewer (as TurboVNC's session manager does); kept out of logs while the tunnel is open.
    s.passwords.set(info.id, desk.release);
    this.scoped(c, s, info.id);
    this.checkHttp(c, fids);
    const views = await this.views();
    this.deps.emit('tunnels.changed', views);
    return { ...views.find((v) => v.id === info.id)!, ...(desk.password ? { oneTimePassword: desk.password } : {}) };
  }

  /**
   * Tunnel-only mode from the tray: the saved display (else the first running desktop) and the saved
   * forwards; for a cluster, the desktop of the user's running job (the one, or the one asked for).
   */
  private async openSaved(profileId: string, jobId?: string): Promise<SavedTunnelView> {
    const c = await this.deps.connections.openAndWait(profileId, 120_000);
    if (c.profile.kind === 'cluster') return this.openJob(c, jobId);
    if (jobId !== undefined) throw new GpuDeskError('NOT_A_CLUSTER', `"${c.profile.name}" is a server profile, not a cluster: it has no jobs`, 'open its tunnel without a job');
    let display = c.profile.display.number;
    if (display === undefined) {
      const sessions = await this.deps.remote.listSessions(c.conn);
      if (!sessions.length) throw new GpuDeskError('VNC_SESSION_FAILED', `No desktop is running on ${c.label}`, 'start one from the server page (Desktops), then open the tunnel again');
      display = sessions[0].display;
    }
    const existing = (await this.views()).find((t) => t.connectionId === c.id && t.display === display);
    if (existing) {
      // Open already: a fresh password for this viewer, released with the tunnel.
      const pw = await desktopPassword(c.conn, display, this.desktopOptions(c));
      if (pw.passwordKind === 'otp') this.deps.desktops.replacedOneTime(c.id, display);
      if (!pw.password) return existing;
      const release = registerSecret(pw.password);
      const s = this.of(c);
      const before = s.passwords.get(existing.id);
      s.passwords.set(existing.id, () => { before?.(); release(); });
      return { ...existing, oneTimePassword: pw.password };
    }
    return this.open({ connectionId: c.id, display, forwards: [] }).then(async (t) => {
      if (c.profile.forwards.length) await this.deps.openForwards(c.id);
      return t;
    });
  }

  /** The same tunnel-only mode as `gpu-desk tunnel <cluster> --job ID`, with a one-time password for the viewer. */
  private async openJob(c: LiveConnection, jobId?: string): Promise<SavedTunnelView> {
    const job = await runningDesktopJob(c.conn, c.profile.name, jobId);
    const s = this.of(c);
    let tid = [...s.jobTunnels].find(([, jt]) => jt.jobId === job.jobId)?.[0];
    let otp: string;
    let release: () => void;
    if (!tid) {
      const desk = await this.desktopTunnel(c, { jobId: job.jobId });
      tid = desk.info.id;
      s.jobTunnels.set(tid, { link: desk.link!, tunnels: desk.tunnels, info: desk.info, jobId: job.jobId, release: () => {} });
      s.forwardTunnels.set(tid, []);
      this.scoped(c, s, tid);
      otp = desk.password!;
      release = desk.release;
    } else {
      // The tunnel is open already: another one-time password for another viewer.
      const jt = s.jobTunnels.get(tid)!;
      try {
        otp = await jt.link.oneTimePassword();
      } catch (e) {
        await this.closeJobTunnel(s, tid, jt);
        throw e;
      }
      release = registerSecret(otp);
    }
    const jt = s.jobTunnels.get(tid)!;
    // Shown to the person for their viewer; kept out of logs and errors while the tunnel is open.
    const before = jt.release;
    jt.release = () => { before(); release(); };
    const views = await this.views();
    this.deps.emit('tunnels.changed', views);
    return { ...views.find((v) => v.id === tid)!, oneTimePassword: otp };
  }

  private async closeJobTunnel(s: TunnelState, tunnelId: string, jt: OpenJobTunnel): Promise<void> {
    s.jobTunnels.delete(tunnelId);
    s.forwardTunnels.delete(tunnelId);
    s.unscope.get(tunnelId)?.();
    s.unscope.delete(tunnelId);
    jt.release();
    await jt.tunnels.closeAll();
    await jt.link.close().catch(() => {});
  }

  private async views(): Promise<TunnelView[]> {
    const out: TunnelView[] = [];
    for (const c of this.deps.connections.all()) {
      const s = this.state.get(c.id);
      if (!s) continue;
      for (const [tid, fids] of s.forwardTunnels) {
        const jt = s.jobTunnels.get(tid);
        const t = (jt?.tunnels ?? c.tunnels).get(tid);
        if (!t) continue;
        const info = t.info;
        const st = t.stats();
        const forwards = [];
        for (const fid of fids) {
          const ft = c.tunnels.get(fid);
          const f = ft?.info;
          if (!ft || !f) continue;
          const http = this.deps.http.state(c.id, fid) === 'yes';
          const openFailed = this.refused.get(ft);
          forwards.push({ kind: 'local' as const, localPort: f.localPort, remoteHost: f.remoteHost, remotePort: f.remotePort, url: http ? `http://127.0.0.1:${f.localPort}/` : null, ...(openFailed ? { openFailed } : {}) });
        }
        out.push({
          id: tid,
          connectionId: c.id,
          localHost: info.localHost,
          localPort: info.localPort,
          display: info.display ?? info.remotePort - 5900,
          remotePort: info.remotePort,
          ...(info.remoteSocket ? { remoteSocket: info.remoteSocket } : {}),
          ...(jt ? { ...(jt.link.info.socket ? { remoteSocket: jt.link.info.socket } : {}), job: { jobId: jt.jobId, node: jt.link.info.node, route: jt.link.mode } } : {}),
          forwards,
          bytesIn: st.bytesIn,
          bytesOut: st.bytesOut,
          clients: st.openConnections,
          commands: viewerCommands(info.localHost, info.localPort),
        });
      }
    }
    return out;
  }
}
