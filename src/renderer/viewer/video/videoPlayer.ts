import { VIDEO_FRAME, type VideoStreamInfo } from '../../../shared/videoFrames';
import { VideoFrameReader, avcCodecString } from './videoFrameReader';
import type { StreamPlayer, StreamPlayerSpec, VideoEnd, VideoFigures } from './streamPlayer';

export interface VideoPlayerOptions {
  url: string;
  /** The viewer's canvas: decoded frames are drawn on it at the framebuffer's own pixels. */
  draw(frame: VideoFrame): void;
  onInfo?(info: VideoStreamInfo): void;
  onFirstFrame?(): void;
  onEnd(e: VideoEnd): void;
}

/** More frames queued in the decoder than this: the desk cannot keep up, and video mode stops. */
const MAX_DECODE_QUEUE = 60;
/** More access units in one second than any encoder we start sends (120 fps ceiling, twice over). */
const MAX_UNITS_PER_SEC = 240;
/** How often the decoded picture is compared with itself for motion. */
const MOTION_SAMPLE_MS = 500;

interface DecoderCtor {
  new (init: VideoDecoderInit): VideoDecoder;
  isConfigSupported(c: VideoDecoderConfig): Promise<VideoDecoderSupport>;
}

/**
 * The server's H.264 stream into the viewer's canvas with WebCodecs: hardware decoding preferred,
 * software otherwise. Anything unexpected — a decoder that refuses the profile, a decode error, a
 * malformed or oversized message, a flood — ends the player with a reason; it never throws into the page.
 */
export class VideoPlayer implements StreamPlayer {
  private readonly ws: WebSocket;
  private readonly reader = new VideoFrameReader();
  private decoder: VideoDecoder | null = null;
  private configuring: Promise<void> | null = null;
  private ended = false;
  private n = 0;
  private readonly started = new Map<number, number>();
  private fig = { frames: 0, bytes: 0, decodeSum: 0, decodeN: 0, sizes: [] as number[] };
  private unitsThisSec = { at: 0, n: 0 };
  private hardware: boolean | null = null;
  private thumb: { ctx: OffscreenCanvasRenderingContext2D; last: Uint8ClampedArray | null; at: number } | null = null;
  private motion: number | null = null;
  private firstDrawn = false;
  info: VideoStreamInfo | null = null;

  constructor(private readonly opts: VideoPlayerOptions) {
    this.ws = new WebSocket(opts.url);
    this.ws.binaryType = 'arraybuffer';
    this.ws.onmessage = (e) => this.onData(new Uint8Array(e.data as ArrayBuffer));
    this.ws.onclose = (e) => this.end({ reason: e.code === 1011 ? 'the server could not start its encoder' : 'the video channel closed', from: 'channel' });
    this.ws.onerror = () => {};
  }

  private onData(chunk: Uint8Array): void {
    if (this.ended) return;
    let msgs;
    try {
      msgs = this.reader.push(chunk);
    } catch (e) {
      this.end({ reason: (e as Error).message, from: 'protocol' });
      return;
    }
    for (const m of msgs) {
      if (this.ended) return;
      if (m.type === VIDEO_FRAME.info) {
        try {
          this.info = JSON.parse(new TextDecoder().decode(m.payload)) as VideoStreamInfo;
        } catch {
          this.end({ reason: 'the video stream sent unreadable stream details', from: 'protocol' });
          return;
        }
        this.opts.onInfo?.(this.info);
      } else if (m.type === VIDEO_FRAME.end) {
        let reason = 'the server\'s encoder stopped';
        try {
          reason = String((JSON.parse(new TextDecoder().decode(m.payload)) as { reason?: unknown }).reason ?? reason).slice(0, 300);
        } catch { /* the default reason */ }
        this.end({ reason, from: 'server' });
        return;
      } else this.unit(m.payload, (m.flags & VIDEO_FRAME.keyFlag) !== 0);
    }
  }

  private unit(data: Uint8Array, key: boolean): void {
    const now = performance.now();
    if (now - this.unitsThisSec.at > 1000) this.unitsThisSec = { at: now, n: 0 };
    if (++this.unitsThisSec.n > MAX_UNITS_PER_SEC) {
      this.end({ reason: `the video stream sent more than ${MAX_UNITS_PER_SEC} frames in a second`, from: 'protocol' });
      return;
    }
    this.fig.bytes += data.length;
    this.fig.sizes.push(data.length);
    if (!this.decoder && !this.configuring) {
      if (!key) return;
      const codec = avcCodecString(data);
      if (!codec) {
        this.end({ reason: 'the first video frame has no H.264 sequence header', from: 'protocol' });
        return;
      }
      // The first unit waits for the decoder; every later one is queued behind it.
      const copy = data.slice();
      this.configuring = this.configure(codec).then(() => this.decode(copy, true), (e: Error) => this.end({ reason: e.message, from: 'decoder' }));
      return;
    }
    if (this.configuring && !this.decoder) {
      const copy = data.slice();
      this.configuring = this.configuring.then(() => { if (this.decoder) this.decode(copy, key); });
      return;
    }
    this.decode(data, key);
  }

