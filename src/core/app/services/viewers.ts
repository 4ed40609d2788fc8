import type { Duplex } from 'node:stream';
import { GpuDeskError, registerSecret } from '../../errors';
import type { SshConnection } from '../../ssh/connection';
import type { ChannelHub } from '../../vnc/channelHub';
import type { ChannelCounters } from '../../vnc/pipe';
import { openSpeakingFirst, RFB_38_CLIENT_VERSION } from '../../vnc/rfbEarly';
import type { SessionEndpoint } from '../../remote/vncSessions';
import type { DesktopEndpoints } from '../desktopEndpoints';
import type { HandlersOf } from '../../../shared/contract';
import type { ViewerTicket } from '../../../shared/models';
import type { RemoteOps } from '../remoteOps';
import { VideoStreams, type VideoEncoderChoice, type VideoTarget } from './videoStreams';
import type { VideoStreamSession } from '../../video/videoStream';
import type { LiveConnection } from './connections';
import type { ConnectionScope } from '../connectionScope';
import { desktopMachine, gpuSource } from '../gpuSource';
import { gpuFiguresView } from '../views';
import { queryGpuFigures } from '../../remote/gpuFigures';

interface Viewer {
  id: string;
  connectionId: string;
  display: number;
  counters: ChannelCounters;
  /** Drops the redaction of the viewer's one-time password: it is spent once the viewer closes. */
  release: () => void;
  /** A one-time password still being fetched when the ticket went out (ViewerTicket.passwordLater). */
  password?: Promise<string | null>;
  /** For a job's desktop: the Slurm job. */
  jobId?: string;
  /** For a job's desktop: the UUID of the GPU it renders on (the job's first allocated GPU). */
  renderGpuUuid?: string;
  /** Takes the viewer out of its connection's scope once it closed on its own. */
  unscope?: () => void;
}

/** A viewer that another service opened (a job's desktop): the hub's ticket and what it holds. */
export type AdoptedViewer = Omit<Viewer, 'password' | 'unscope'>;

export interface ViewersDeps {
  hub: ChannelHub;
  /** ws://127.0.0.1:port the hub is reachable at from the window. */
  channelBase(): string;
  remote: RemoteOps;
  ready(connectionId: string): LiveConnection;
  rttMs(connectionId: string): number | null;
  /** A fresh round trip on the connection (video mode's link signal; keepalives come every 15 s). */
  measureRtt(connectionId: string): Promise<number | null>;
  /** The node connection of a job's desktop, where its video encoder runs (null: a login-node forward). */
  jobNode(jobId: string): SshConnection | null | undefined;
  /** Which H.264 encoder a machine has (the probe's video section). */
  encoders(session: VideoStreamSession): Promise<VideoEncoderChoice>;
  /** Where each desktop is, and its password. */
  desktops: DesktopEndpoints;
  /** The node connection of a job's desktop goes with its viewer. */
  closeJobLink(jobId: string): void;
  log(line: string): void;
}

/** viewer.*: tickets for the window's viewer, and when its password may go out. */
export class Viewers {
  private readonly viewers = new Map<string, Viewer>();

  /** Video mode's streams, one per viewer at most (viewer.videoStart / viewer.videoStop). */
  private readonly video: VideoStreams;

  constructor(private readonly deps: ViewersDeps) {
    this.video = new VideoStreams({ hub: deps.hub, channelBase: deps.channelBase, target: (id) => this.videoTarget(id), encoders: deps.encoders, log: deps.log });
  }

