import type { VideoTicket, ViewerCodec } from '../../../shared/models';
import { autoStep, initialAuto, initialRate, rateStep, type AutoState, type RateState } from './autoCodec';
import type { StreamPlayer, StreamPlayerSpec, VideoEnd } from './streamPlayer';
import { evenSize, videoFps } from '../../../shared/videoFrames';

/** What the HUD and the Quality panel show of video mode. */
export interface VideoView {
  /** What draws the screen now. */
  active: 'vnc' | 'video';
  /** A stream is being started (VNC still draws). */
  starting: boolean;
  encoder: string | null;
  bitrateKbps: number | null;
  /** The stream's capture rate: it follows the bitrate (shared/videoFrames.ts's videoFps). */
  captureFps: number | null;
  /** What the stream carried last second (bit/s). */
  bitsPerSec: number | null;
  decodeMs: number | null;
  hardware: boolean | null;
  /** Why video mode stopped or could not start (one line), until the next start. */
  fallback: string | null;
}

/**
 * What video mode needs of the viewer's RFB session (rfbSession.ts's ViewerSession; a fake in unit
 * tests): its state and figures, and the screen to take over and hand back.
 */
export interface VideoModeSession {
  readonly state: 'connecting' | 'connected' | 'disconnected';
  readonly framebufferSize: { width: number; height: number };
  readonly pixelsReceived: number;
  readonly history: { last(): { bytesInPerSec: number } | undefined };
  /** Video draws the screen: RFB's frames are not counted meanwhile. */
  videoOwnsScreen: boolean;
  /** The next RFB update lossless (the screen handed back after lossy video). */
  refreshLossless(): void;
  /** RFB updates shrink to one pixel while the stream draws (rfbPause.ts), and come back whole. */
  pauseScreenUpdates(): void;
  resumeScreenUpdates(): void;
}

export interface VideoModeDeps {
  session: VideoModeSession;
  /** Opens a stream's player (videoPlayer.ts's sessionPlayers for the real viewer). */
  openPlayer(spec: StreamPlayerSpec): StreamPlayer;
  start(spec: { width: number; height: number; fps: number; bitrateKbps: number }): Promise<VideoTicket>;
  stop(): Promise<void>;
  onView(v: VideoView): void;
  /** What video mode did, one line each (starts, first pictures, ends, fallbacks): for the app's log. */
  log?(line: string): void;
}

/** After a failure, Auto waits this long before it tries video again (the server's encoder may be gone for good). */
const AUTO_RETRY_MS = 60_000;
/** How long an ended stream waits for the RFB resize that may explain it (the fallback still comes within a second). */
const RESIZE_GRACE_MS = 500;

/**
 * Video mode for one viewer: starts and restarts the server's stream (a new size, a new bitrate),
 * hands the screen to it only once it draws, and gives the screen back to RFB — with a lossless
 * refresh — when the codec says VNC, when Auto sees motion stop, or when anything goes wrong.
 */
export class VideoMode {
  private codec: ViewerCodec = 'vnc';
  private min = 1000;
  private max = 50_000;
  private player: StreamPlayer | null = null;
  /** A new stream drawing its first frame while the old one still draws. */
  private next: StreamPlayer | null = null;
  private ticket: VideoTicket | null = null;
  private startingSince: number | null = null;
  private auto: AutoState = initialAuto();
  private rate: RateState | null = null;
  private lastPixels = 0;
  private minRtt: number | null = null;
  private rtt: number | null = null;
  private failedAt: number | null = null;
  private closed = false;
  private view: VideoView = { active: 'vnc', starting: false, encoder: null, bitrateKbps: null, captureFps: null, bitsPerSec: null, decodeMs: null, hardware: null, fallback: null };
  /** Bumped by every start and stop: a start that finished after a later stop is dropped. */
  private gen = 0;

  constructor(private readonly deps: VideoModeDeps) {}

  setCodec(codec: ViewerCodec, min: number, max: number): void {
    const changed = codec !== this.codec;
    this.codec = codec;
    this.min = Math.min(min, max);
    this.max = Math.max(min, max);
    if (!changed) {
      // A new floor or ceiling applies at once: the stream restarts at the bitrate brought within them.
      if (this.rate && (this.rate.kbps < this.min || this.rate.kbps > this.max)) {
        this.rate = initialRate(this.rate.kbps, this.min, this.max);
        if (this.view.active === 'video' || this.startingSince !== null) this.restart(this.rate.kbps);
      }
      return;
    }
    this.failedAt = null;
    if (codec === 'vnc') this.toVnc(null);
    else if (codec === 'video') this.toVideo();
    else this.auto = initialAuto();
  }

