import type { Duplex } from 'node:stream';
import { GpuDeskError, registerSecret } from '../../errors';
import type { SshConnection } from '../../ssh/connection';
import type { ChannelHub } from '../../vnc/channelHub';
import type { ChannelCounters } from '../../vnc/pipe';
import { openSpeakingFirst, RFB_38_CLIENT_VERSION } from '../../vnc/rfbEarly';
import type { SessionEndpoint } from '../../remote/vncSessions';
import type { HandlersOf } from '../../../shared/contract';
import type { ViewerTicket } from '../../../shared/models';
import type { RemoteOps } from '../remoteOps';
import { VideoStreams, type VideoEncoderChoice, type VideoTarget } from './videoStreams';
import type { VideoStreamSession } from '../../video/videoStream';
import type { LiveConnection } from './connections';
import type { SessionsOfServer } from './servers';
import { gpuSource } from '../gpuSource';
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
}

/** A viewer that another service opened (a job's desktop): the hub's ticket and what it holds. */
export type AdoptedViewer = Omit<Viewer, 'password'>;

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
  sessions: SessionsOfServer;
  /** The node connection of a job's desktop goes with its viewer. */
  closeJobLink(jobId: string): void;
  log(line: string): void;
}

/** viewer.*: tickets for the window's viewer, where each desktop was last found, and when its password may go out. */
export class Viewers {
  private readonly viewers = new Map<string, Viewer>();
  /** "profileId:display" → where that desktop was last found (memory only; see open). */
  private readonly endpoints = new Map<string, SessionEndpoint>();

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

  /** What a viewer looks at: the connection its stream goes through, the display, and the job for a job's desktop. */
  viewerTarget(viewerId: string): { conn: SshConnection; display: number; jobId?: string } {
    const v = this.viewer(viewerId);
    return { conn: this.deps.ready(v.connectionId).conn, display: v.display, ...(v.jobId ? { jobId: v.jobId } : {}) };
  }

  adopt(v: AdoptedViewer): void {
    this.viewers.set(v.id, v);
  }

  /** Where a viewer's video encoder runs: the server itself, or a job's compute node. */
  private videoTarget(viewerId: string): VideoTarget {
    const v = this.viewer(viewerId);
    if (v.jobId) {
      const node = this.deps.jobNode(v.jobId);
      return node
        ? { session: node, display: v.display, machine: `job:${v.jobId}` }
        : { session: null, display: v.display, machine: `job:${v.jobId}`, whyNot: 'the job\'s desktop is reached through a login-node forward, with no shell on its node' };
    }
    return { session: this.deps.ready(v.connectionId).conn, display: v.display, machine: v.connectionId };
  }

  close(viewerId: string): void {
    this.video.stop(viewerId);
    this.deps.hub.revoke(viewerId);
    const v = this.viewers.get(viewerId);
    v?.release();
    this.viewers.delete(viewerId);
    if (v?.jobId) this.deps.closeJobLink(v.jobId);
  }

  closeDisplay(connectionId: string, display: number): void {
    for (const v of [...this.viewers.values()]) if (v.connectionId === connectionId && v.display === display) this.close(v.id);
  }

  closeJob(jobId: string): void {
    for (const v of [...this.viewers.values()]) if (v.jobId === jobId) this.close(v.id);
  }

  closeConnection(connectionId: string): void {
    for (const v of [...this.viewers.values()]) if (v.connectionId === connectionId) this.close(v.id);
    // Another login may see another ffmpeg: the machine's encoders are asked again next time.
    this.video.forgetMachine(connectionId);
  }

  forgetEndpoint(profileId: string, display: number): void {
    this.endpoints.delete(`${profileId}:${display}`);
  }

  private viewer(viewerId: string): Viewer {
    const v = this.viewers.get(viewerId);
    if (!v) throw new GpuDeskError('BAD_ARGUMENT', 'That viewer is closed', 'open the session again');
    return v;
  }