  handlers(): HandlersOf<'viewer'> {
    return {
      'viewer.open': ({ connectionId, display }) => this.open(connectionId, display),
      'viewer.close': async ({ viewerId }) => this.close(viewerId),
      'viewer.password': async ({ viewerId }) => ({ password: (await this.viewer(viewerId).password) ?? null }),
      'viewer.stats': async ({ viewerId, measureRtt }) => {
        const v = this.viewer(viewerId);
        const rttMs = measureRtt ? await this.deps.measureRtt(v.connectionId) : this.deps.rttMs(v.connectionId);
        return { bytesIn: v.counters.bytesIn, bytesOut: v.counters.bytesOut, rttMs, at: Date.now() };
      },
      'viewer.gpus': async ({ viewerId }) => {
        const v = this.viewer(viewerId);
        const src = gpuSource(v, { connection: (id) => this.deps.ready(id).conn, jobNode: (j) => this.deps.jobNode(j) });
        if (!src.session) return { at: Date.now(), available: false, why: src.why, gpus: [] };
        const a = await queryGpuFigures(src.session, src.inJob !== undefined ? { inJob: src.inJob } : {});
        // A job's GPU is known by UUID: the node numbers its GPUs one way, a job step (cgroup) another.
        const renders = v.renderGpuUuid ? a.gpus.find((g) => g.uuid === v.renderGpuUuid) : undefined;
        return { at: Date.now(), available: a.available, why: null, gpus: a.gpus.map(gpuFiguresView), ...(renders ? { renderGpu: renders.index } : {}) };
      },
      ...this.video.handlers(),
    };
  }

  /** Where clipboard images go: the machine that runs the viewer's desktop, which must be one this app has a shell on. */
  imageTarget(viewerId: string): { conn: SshConnection; display: number } {
    const v = this.viewer(viewerId);
    const m = this.machineOf(v);
    // Images go through the server connection's shell only so far, and a job's desktop runs on a compute node (text still goes through RFB).
    if (m.kind !== 'server') throw new GpuDeskError('BAD_ARGUMENT', "Images cannot be copied to or from a cluster job's desktop yet", 'copy text instead, or save the image as a file and drop it on the viewer');
    return { conn: m.session, display: v.display };
  }

  private machineOf(v: Viewer) {
    return desktopMachine(v, { connection: (id) => this.deps.ready(id).conn, jobNode: (j) => this.deps.jobNode(j) });
  }

  /** A viewer another service opened (a job's desktop), owned by the login connection's scope like the app's own. */
  adopt(v: AdoptedViewer, scope: ConnectionScope): void {
    this.keep(v, scope);
  }

  /**
   * The viewer goes with its connection; its video streams go with it (close). Another login may see
   * another ffmpeg, so the server's encoders are asked again after the connection went.
   */
  private keep(v: Viewer, scope: ConnectionScope): void {
    this.viewers.set(v.id, v);
    v.unscope = scope.add(() => this.close(v.id));
    scope.once('video encoders', () => this.video.forgetMachine(v.connectionId));
  }

  /** Where a viewer's video encoder runs: the server itself, or a job's compute node. */
  private videoTarget(viewerId: string): VideoTarget {
    const v = this.viewer(viewerId);
    const m = this.machineOf(v);
    return m.session
      ? { session: m.session, display: v.display, machine: m.machine }
      : { session: null, display: v.display, machine: m.machine, whyNot: 'the job\'s desktop is reached through a login-node forward, with no shell on its node' };
  }

  close(viewerId: string): void {
    this.video.stop(viewerId);
    this.deps.hub.revoke(viewerId);
    const v = this.viewers.get(viewerId);
    v?.release();
    v?.unscope?.();
    this.viewers.delete(viewerId);
    if (v?.jobId) this.deps.closeJobLink(v.jobId);
  }

  closeDisplay(connectionId: string, display: number): void {
    for (const v of [...this.viewers.values()]) if (v.connectionId === connectionId && v.display === display) this.close(v.id);
  }

  closeJob(jobId: string): void {
    for (const v of [...this.viewers.values()]) if (v.jobId === jobId) this.close(v.id);
  }

  private viewer(viewerId: string): Viewer {
    const v = this.viewers.get(viewerId);
    if (!v) throw new GpuDeskError('BAD_ARGUMENT', 'That viewer is closed', 'open the session again');
    return v;
  }

