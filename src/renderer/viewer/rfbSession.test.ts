import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type RFB from '@novnc/novnc';
import { defaultViewerPrefs, type ViewerPrefs, type ViewerTicket } from '../../shared/models';
import type { CountingChannel } from './channel';
import { ENC } from './encodings';
import { LOSSLESS_IDLE_MS } from './lossless';
import { ViewerSession, type NoVncOpen, type NoVncSeam, type ViewerSessionOptions, type ViewerState } from './rfbSession';
import type { ViewerSample } from './stats';

// The RFB session's own logic (src/renderer/viewer/rfbSession.ts) with fakes at its seam (NoVncSeam):
// noVNC is an event target that records what it is asked, the channel a byte count the test sets,
// the patches' SetEncodings and update requests are counted. noVNC itself, the channel hub and real
// servers are in the e2e (test/e2e/app.spec.ts, losslessRefresh.spec.ts, videoMode.spec.ts); what is
// here are the password, quality and lossless-refresh decisions, event by event.
// Beside its source, not under test/unit: it is type-checked with the renderer (tsconfig.web.json: the
// DOM and noVNC's types), which the Node project's check cannot see; vitest runs src/**/*.test.ts too.

/** noVNC's RFB as the session uses it: its settings, its calls, and its events fired by the test. */
class FakeRfb extends EventTarget {
  viewOnly = false;
  scaleViewport = false;
  resizeSession = false;
  clipViewport = true;
  dragViewport = true;
  focusOnClick = false;
  credentialsSent: string[] = [];
  keys: [number, boolean][] = [];
  disconnects = 0;
  ctrlAltDels = 0;
  pasted: string[] = [];
  sendCredentials(c: { password: string }): void { this.credentialsSent.push(c.password); }
  sendKey(keysym: number, _code: string | null, down: boolean): void { this.keys.push([keysym, down]); }
  sendCtrlAltDel(): void { this.ctrlAltDels++; }
  clipboardPasteFrom(text: string): void { this.pasted.push(text); }
  focus(): void {}
  disconnect(): void { this.disconnects++; }
  fire(type: string, detail?: unknown): void { this.dispatchEvent(new CustomEvent(type, { detail })); }
}

/** The element noVNC draws into: its data attributes and listeners are all the session touches. */
class FakeTarget extends EventTarget {
  dataset: Record<string, string> = {};
  querySelector(): null { return null; }
}

function rig(o: { prefs?: Partial<ViewerPrefs>; ticket?: Partial<ViewerTicket>; options?: Partial<ViewerSessionOptions> } = {}) {
  const rfb = new FakeRfb();
  const channel = { stats: { bytesIn: 0, bytesOut: 0, messagesIn: 0 }, flushSends: () => {}, closeCode: null, closeReason: '' };
  const fb = { width: 1000, height: 500 };
  const sent = { encodings: [] as number[][], fullUpdates: 0, rescales: 0 };
  let opened: NoVncOpen | null = null;
  const novnc: NoVncSeam = {
    channel: () => channel as unknown as CountingChannel,
    open: (x) => { opened = x; return { rfb: rfb as unknown as RFB, stopAligning: () => {} }; },
    framebufferSize: () => ({ ...fb }),
    sendEncodings: () => { sent.encodings.push(opened!.encodings()); },
    requestFullUpdate: () => { sent.fullUpdates++; },
    updateScale: () => { sent.rescales++; },
    drawOnScreen: () => {},
    pauseScreenUpdates: () => {},
    resumeScreenUpdates: () => {},
  };
  const states: [ViewerState, { clean: boolean; reason?: string } | undefined][] = [];
  const samples: ViewerSample[] = [];
  const qualities: [number, number][] = [];
  const target = new FakeTarget();
  const ticket: ViewerTicket = { viewerId: 'v1', url: 'ws://127.0.0.1/x', display: 1, remotePort: 5901, remoteSocket: null, flavor: 'turbovnc', vncPassword: null, ...o.ticket };
  const s = new ViewerSession({
    target: target as unknown as HTMLElement,
    ticket,
    prefs: { ...defaultViewerPrefs, ...o.prefs },
    onState: (st, d) => states.push([st, d]),
    onSample: (x) => samples.push(x),
    onQualityChange: (q, c) => qualities.push([q, c]),
    ...o.options,
  }, novnc);
  const hooks = () => opened!.hooks;
  /** One rectangle decoded (onRect, then onRectAt, as installHooks calls them). */
  const rect = (r: { x: number; y: number; w: number; h: number; encoding: number; jpeg?: boolean }) => {
    hooks().onRect(r.encoding, r.w * r.h);
    hooks().onRectAt?.({ ...r, jpeg: r.jpeg ?? false });
  };
  const frame = () => hooks().onFrameDrawn(performance.now());
  return { s, rfb, channel, fb, sent, states, samples, qualities, target, opened: () => opened!, rect, frame };
}