  private async configure(codec: string): Promise<void> {
    const VD = (globalThis as { VideoDecoder?: DecoderCtor }).VideoDecoder;
    if (!VD) throw new Error('this window has no WebCodecs video decoder');
    const base: VideoDecoderConfig = { codec, optimizeForLatency: true };
    let config: VideoDecoderConfig | null = null;
    for (const hardwareAcceleration of ['prefer-hardware', 'no-preference'] as const) {
      const c = { ...base, hardwareAcceleration };
      const s = await VD.isConfigSupported(c).catch(() => ({ supported: false }));
      if (s.supported) {
        config = c;
        this.hardware = hardwareAcceleration === 'prefer-hardware';
        break;
      }
    }
    if (!config) throw new Error(`the desk's decoder refuses this H.264 profile (${codec})`);
    if (this.ended) return;
    const d = new VD({
      output: (frame) => this.output(frame),
      error: (e) => this.end({ reason: `the video decoder failed: ${e.message}`, from: 'decoder' }),
    });
    d.configure(config);
    this.decoder = d;
  }

  private decode(data: Uint8Array, key: boolean): void {
    const d = this.decoder;
    if (!d || this.ended || d.state !== 'configured') return;
    if (d.decodeQueueSize > MAX_DECODE_QUEUE) {
      this.end({ reason: 'the desk cannot decode the video as fast as it arrives', from: 'decoder' });
      return;
    }
    const ts = this.n++ * 1000;
    this.started.set(ts, performance.now());
    try {
      d.decode(new EncodedVideoChunk({ type: key ? 'key' : 'delta', timestamp: ts, data }));
    } catch (e) {
      this.end({ reason: `the video decoder refused a frame: ${(e as Error).message}`, from: 'decoder' });
    }
  }

  private output(frame: VideoFrame): void {
    try {
      if (this.ended) return;
      const t0 = this.started.get(frame.timestamp);
      this.started.delete(frame.timestamp);
      if (t0 !== undefined) {
        this.fig.decodeSum += performance.now() - t0;
        this.fig.decodeN++;
      }
      this.opts.draw(frame);
      this.sampleMotion(frame);
      this.fig.frames++;
      if (!this.firstDrawn) {
        this.firstDrawn = true;
        this.opts.onFirstFrame?.();
      }
    } finally {
      frame.close();
    }
  }

  /** Twice a second, a 32x24 thumbnail of the decoded picture, compared with the one before. */
  private sampleMotion(frame: VideoFrame): void {
    const now = performance.now();
    if (this.thumb && now - this.thumb.at < MOTION_SAMPLE_MS) return;
    if (!this.thumb) {
      if (typeof OffscreenCanvas !== 'function') return;
      const ctx = new OffscreenCanvas(32, 24).getContext('2d', { willReadFrequently: true });
      if (!ctx) return;
      this.thumb = { ctx, last: null, at: 0 };
    }
    const t = this.thumb;
    t.at = now;
    t.ctx.drawImage(frame, 0, 0, 32, 24);
    const px = t.ctx.getImageData(0, 0, 32, 24).data;
    if (t.last) {
      let sum = 0;
      for (let i = 0; i < px.length; i += 4) sum += Math.abs(px[i] - t.last[i]) + Math.abs(px[i + 1] - t.last[i + 1]) + Math.abs(px[i + 2] - t.last[i + 2]);
      const diff = sum / ((px.length / 4) * 3);
      this.motion = Math.max(this.motion ?? 0, diff);
    }
    t.last = px;
  }

  /** The figures since the last call. */
  take(): VideoFigures {
    const f = this.fig;
    this.fig = { frames: 0, bytes: 0, decodeSum: 0, decodeN: 0, sizes: [] };
    const motion = this.motion;
    this.motion = null;
    return { frames: f.frames, bytes: f.bytes, decodeMs: f.decodeN ? f.decodeSum / f.decodeN : null, decodeQueue: this.decoder?.decodeQueueSize ?? 0, sizes: f.sizes, hardware: this.hardware, motion };
  }

  get drawing(): boolean {
    return this.firstDrawn && !this.ended;
  }

  private end(e: VideoEnd): void {
    if (this.ended) return;
    this.ended = true;
    this.teardown();
    this.opts.onEnd(e);
  }

  private teardown(): void {
    this.ws.onmessage = null;
    this.ws.onclose = null;
    try { this.ws.close(); } catch { /* closed */ }
    try { if (this.decoder && this.decoder.state !== 'closed') this.decoder.close(); } catch { /* closed */ }
  }

  /** Stops without a reason (the viewer switched codec or closed). */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.teardown();
  }
}

/** Video mode's players for one viewer session: a stream's frames go on its canvas while that stream is on screen. */
export function sessionPlayers(session: { drawVideoFrame(frame: VideoFrame): void }): (spec: StreamPlayerSpec) => StreamPlayer {
  return (spec) => new VideoPlayer({
    url: spec.url,
    draw: (frame) => { if (spec.onScreen()) session.drawVideoFrame(frame); },
    onFirstFrame: spec.onFirstFrame,
    onEnd: spec.onEnd,
  });
}