  /** The SSH round trip as the viewer's figures measured it (ms). */
  noteRtt(ms: number | null): void {
    if (ms === null) return;
    this.rtt = ms;
    this.minRtt = this.minRtt === null ? ms : Math.min(this.minRtt, ms);
  }

  /** Once a second, with the viewer's figures. */
  tick(fps: number): void {
    if (this.closed || this.deps.session.state !== 'connected') return;
    this.checkStall();
    const s = this.deps.session;
    const { width, height } = s.framebufferSize;
    const pixels = s.pixelsReceived - this.lastPixels;
    this.lastPixels = s.pixelsReceived;
    const fig = this.player?.take() ?? null;
    if (this.next) this.next.take();
    if (fig) this.set({ bitsPerSec: fig.bytes * 8, decodeMs: fig.decodeMs, hardware: fig.hardware });
    if (this.codec === 'video' && !this.player && !this.next && !this.starting() && this.failedAt === null) this.toVideo();
    // A restart's gap (the old stream gone, the new one not yet drawing) says nothing about motion.
    if (this.codec === 'auto' && !(this.view.active === 'video' && !fig)) {
      if (this.failedAt !== null && Date.now() - this.failedAt < AUTO_RETRY_MS && this.view.active === 'vnc') return;
      const r = autoStep(this.auto, {
        mode: this.view.active,
        fps,
        screensPerSec: width && height ? pixels / (width * height) : 0,
        rttMs: this.rtt,
        minRttMs: this.minRtt,
        ...(fig ? { videoMotion: fig.motion } : {}),
      });
      this.auto = r.state;
      if (r.switchTo === 'video' && !this.starting()) this.toVideo();
      else if (r.switchTo === 'vnc') this.toVnc(null);
    }
    // A stream on its way is left to draw, or to fail (ended, checkStall): asking for another one each
    // second closed each before it drew on a slow machine, and the viewer never drew again (issue 40).
    if (this.view.active !== 'video' || !this.ticket || !fig || this.starting()) return;
    // A resized desktop gets a stream at its new size.
    if (evenSize(width) !== this.ticket.width || evenSize(height) !== this.ticket.height) {
      this.restart(this.ticket.bitrateKbps);
      return;
    }
    // The bitrate follows the figures of a stream that draws (an ended one's say nothing of the link).
    if (this.rate && this.player?.drawing) {
      const before = this.rate.kbps;
      this.rate = rateStep(this.rate, { rttMs: this.rtt, minRttMs: this.minRtt, videoBytesPerSec: fig.bytes, min: this.min, max: this.max });
      if (this.rate.kbps !== before) this.restart(this.rate.kbps);
    }
  }

  private starting(): boolean {
    return this.startingSince !== null;
  }

  /** The first bitrate: what VNC carried when Auto chose video (the link's measure), else a middle value. */
  private firstKbps(): number {
    const last = this.deps.session.history.last();
    const carried = last ? (last.bytesInPerSec * 8) / 1000 : 0;
    return carried > this.min ? carried * 0.8 : Math.min(this.max, Math.max(this.min, 8000));
  }

  private toVideo(): void {
    this.rate ??= initialRate(this.firstKbps(), this.min, this.max);
    this.restart(this.rate.kbps);
  }