  private async open(connectionId: string, display: number): Promise<ViewerTicket> {
    const l = this.deps.ready(connectionId);
    const { conn } = l;
    const desktops = this.deps.desktops;
    // Refuses a display that is not this account's desktop (another account may listen there).
    const found = await desktops.locate({ connectionId, profileId: l.profile.id, label: l.label, conn }, display);
    const { at } = found;
    const flavor = at.flavor ?? desktops.flavor(connectionId);
    const reach = (e: SessionEndpoint): Promise<Duplex> => (e.kind === 'unix' ? conn.forwardOutUnix(e.path) : conn.forwardOut(e.host, e.port));
    const openRaw = () => found.open(reach);
    // A known TurboVNC session: the viewer's version goes first (rfbEarly.ts: TurboVNC waits 100 ms otherwise).
    const speakFirst = at.flavor === 'turbovnc';
    // The stream opens while the one-time password is fetched and the page is told where to connect.
    const ticket = this.deps.hub.register(speakFirst ? () => openSpeakingFirst(openRaw) : openRaw, { eager: true, ...(speakFirst ? { sentForViewer: RFB_38_CLIENT_VERSION } : {}) });
    // A remembered endpoint is not confirmed yet: the session may have ended and another process
    // (another user's, even) taken its port. No password goes out until the look-up beside the
    // connection says the endpoint is still this display's session; a moved one closes the viewer
    // first, so its password is never handed to what now listens there.
    const confirmed = found.confirmed?.then((c) => {
      if (c === 'moved' && this.viewers.has(ticket.id)) {
        this.deps.log(`[${l.profile.name}] display :${display} has moved; reconnecting its viewer`);
        this.close(ticket.id);
      }
      return c;
    }) ?? null;
    const gated = (p: Promise<string | null>): Promise<string | null> => {
      if (!confirmed) return p;
      const out = Promise.all([p, confirmed]).then(([v, c]) => {
        if (c === 'moved') throw new GpuDeskError('BAD_ARGUMENT', `That viewer is closed: display :${display} has moved`, 'The viewer reconnects to where the server now says');
        return v;
      });
      out.catch(() => {});
      return out;
    };
    // A TurboVNC session we did not start, or whose one-time password is spent (every reconnect of the
    // viewer opens it again), gets a fresh one. The ticket does not wait for it: the page connects and
    // asks for it (viewer.password) when the server wants it, so the fetch overlaps the handshake.
    const later = flavor === 'turbovnc' && !desktops.hasPassword(connectionId, display) ? heldSecret(this.deps.remote.oneTimePassword(conn, display).catch(() => null)) : null;
    const remotePort = at.kind === 'tcp' ? at.port : null;
    const pw = later ? null : desktops.takePassword(connectionId, display);
    // A stored password for a remembered endpoint waits for the check too (asked for like a late OTP).
    const password = later ? gated(later.value) : pw && confirmed ? gated(Promise.resolve(pw.password)) : null;
    this.keep({ id: ticket.id, connectionId, display, counters: ticket.counters, release: later?.release ?? (pw?.once ? pw.release : () => {}), ...(password ? { password } : {}) }, l.scope);
    return {
      viewerId: ticket.id,
      url: `${this.deps.channelBase()}${ticket.path}`,
      display,
      remotePort,
      remoteSocket: at.kind === 'unix' ? at.path : null,
      flavor,
      vncPassword: password ? null : (pw?.password ?? null),
      passwordLater: password !== null,
    };
  }
}

/**
 * A secret still on its way (a one-time password being fetched): registered for redaction once it
 * arrives, and released by `release` whether that comes before or after.
 */
function heldSecret(p: Promise<string | null>): { value: Promise<string | null>; release: () => void } {
  let released = false;
  let drop: (() => void) | null = null;
  const value = p.then((v) => {
    if (v && !released) drop = registerSecret(v);
    return released ? null : v;
  });
  return { value, release: () => { released = true; drop?.(); drop = null; } };
}