/** The SetEncodings list asks for no JPEG: neither the JPEG pseudo-encoding's quality levels nor TurboVNC's fine quality. */
function lossless(list: number[]): boolean {
  return !list.some((e) => e >= ENC.qualityLevel0 && e <= ENC.qualityLevel0 + 9);
}

beforeEach(() => { vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'] }); });
afterEach(() => { vi.useRealTimers(); });

describe('opening', () => {
  it('gives noVNC the ticket’s password and the page’s choices, and sets its viewport from the preferences', () => {
    const r = rig({ ticket: { vncPassword: 'pw' }, prefs: { scale: 'remote', viewOnly: true } });
    expect(r.opened()).toMatchObject({ password: 'pw', fastPath: true, offscreen: true, wasmJpeg: true, palette32: true });
    expect(r.rfb).toMatchObject({ viewOnly: true, scaleViewport: false, resizeSession: true, clipViewport: false, dragViewport: false, focusOnClick: true });
    expect(r.sent.rescales).toBe(1);
    // Nothing goes out before the server has answered.
    expect(r.sent.encodings).toEqual([]);
    expect(r.s.state).toBe('connecting');
  });

  it('without the fast path: plain noVNC, no offscreen canvas; no password when the ticket has none', () => {
    const r = rig({ options: { fastPath: false } });
    expect(r.opened()).toMatchObject({ password: undefined, fastPath: false, offscreen: false });
  });
});

describe('connection states', () => {
  it('connect, then disconnect: each said once, and nothing after the disconnect', () => {
    const r = rig();
    r.rfb.fire('connect');
    r.rfb.fire('disconnect', { clean: true });
    r.rfb.fire('connect');
    r.rfb.fire('securityfailure', { reason: 'late' });
    expect(r.states).toEqual([['connected', undefined], ['disconnected', { clean: true }]]);
    expect(r.s.state).toBe('disconnected');
  });

  it('a security failure is a disconnect with its reason', () => {
    const r = rig();
    r.rfb.fire('securityfailure', { reason: 'Authentication failure' });
    expect(r.states).toEqual([['disconnected', { clean: false, reason: 'VNC authentication failed: Authentication failure' }]]);
  });

  it('a security failure without a reason still says what failed', () => {
    const r = rig();
    r.rfb.fire('securityfailure', {});
    expect(r.states[0][1]?.reason).toBe('VNC authentication failed');
  });

  it('the figures stop with the disconnect', async () => {
    const r = rig();
    r.rfb.fire('connect');
    await vi.advanceTimersByTimeAsync(2000);
    expect(r.samples).toHaveLength(2);
    r.rfb.fire('disconnect', { clean: false });
    await vi.advanceTimersByTimeAsync(3000);
    expect(r.samples).toHaveLength(2);
  });

  it('close disconnects noVNC and stops the timers; a noVNC already gone is no error', async () => {
    const r = rig();
    r.rfb.disconnect = () => { throw new Error('gone'); };
    expect(() => r.s.close()).not.toThrow();
    await vi.advanceTimersByTimeAsync(3000);
    expect(r.samples).toEqual([]);
  });
});

describe('passwords', () => {
  it('a ticket’s password on its way is fetched once the server asks, and sent', async () => {
    const asked: number[] = [];
    const r = rig({ ticket: { passwordLater: true }, options: { fetchPassword: async () => 'otp', onCredentialsRequired: () => asked.push(1) } });
    r.rfb.fire('credentialsrequired');
    await vi.advanceTimersByTimeAsync(0);
    expect(r.rfb.credentialsSent).toEqual(['otp']);
    expect(asked).toEqual([]);
    // Asked again (the one-time password did not do): the person is asked, the fetch is not repeated.
    r.rfb.fire('credentialsrequired');
    expect(asked).toEqual([1]);
    expect(r.rfb.credentialsSent).toEqual(['otp']);
  });

  it('no password came: the person is asked', async () => {
    const asked: number[] = [];
    const r = rig({ ticket: { passwordLater: true }, options: { fetchPassword: async () => null, onCredentialsRequired: () => asked.push(1) } });
    r.rfb.fire('credentialsrequired');
    await vi.advanceTimersByTimeAsync(0);
    expect(asked).toEqual([1]);
    expect(r.rfb.credentialsSent).toEqual([]);
  });

  it('a password that arrives after the viewer closed goes nowhere', async () => {
    let answer: (p: string) => void = () => {};
    const r = rig({ ticket: { passwordLater: true }, options: { fetchPassword: () => new Promise((res) => { answer = res; }) } });
    r.rfb.fire('credentialsrequired');
    r.rfb.fire('disconnect', { clean: false });
    answer('otp');
    await vi.advanceTimersByTimeAsync(0);
    expect(r.rfb.credentialsSent).toEqual([]);
  });

  it('a refused fetch asks nobody (the app closed the viewer; its reconnect follows)', async () => {
    const asked: number[] = [];
    const r = rig({ ticket: { passwordLater: true }, options: { fetchPassword: () => Promise.reject(new Error('closed')), onCredentialsRequired: () => asked.push(1) } });
    r.rfb.fire('credentialsrequired');
    await vi.advanceTimersByTimeAsync(0);
    expect(asked).toEqual([]);
    expect(r.states).toEqual([]);
  });

  it('nobody to ask: the session ends with a reason instead of waiting', () => {
    const r = rig();
    r.rfb.fire('credentialsrequired');
    expect(r.states).toEqual([['disconnected', { clean: false, reason: 'The VNC session asks for a password gpu-desk does not have.' }]]);
    expect(r.rfb.disconnects).toBe(1);
  });

  it('the person’s password goes to noVNC', () => {
    const r = rig();
    r.s.sendPassword('typed');
    expect(r.rfb.credentialsSent).toEqual(['typed']);
  });
});

describe('preferences', () => {
  it('a codec change while connected: a new SetEncodings and the whole screen again, no reconnect', () => {
    const r = rig({ prefs: { quality: 6 } });
    r.rfb.fire('connect');
    r.s.applyPrefs({ ...defaultViewerPrefs, quality: 2 });
    expect(r.sent.encodings).toHaveLength(1);
    expect(r.sent.encodings[0]).toContain(ENC.qualityLevel0 + 2);
    expect(r.sent.fullUpdates).toBe(1);
    expect(r.s.currentQuality).toEqual({ quality: 2, compression: defaultViewerPrefs.compression });
  });

  it('a change that is not the codec sends no SetEncodings, but still sets noVNC', () => {
    const r = rig();
    r.rfb.fire('connect');
    r.s.applyPrefs({ ...defaultViewerPrefs, viewOnly: true, scale: 'native', showHud: false });
    expect(r.sent.encodings).toEqual([]);
    expect(r.sent.fullUpdates).toBe(0);
    expect(r.rfb).toMatchObject({ viewOnly: true, scaleViewport: false, resizeSession: false });
    expect(r.opened().oneToOne()).toBe(true);
  });

  it('a codec change before the server answered waits for the connect (noVNC sends the list then)', () => {
    const r = rig();
    r.s.applyPrefs({ ...defaultViewerPrefs, lossless: true });
    expect(r.sent.encodings).toEqual([]);
    expect(r.sent.fullUpdates).toBe(0);
    expect(lossless(r.opened().encodings())).toBe(true);
  });
});

describe('figures and adaptive quality', () => {
  it('each second: frames, bytes, the usual encoding and the input-to-frame latency', async () => {
    const r = rig();
    r.rfb.fire('connect');
    r.channel.stats.bytesIn = 4000;
    r.channel.stats.bytesOut = 100;
    r.rect({ x: 0, y: 0, w: 10, h: 10, encoding: ENC.tight });
    r.rect({ x: 0, y: 0, w: 10, h: 10, encoding: ENC.tight });
    r.rect({ x: 0, y: 0, w: 10, h: 10, encoding: ENC.copyRect });
    r.rect({ x: 0, y: 0, w: 10, h: 10, encoding: ENC.copyRect });
    r.rect({ x: 0, y: 0, w: 10, h: 10, encoding: ENC.copyRect });
    r.s.markInput();
    await vi.advanceTimersByTimeAsync(40);
    r.frame();
    r.frame();
    await vi.advanceTimersByTimeAsync(960);
    expect(r.samples).toHaveLength(1);
    expect(r.samples[0]).toMatchObject({ fps: 2, bytesInPerSec: 4000, bytesOutPerSec: 100, bytesPerFrame: 2000, latencyMs: 40, encoding: 'Tight' });
    // CopyRect is not what the server encodes the picture with: it counts only where nothing else came.
    expect(r.s.pixelsReceived).toBe(200);
    expect(r.s.framesDrawn).toBe(2);
    // A still second keeps the last encoding shown.
    await vi.advanceTimersByTimeAsync(1000);
    expect(r.samples[1]).toMatchObject({ fps: 0, bytesPerFrame: null, latencyMs: null, encoding: 'Tight' });
  });

  it('adaptive quality: a full link at a low frame rate lowers the quality, sent at once and reported', async () => {
    const r = rig({ prefs: { adaptive: true, quality: 8 } });
    r.rfb.fire('connect');
    // Second one: 5 MB over a link that carries 5 MB/s at 5 fps (far from fluid).
    r.channel.stats.bytesIn = 5_000_000;
    for (let i = 0; i < 5; i++) r.frame();
    await vi.advanceTimersByTimeAsync(1000);
    expect(r.qualities).toEqual([[5, 1]]);
    expect(r.sent.encodings).toHaveLength(1);
    expect(r.sent.encodings[0]).toContain(ENC.qualityLevel0 + 5);
    expect(r.s.currentQuality).toEqual({ quality: 5, compression: 1 });
    expect(r.samples[0].quality).toBe(8);
  });

  it('adaptive quality off: the user’s quality stays whatever the link does', async () => {
    const r = rig({ prefs: { adaptive: false, quality: 8 } });
    r.rfb.fire('connect');
    r.channel.stats.bytesIn = 5_000_000;
    for (let i = 0; i < 5; i++) r.frame();
    await vi.advanceTimersByTimeAsync(1000);
    expect(r.qualities).toEqual([]);
    expect(r.sent.encodings).toEqual([]);
  });
});

describe('lossless refresh', () => {
  it('JPEG left on screen when updates stop: the whole screen once without JPEG, then the chosen codec again', async () => {
    const r = rig({ prefs: { quality: 3 } });
    r.rfb.fire('connect');
    r.rect({ x: 0, y: 0, w: 100, h: 100, encoding: ENC.tight, jpeg: true });
    r.frame();
    await vi.advanceTimersByTimeAsync(LOSSLESS_IDLE_MS - 100);
    expect(r.sent.fullUpdates).toBe(0);
    await vi.advanceTimersByTimeAsync(200);
    expect(r.sent.fullUpdates).toBe(1);
    expect(r.sent.encodings).toHaveLength(1);
    expect(lossless(r.sent.encodings[0])).toBe(true);
    expect(r.target.dataset.losslessRefreshes).toBe('1 auto, 0 asked');
    // Part of the screen came: still lossless. The rest came: the chosen codec again, nothing more to refresh.
    r.rect({ x: 0, y: 0, w: 1000, h: 250, encoding: ENC.tight });
    r.frame();
    expect(r.sent.encodings).toHaveLength(1);
    r.rect({ x: 0, y: 0, w: 1000, h: 500, encoding: ENC.tight });
    r.frame();
    expect(r.sent.encodings).toHaveLength(2);
    expect(lossless(r.sent.encodings[1])).toBe(false);
    await vi.advanceTimersByTimeAsync(3 * LOSSLESS_IDLE_MS);
    expect(r.sent.fullUpdates).toBe(1);
  });

  it('JPEG later covered by exact pixels: nothing to refresh', async () => {
    const r = rig();
    r.rfb.fire('connect');
    r.rect({ x: 0, y: 0, w: 100, h: 100, encoding: ENC.tight, jpeg: true });
    r.rect({ x: 0, y: 0, w: 100, h: 100, encoding: ENC.tight });
    r.frame();
    await vi.advanceTimersByTimeAsync(3 * LOSSLESS_IDLE_MS);
    expect(r.sent.fullUpdates).toBe(0);
  });

  it('with the Video codec chosen the screen is the stream’s: no refresh of its own', async () => {
    const r = rig({ prefs: { codec: 'video' } });
    r.rfb.fire('connect');
    r.rect({ x: 0, y: 0, w: 100, h: 100, encoding: ENC.tight, jpeg: true });
    r.frame();
    await vi.advanceTimersByTimeAsync(3 * LOSSLESS_IDLE_MS);
    expect(r.sent.fullUpdates).toBe(0);
  });

  it('the toolbar’s refresh: counted as asked, only while connected', () => {
    const r = rig();
    r.s.losslessRefresh();
    expect(r.sent.fullUpdates).toBe(0);
    r.rfb.fire('connect');
    r.s.losslessRefresh();
    expect(r.sent.fullUpdates).toBe(1);
    expect(lossless(r.sent.encodings[0])).toBe(true);
    expect(r.s.losslessRefreshes).toEqual({ auto: 0, asked: 1 });
    expect(r.target.dataset.losslessRefreshes).toBe('0 auto, 1 asked');
  });
});

describe('keys and clipboard', () => {
  it('a combination is pressed in order and released in reverse, and counts as input', async () => {
    const r = rig();
    r.rfb.fire('connect');
    r.s.sendCombo([1, 2, 3]);
    expect(r.rfb.keys).toEqual([[1, true], [2, true], [3, true], [3, false], [2, false], [1, false]]);
    await vi.advanceTimersByTimeAsync(30);
    r.frame();
    await vi.advanceTimersByTimeAsync(970);
    expect(r.samples[0].latencyMs).toBe(30);
  });

  it('Ctrl+Alt+Del and paste go to noVNC; the server’s clipboard comes out', () => {
    const texts: string[] = [];
    const r = rig({ options: { onRemoteClipboard: (t) => texts.push(t) } });
    r.s.ctrlAltDel();
    r.s.paste('hello');
    r.rfb.fire('clipboard', { text: 'from server' });
    expect(r.rfb.ctrlAltDels).toBe(1);
    expect(r.rfb.pasted).toEqual(['hello']);
    expect(texts).toEqual(['from server']);
  });
});

describe('video mode', () => {
  it('while video draws the screen, its frames count and RFB’s one-pixel updates do not', () => {
    const r = rig();
    r.rfb.fire('connect');
    r.s.videoOwnsScreen = true;
    r.frame();
    expect(r.s.framesDrawn).toBe(0);
    r.s.drawVideoFrame({} as VideoFrame);
    expect(r.s.framesDrawn).toBe(1);
    expect(r.s.framebufferSize).toEqual({ width: 1000, height: 500 });
  });
});