  private restart(kbps: number): void {
    const s = this.deps.session;
    const { width, height } = s.framebufferSize;
    if (!width || !height) return;
    const gen = ++this.gen;
    // The stall counts from the first start since a stream last drew: starts that keep replacing each
    // other without a picture still end in a fallback with its reason.
    this.startingSince ??= Date.now();
    this.set({ starting: true });
    this.deps.log?.(`video: asking for a stream ${width}x${height} at ${Math.round(kbps)} kbit/s`);
    this.deps.start({ width, height, fps: videoFps(kbps, width, height), bitrateKbps: Math.round(kbps) }).then((ticket) => {
      if (gen !== this.gen || this.closed) return;
      const p: StreamPlayer = this.deps.openPlayer({
        url: ticket.url,
        onScreen: () => this.player === p,
        onFirstFrame: () => {
          if (gen !== this.gen || this.closed) return;
          // The new stream draws now: the old one (a smaller bitrate, another size) goes.
          const old = this.player;
          this.player = p;
          this.next = null;
          old?.close();
          this.ticket = ticket;
          this.startingSince = null;
          if (this.view.active !== 'video') {
            s.videoOwnsScreen = true;
            s.pauseScreenUpdates();
          }
          this.deps.log?.(`video: the stream ${ticket.width}x${ticket.height} at ${ticket.bitrateKbps} kbit/s (${ticket.encoder}) draws`);
          this.set({ active: 'video', starting: false, encoder: ticket.encoder, bitrateKbps: ticket.bitrateKbps, captureFps: ticket.fps, fallback: null });
        },
        onEnd: (e) => this.ended(p, ticket, e),
      });
      this.next?.close();
      this.next = p;
    }, (e: Error) => {
      if (gen !== this.gen) return;
      this.fail({ reason: e.message.replace(/^Video mode is not available[^:]*: /, ''), from: 'server' });
    });
  }

  private ended(p: StreamPlayer, ticket: VideoTicket, e: VideoEnd): void {
    if (p !== this.player && p !== this.next) return;
    // The stream being replaced ending (the server keeps at most two a viewer) is no fault while its
    // successor is on its way: the screen keeps its last frame until the new stream draws.
    if (p === this.player && (this.next !== null || this.startingSince !== null)) {
      this.deps.log?.(`video: the stream drawing ended (${e.reason}); its successor is on its way`);
      p.close();
      this.player = null;
      return;
    }
    // A desktop that shrank ends x11grab (its area is off the screen), and the RFB resize may arrive
    // just after: a stream that ended at another size than the screen's is restarted at the new size.
    // Its own size, not the last drawn one's: a stream at the new size that ends is a fault.
    const gen = this.gen;
    const resized = () => {
      const { width, height } = this.deps.session.framebufferSize;
      return evenSize(width) !== ticket.width || evenSize(height) !== ticket.height;
    };
    this.deps.log?.(`video: the stream ${ticket.width}x${ticket.height} ended (${e.reason})`);
    if (resized()) return this.restart(this.rate?.kbps ?? this.firstKbps());
    setTimeout(() => {
      if (gen !== this.gen || this.closed) return;
      if (resized()) this.restart(this.rate?.kbps ?? this.firstKbps());
      else this.fail(e);
    }, RESIZE_GRACE_MS);
  }

  private fail(e: VideoEnd): void {
    this.failedAt = Date.now();
    this.deps.log?.(`video mode stopped: ${e.reason}`);
    this.toVnc(e.reason);
  }

  /** The screen back to RFB: its updates over the whole screen, the first one lossless. */
  private toVnc(reason: string | null): void {
    this.gen++;
    const had = this.player !== null || this.next !== null || this.startingSince !== null;
    this.player?.close();
    this.next?.close();
    this.player = this.next = null;
    this.ticket = null;
    this.startingSince = null;
    this.auto = initialAuto();
    const s = this.deps.session;
    if (this.view.active === 'video') {
      s.videoOwnsScreen = false;
      s.refreshLossless();
      s.resumeScreenUpdates();
    }
    if (had) void this.deps.stop().catch(() => {});
    this.set({ active: 'vnc', starting: false, encoder: null, bitrateKbps: null, captureFps: null, bitsPerSec: null, decodeMs: null, hardware: null, ...(reason !== null ? { fallback: reason } : {}) });
  }

  /** A request that hung: after this long without a first frame, the start counts as failed. */
  checkStall(now = Date.now()): void {
    if (this.startingSince !== null && now - this.startingSince > 10_000) this.fail({ reason: 'the server sent no video within 10 s', from: 'channel' });
  }

  private set(patch: Partial<VideoView>): void {
    this.view = { ...this.view, ...patch };
    this.deps.onView(this.view);
  }

  get current(): VideoView {
    return this.view;
  }

  close(): void {
    this.closed = true;
    this.gen++;
    this.player?.close();
    this.next?.close();
    this.player = this.next = null;
  }
}

