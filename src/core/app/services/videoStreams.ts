import type { Duplex } from 'node:stream';
import { GpuDeskError } from '../../errors';
import type { Handlers } from '../../../shared/contract';
import type { VideoTicket } from '../../../shared/models';
import { evenSize } from '../../../shared/videoFrames';
import type { ChannelHub } from '../../vnc/channelHub';
import { openVideoStream, type VideoStreamSession } from '../../video/videoStream';
import type { VideoEncoderChoice } from '../../video/encoderCheck';

export type { VideoEncoderChoice };

/** Where a viewer's desktop runs: the shell that can start its encoder, and its display. */
export interface VideoTarget {
  session: VideoStreamSession | null;
  display: number;
  /** Why there is no session (e.g. a job desktop reached by a login-node forward). */
  whyNot?: string;
  /** Cache key of the machine that encodes (a connection id, or a job's node). */
  machine: string;
}

export interface VideoStreamsDeps {
  hub: ChannelHub;
  channelBase(): string;
  /** The desktop of an open viewer (throws when the viewer is closed). */
  target(viewerId: string): VideoTarget;
  /** Which encoder the machine has (asked once per machine and kept until it is forgotten). */
  encoders(session: VideoStreamSession): Promise<VideoEncoderChoice>;
  log(line: string): void;
}

/** The stream drawing and the one replacing it (a new bitrate, a new size). */
const MAX_STREAMS_PER_VIEWER = 2;
/** The viewer connects to a stream as soon as it has its ticket: an encoder nobody claims by then is ended. */
export const VIDEO_CLAIM_MS = 15_000;

/**
 * Video mode's streams: each a hub ticket whose stream is the server's encoder
 * (core/video/videoStream.ts). A new start for the same viewer (a resize, a new bitrate, a key frame
 * after a decoder error) runs beside the stream it replaces until the viewer closes that one; a third
 * start ends the oldest. Each encoder ends with its channel.
 */
export class VideoStreams {
  /** Viewer → its streams' tickets, oldest first (the one drawing, and the one replacing it). */
  private readonly live = new Map<string, string[]>();
  private readonly choices = new Map<string, Promise<VideoEncoderChoice>>();

  constructor(private readonly deps: VideoStreamsDeps) {}

  handlers(): Pick<Handlers, 'viewer.videoStart' | 'viewer.videoStop'> {
    return {
      'viewer.videoStart': (i) => this.start(i),
      'viewer.videoStop': async ({ viewerId }) => this.stop(viewerId),
    };
  }

  private async start({ viewerId, width, height, fps, bitrateKbps }: { viewerId: string; width: number; height: number; fps: number; bitrateKbps: number }): Promise<VideoTicket> {
    const t = this.deps.target(viewerId);
    if (!t.session) throw new GpuDeskError('VIDEO_UNAVAILABLE', `Video mode is not available for this desktop: ${t.whyNot ?? 'no shell on its machine'}`, 'keep the VNC codec');
    const session = t.session;
    let choice = this.choices.get(t.machine);
    if (!choice) {
      choice = this.deps.encoders(session);
      this.choices.set(t.machine, choice);
      // A failed look-up is asked again next time (the connection may have dropped meanwhile).
      choice.catch(() => this.choices.delete(t.machine));
    }
    const c = await choice;
    if (!c.best) throw new GpuDeskError('VIDEO_UNAVAILABLE', `Video mode is not available on this server: ${c.why ?? 'no H.264 encoder works'}`, 'install ffmpeg with libx264 (the Set-up tab has the step), or keep the VNC codec');
    const encoder = c.best;
    const spec = { display: t.display, width, height, fps, bitrateKbps, encoder, ...(c.renderNode ? { renderNode: c.renderNode } : {}) };
    let id = '';
    const open = (): Promise<Duplex> => openVideoStream(session, spec, (reason) => this.deps.log(`video stream ${id}: ${reason}`));
    const ticket = this.deps.hub.register(open, { eager: true, claimWithinMs: VIDEO_CLAIM_MS });
    id = ticket.id;
    this.deps.log(`video stream ${id}: ${encoder} on display :${t.display}, ${spec.width & ~1}x${spec.height & ~1}, ${fps} fps, ${bitrateKbps} kbit/s`);
    // The stream drawing now keeps going until the new one draws (the viewer then closes it): a new
    // bitrate or size never leaves the screen without video. Older ones than that are ended here.
    const streams = [...(this.live.get(viewerId) ?? []), ticket.id];
    while (streams.length > MAX_STREAMS_PER_VIEWER) {
      const old = streams.shift()!;
      this.deps.log(`video stream ${old}: ended (a third start for its viewer)`);
      this.deps.hub.revoke(old);
    }
    this.live.set(viewerId, streams);
    return { url: `${this.deps.channelBase()}${ticket.path}`, encoder, width: evenSize(spec.width), height: evenSize(spec.height), fps, bitrateKbps };
  }

  /** Ends the viewer's video streams, if any (each encoder ends with its channel). */
  stop(viewerId: string): void {
    const ids = this.live.get(viewerId);
    if (!ids) return;
    this.live.delete(viewerId);
    if (ids.length) this.deps.log(`video stream ${ids.join(', ')}: ended (the viewer stopped video)`);
    for (const id of ids) this.deps.hub.revoke(id);
  }

  /** A machine's encoders are asked again after its connection went (another login may see another ffmpeg). */
  forgetMachine(machine: string): void {
    this.choices.delete(machine);
  }
}