  private async open(connectionId: string, display: number): Promise<ViewerTicket> {
    const l = this.deps.ready(connectionId);
    const { conn } = l;
    const sessions = this.deps.sessions;
    const key = `${l.profile.id}:${display}`;
    // What the server page just listed is what the person clicked: no second look-up then.
    const listed = sessions.freshEndpoint(connectionId, display);
    // Else where this profile's display was found last time (a reconnect, Connect again): used at once
    // and looked up again beside the connection; a different answer closes this viewer, whose retry
    // then goes where the server now says.
    const remembered = listed ? null : (this.endpoints.get(key) ?? null);
    const at = listed ?? remembered ?? (await this.deps.remote.endpoint(conn, display));
    this.endpoints.set(key, at);
    const flavor = at.flavor ?? sessions.flavor(connectionId);
    const reach = (e: SessionEndpoint): Promise<Duplex> => (e.kind === 'unix' ? conn.forwardOutUnix(e.path) : conn.forwardOut(e.host, e.port));
    // A remembered endpoint is looked up again at once (`confirmed` below); one look-up serves both uses.
    let again: Promise<SessionEndpoint> | null = null;
    const lookUpAgain = () => (again ??= this.deps.remote.endpoint(conn, display));
    // Should the listed or remembered session be gone by the time the stream opens, the display is looked up again.
    const openRaw = listed || remembered ? () => reach(at).catch(async () => reach(await lookUpAgain())) : () => reach(at);
    // A known TurboVNC session: the viewer's version goes first (rfbEarly.ts: TurboVNC waits 100 ms otherwise).
    const speakFirst = at.flavor === 'turbovnc';
    // The stream opens while the one-time password is fetched and the page is told where to connect.
    const ticket = this.deps.hub.register(speakFirst ? () => openSpeakingFirst(openRaw) : openRaw, { eager: true, ...(speakFirst ? { sentForViewer: RFB_38_CLIENT_VERSION } : {}) });
    // A remembered endpoint is not confirmed yet: the session may have ended and another process
    // (another user's, even) taken its port. No password goes out until the look-up beside the
    // connection says the endpoint is still this display's session; a moved one closes the viewer
    // first, so its password is never handed to what now listens there.
    const confirmed = remembered
      ? lookUpAgain().then((now) => {
        this.endpoints.set(key, now);
        if (sameEndpoint(now, remembered)) return 'same' as const;
        if (this.viewers.has(ticket.id)) {
          this.deps.log(`[${l.profile.name}] display :${display} has moved; reconnecting its viewer`);
          this.close(ticket.id);
        }
        return 'moved' as const;
      }, () => 'unknown' as const)
      : null;
    const gated = (p: Promise<string | null>): Promise<string | null> => {
      if (!confirmed) return p;
      const out = Promise.all([p, confirmed]).then(([v, c]) => {
        if (c === 'moved') throw new GpuDeskError('BAD_ARGUMENT', `That viewer is closed: display :${display} has moved`, 'The viewer reconnects to where the server now says');
        // The server could not say where the display is: the person is asked instead.
        return c === 'same' ? v : null;
      });
      out.catch(() => {});
      return out;
    };
    // A TurboVNC session we did not start, or whose one-time password is spent (every reconnect of the
    // viewer opens it again), gets a fresh one. The ticket does not wait for it: the page connects and
    // asks for it (viewer.password) when the server wants it, so the fetch overlaps the handshake.
    const later = flavor === 'turbovnc' && !sessions.hasPassword(connectionId, display) ? heldSecret(this.deps.remote.oneTimePassword(conn, display).catch(() => null)) : null;
    const remotePort = at.kind === 'tcp' ? at.port : null;
    const pw = later ? null : sessions.takePassword(connectionId, display);
    // A stored password for a remembered endpoint waits for the check too (asked for like a late OTP).
    const password = later ? gated(later.value) : pw && confirmed ? gated(Promise.resolve(pw.password)) : null;
    this.viewers.set(ticket.id, { id: ticket.id, connectionId, display, counters: ticket.counters, release: later?.release ?? (pw?.once ? pw.release : () => {}), ...(password ? { password } : {}) });
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

function sameEndpoint(a: SessionEndpoint, b: SessionEndpoint): boolean {
  return a.flavor === b.flavor && (a.kind === 'unix' ? b.kind === 'unix' && a.path === b.path : b.kind === 'tcp' && a.host === b.host && a.port === b.port);
}
