import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { VideoTicket } from '../../../src/shared/models';
import { VideoMode, type VideoModeSession, type VideoView } from '../../../src/renderer/viewer/video/videoMode';
import type { StreamPlayer, StreamPlayerSpec, VideoFigures } from '../../../src/renderer/viewer/video/streamPlayer';

// Video mode's state machine (src/renderer/viewer/video/videoMode.ts) with fakes at its seams: the
// RFB session, the server's videoStart (a ticket per stream, resolved when the test says), and each
// stream's player (it draws, ends or stays silent when the test says). The real parts — ffmpeg on the
// server, WebSocket, WebCodecs — are in test/e2e/videoMode.spec.ts; what is here are the orders of
// events a slow machine makes likely and a quick one almost never shows.

/** The viewer's RFB session as video mode sees it. */
class FakeSession implements VideoModeSession {
  state: 'connecting' | 'connected' | 'disconnected' = 'connected';
  framebufferSize = { width: 1024, height: 768 };
  pixelsReceived = 0;
  history = { last: () => undefined };
  videoOwnsScreen = false;
  paused = false;
  losslessRefreshes = 0;
  refreshLossless(): void { this.losslessRefreshes++; }
  pauseScreenUpdates(): void { this.paused = true; }
  resumeScreenUpdates(): void { this.paused = false; }
}

/** A stream's player: draws its first frame, ends, or says nothing, as the test decides. */
class FakePlayer implements StreamPlayer {
  closed = false;
  ended = false;
  private drew = false;
  bytesPerRead = 0;
  constructor(readonly spec: StreamPlayerSpec) {}
  get drawing(): boolean { return this.drew && !this.ended && !this.closed; }
  /** The decoder's first picture (then more: each one on screen only while this stream is the one drawing). */
  draw(): void {
    if (this.closed || this.ended) return;
    if (!this.drew) { this.drew = true; this.spec.onFirstFrame(); }
  }
  /** The stream ended by itself (its encoder killed, its channel closed). */
  end(reason: string): void {
    if (this.closed || this.ended) return;
    this.ended = true;
    this.spec.onEnd({ reason, from: 'server' });
  }
  take(): VideoFigures {
    return { frames: this.drawing ? 20 : 0, bytes: this.drawing ? this.bytesPerRead : 0, decodeMs: this.drawing ? 2 : null, decodeQueue: 0, sizes: [], motion: null, hardware: false };
  }
  close(): void { this.closed = true; }
}

interface Start { spec: { width: number; height: number; fps: number; bitrateKbps: number }; resolve(): void; reject(e: Error): void }

function rig() {
  const session = new FakeSession();
  const starts: Start[] = [];
  const players: FakePlayer[] = [];
  const views: VideoView[] = [];
  let stops = 0;
  const vm = new VideoMode({
    session,
    openPlayer: (spec) => { const p = new FakePlayer(spec); players.push(p); return p; },
    start: (spec) => new Promise<VideoTicket>((res, rej) => {
      const n = starts.length;
      starts.push({
        spec,
        resolve: () => res({ url: `ws://127.0.0.1/video/${n}`, encoder: 'libx264', width: spec.width & ~1, height: spec.height & ~1, fps: spec.fps, bitrateKbps: spec.bitrateKbps }),
        reject: rej,
      });
    }),
    stop: async () => { stops++; },
    onView: (v) => views.push(v),
  });
  /** The answer to the last videoStart, then the player it opened. */
  const ticket = async (): Promise<FakePlayer> => {
    starts[starts.length - 1].resolve();
    await vi.advanceTimersByTimeAsync(0);
    return players[players.length - 1];
  };
  /** One second of the viewer: the clock moves on and the figures tick (as rfbSession's timer does). */
  const second = async (n = 1) => {
    for (let i = 0; i < n; i++) {
      await vi.advanceTimersByTimeAsync(1000);
      vm.tick(0);
    }
  };
  return { vm, session, starts, players, views, ticket, second, stops: () => stops };
}

/** Video drawing at 1024x768, its stream's player returned. */
async function drawing(r: ReturnType<typeof rig>): Promise<FakePlayer> {
  r.vm.setCodec('video', 1000, 50_000);
  expect(r.starts).toHaveLength(1);
  const p = await r.ticket();
  p.draw();
  expect(r.vm.current).toMatchObject({ active: 'video', starting: false, fallback: null });
  return p;
}

beforeEach(() => { vi.useFakeTimers(); });
afterEach(() => { vi.useRealTimers(); });

describe('video mode (viewer/video/videoMode.ts) with fakes at its seams', () => {
  it('the Video codec starts a stream at the desktop\'s size; VNC draws until its first frame, then the stream owns the screen', async () => {
    const r = rig();
    r.vm.setCodec('video', 1000, 50_000);
    expect(r.starts.map((s) => [s.spec.width, s.spec.height])).toEqual([[1024, 768]]);
    expect(r.vm.current).toMatchObject({ active: 'vnc', starting: true });
    const p = await r.ticket();
    expect(r.session.paused).toBe(false);
    p.draw();
    expect(r.vm.current).toMatchObject({ active: 'video', starting: false, encoder: 'libx264' });
    expect(r.session).toMatchObject({ paused: true, videoOwnsScreen: true });
    expect(p.spec.onScreen()).toBe(true);
  });

  it('a new bitrate: the new stream runs beside the one drawing, which goes only once the new one draws', async () => {
    const r = rig();
    const a = await drawing(r);
    r.vm.setCodec('video', 1000, 1500);
    expect(r.starts).toHaveLength(2);
    expect(r.starts[1].spec.bitrateKbps).toBe(1500);
    const b = await r.ticket();
    expect(a.closed).toBe(false);
    expect(a.spec.onScreen()).toBe(true);
    expect(b.spec.onScreen()).toBe(false);
    expect(r.vm.current).toMatchObject({ active: 'video', starting: true });
    b.draw();
    expect(a.closed).toBe(true);
    expect(b.spec.onScreen()).toBe(true);
    expect(r.vm.current).toMatchObject({ active: 'video', starting: false, bitrateKbps: 1500, fallback: null });
  });

  it('the stream being replaced ending while its successor is on its way is no fault: the successor takes over', async () => {
    const r = rig();
    const a = await drawing(r);
    r.vm.setCodec('video', 1000, 1500);
    const b = await r.ticket();
    a.end('The server\'s encoder stopped: killed by SIGKILL');
    await r.second(2);
    expect(r.vm.current).toMatchObject({ active: 'video', starting: true, fallback: null });
    b.draw();
    expect(r.vm.current).toMatchObject({ active: 'video', starting: false, fallback: null });
  });

  it('the only stream ending falls back to VNC with its reason: the screen back to RFB, lossless, and the server\'s streams stopped', async () => {
    const r = rig();
    const a = await drawing(r);
    a.end('The server\'s encoder stopped: killed by SIGKILL');
    await r.second();
    expect(r.vm.current).toMatchObject({ active: 'vnc', starting: false, fallback: 'The server\'s encoder stopped: killed by SIGKILL' });
    expect(r.session).toMatchObject({ paused: false, videoOwnsScreen: false, losslessRefreshes: 1 });
    expect(r.stops()).toBe(1);
    // Video mode does not try again by itself after a failure (the codec chosen anew does).
    await r.second(5);
    expect(r.starts).toHaveLength(1);
  });

  it('a desktop that shrank ends its stream; the RFB resize explains it and a stream at the new size replaces it', async () => {
    const r = rig();
    const a = await drawing(r);
    r.session.framebufferSize = { width: 800, height: 600 };
    a.end('The server\'s encoder stopped: :2: Permission denied');
    expect(r.starts.map((s) => [s.spec.width, s.spec.height])).toEqual([[1024, 768], [800, 600]]);
    const b = await r.ticket();
    b.draw();
    expect(r.vm.current).toMatchObject({ active: 'video', starting: false, fallback: null });
  });

  // issue 40: on a loaded machine the e2e's viewer sat on "starting the server's encoder…" for good, no
  // fallback and no reason. The desktop had shrunk; its stream ended (x11grab's area off the screen) and
  // every second after that a stream at the new size was asked for again, closing the one on its way
  // before it could draw (a first frame took 2–3 s there); each new start also reset the 10 s stall.
  it('a desktop that shrank: the stream at the new size is asked for once, and has the seconds a slow machine needs to draw', async () => {
    const r = rig();
    const a = await drawing(r);
    a.end('The server\'s encoder stopped: :2: Permission denied');
    // The RFB resize comes a moment after the stream's end.
    await vi.advanceTimersByTimeAsync(200);
    r.session.framebufferSize = { width: 800, height: 600 };
    await r.second();
    expect(r.starts.map((s) => [s.spec.width, s.spec.height])).toEqual([[1024, 768], [800, 600]]);
    const b = await r.ticket();
    await r.second(3);
    expect(r.starts).toHaveLength(2);
    expect(b.closed).toBe(false);
    expect(r.vm.current).toMatchObject({ active: 'video', starting: true, fallback: null });
    b.draw();
    expect(r.vm.current).toMatchObject({ active: 'video', starting: false, fallback: null });
    expect(b.spec.onScreen()).toBe(true);
  });

  it('a stream at the screen\'s size killed before its first frame is a fault, not a resize: the viewer falls back with the encoder\'s reason', async () => {
    const r = rig();
    const a = await drawing(r);
    r.session.framebufferSize = { width: 800, height: 600 };
    a.end('The server\'s encoder stopped: :2: Permission denied');
    const b = await r.ticket();
    await r.second();
    b.end('The server\'s encoder stopped: Killed');
    await r.second();
    expect(r.vm.current).toMatchObject({ active: 'vnc', starting: false, fallback: 'The server\'s encoder stopped: Killed' });
    expect(r.session).toMatchObject({ paused: false, videoOwnsScreen: false });
  });

  it('streams that keep ending on their way (each one explained): after 10 s with no picture the viewer falls back, with a reason', async () => {
    const r = rig();
    const a = await drawing(r);
    let size = 0;
    const sizes = [{ width: 800, height: 600 }, { width: 1024, height: 768 }];
    let last = a;
    for (let i = 0; i < 12 && r.vm.current.active === 'video'; i++) {
      r.session.framebufferSize = sizes[size++ % 2];
      last.end('The server\'s encoder stopped: :2: Permission denied');
      if (r.starts.length > i + 1) last = await r.ticket();
      await r.second();
    }
    expect(r.vm.current).toMatchObject({ active: 'vnc', starting: false, fallback: 'the server sent no video within 10 s' });
  });

  it('a videoStart the server refuses falls back with the server\'s reason', async () => {
    const r = rig();
    r.vm.setCodec('video', 1000, 50_000);
    r.starts[0].reject(new Error('Video mode is not available on this server: no H.264 encoder works'));
    await vi.advanceTimersByTimeAsync(0);
    expect(r.vm.current).toMatchObject({ active: 'vnc', starting: false, fallback: 'no H.264 encoder works' });
  });

  it('a stream that never draws: after 10 s the start counts as failed, with that reason', async () => {
    const r = rig();
    r.vm.setCodec('video', 1000, 50_000);
    await r.ticket();
    await r.second(10);
    expect(r.vm.current).toMatchObject({ active: 'vnc', starting: true });
    await r.second(1);
    expect(r.vm.current).toMatchObject({ active: 'vnc', starting: false, fallback: 'the server sent no video within 10 s' });
  });

  it('back to the VNC codec: every stream closed, the server told, the screen back to RFB with a lossless refresh', async () => {
    const r = rig();
    const a = await drawing(r);
    r.vm.setCodec('vnc', 1000, 50_000);
    expect(a.closed).toBe(true);
    expect(r.stops()).toBe(1);
    expect(r.session).toMatchObject({ paused: false, videoOwnsScreen: false, losslessRefreshes: 1 });
    expect(r.vm.current).toMatchObject({ active: 'vnc', starting: false, fallback: null });
  });
});
