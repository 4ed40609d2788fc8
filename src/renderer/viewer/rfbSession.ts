import type RFB from '@novnc/novnc';
import type { ViewerPrefs, ViewerTicket } from '../../shared/models';
import type { CountingChannel } from './channel';
import { ENC, encodingLabel, encodingList } from './encodings';
import type { FrameHooks } from './rfbPatches';
import { SampleRing, median, type ViewerSample } from './stats';
import { adaptStep, initialAdaptive, type AdaptiveState } from './adaptive';
import { LossyRegion, refreshDue } from './lossless';

export type ViewerState = 'connecting' | 'connected' | 'disconnected';

export interface ViewerSessionOptions {
  target: HTMLElement;
  ticket: ViewerTicket;
  prefs: ViewerPrefs;
  /** Our decode/draw improvements (off only to measure plain noVNC in the benchmark). */
  fastPath?: boolean;
  onState?(s: ViewerState, detail?: { clean: boolean; reason?: string }): void;
  onSample?(s: ViewerSample): void;
  onRemoteClipboard?(text: string): void;
  onQualityChange?(quality: number, compression: number): void;
  /** The session wants a VNC password we were not given (a desktop started outside gpu-desk). */
  onCredentialsRequired?(): void;
  /** The ticket's one-time password, fetched while the connection started (ticket.passwordLater). */
  fetchPassword?(): Promise<string | null>;
}

const REAL_ENCODINGS: Set<number> = new Set([ENC.raw, ENC.copyRect, ENC.rre, ENC.hextile, ENC.zlib, ENC.tight, ENC.zrle, ENC.jpeg, ENC.h264, ENC.tightPng]);

export const KEYSYM = {
  Control_L: 0xffe3, Alt_L: 0xffe9, Shift_L: 0xffe1, Super_L: 0xffeb, Tab: 0xff09, Escape: 0xff1b,
  Delete: 0xffff, BackSpace: 0xff08, Print: 0xff61, F1: 0xffbe, Return: 0xff0d,
} as const;

/** What the session asks of noVNC when it opens (NoVncSeam.open). */
export interface NoVncOpen {
  target: HTMLElement;
  channel: CountingChannel;
  password?: string;
  /** gpu-desk's decode and draw (installFastPath, installDirectDraw, installOffscreen); off only in the bench. */
  fastPath: boolean;
  offscreen: boolean;
  wasmJpeg: boolean;
  palette32: boolean;
  /** Our SetEncodings list, asked for each time noVNC sends one. */
  encodings(): number[];
  /** Whether 1:1 is chosen (whole device pixels per remote pixel). */
  oneToOne(): boolean;
  hooks: FrameHooks;
}

/**
 * Everything the session does to noVNC and the network, in one place: the app's is noVNC over a
 * CountingChannel with rfbPatches.ts's patches (patchedNoVnc.ts); the unit tests put a fake here
 * (rfbSession.test.ts, beside it), so the session's own logic runs without a browser. This
 * file imports noVNC for its types only: noVNC's modules need a page to load.
 */
export interface NoVncSeam {
  channel(url: string, opts: { batch: boolean }): CountingChannel;
  /** noVNC on the target, patched; `stopAligning` ends installDevicePixelScale's watching. */
  open(o: NoVncOpen): { rfb: RFB; stopAligning(): void };
  framebufferSize(rfb: RFB): { width: number; height: number };
  sendEncodings(rfb: RFB): void;
  requestFullUpdate(rfb: RFB): void;
  updateScale(rfb: RFB): void;
  drawOnScreen(rfb: RFB, image: CanvasImageSource): void;
  pauseScreenUpdates(rfb: RFB): void;
  resumeScreenUpdates(rfb: RFB): void;
}

/** noVNC plus gpu-desk's channel, codec control, figures and adaptive quality. */
export class ViewerSession {
  readonly rfb: RFB;
  readonly channel: CountingChannel;
  state: ViewerState = 'connecting';
  /** Wall time of the first frame drawn after connect (connect-time figure). */
  firstFrameAt: number | null = null;
  readonly history = new SampleRing<ViewerSample>(60);
  framesDrawn = 0;
  /** Area of the framebuffer rectangles received (pixel-carrying encodings): the benchmark's pixel rate. */
  pixelsReceived = 0;
  private prefs: ViewerPrefs;
  private readonly turbo: boolean;
  private h264 = false;
  private adaptive: AdaptiveState;
  private timer: ReturnType<typeof setInterval> | null = null;
  private readonly stopAligning: () => void;
  private sec = { frames: 0, bytesIn: 0, bytesOut: 0, latencies: [] as number[], enc: new Map<number, number>() };
  private inputAt: number | null = null;
  /** A lossless refresh is on its way: lossless encodings until an update has covered the whole screen. */
  private losslessPending = false;
  private fbuPixels = 0;
  /** Where JPEG pixels are on screen, and when the last update came: the automatic lossless refresh. */
  private readonly lossy = new LossyRegion();
  private lastUpdateAt = 0;
  private readonly lossyTimer: ReturnType<typeof setInterval>;
  /** Lossless refreshes asked for: by the viewer itself after motion, and by the person (toolbar, shortcut). */
  readonly losslessRefreshes = { auto: 0, asked: 0 };
  private lastTick = { at: performance.now(), bytesIn: 0, bytesOut: 0 };
  /** Listeners for every drawn frame (the benchmark's key-to-screen probe uses it). */
  readonly frameListeners = new Set<(now: number) => void>();

  constructor(private readonly opts: ViewerSessionOptions, private readonly novnc: NoVncSeam) {
    this.prefs = { ...opts.prefs };
    this.turbo = opts.ticket.flavor === 'turbovnc';
    this.adaptive = initialAdaptive(this.prefs.quality, this.prefs.compression);
    // Page flags, to compare in the bench (--variant): ?sendeach=1 sends each message at once,
    // ?sendlate=1 keeps replies until the task ends even past a decode (sendBatch.ts).
    const flags = new URLSearchParams(globalThis.location?.search ?? '');
    this.channel = novnc.channel(opts.ticket.url, { batch: !flags.has('sendeach') });
    const flushBeforeRect = !flags.has('sendlate');
    // Frames go through an OffscreenCanvas that the element shows (installOffscreen): in the two-machine
    // bench:viewer it spent 10–20 % less desk CPU per Mpixel at the same pixel rate and key-to-screen
    // (docs/bench-viewer.md). Page flag ?onscreen=1: the element's own context, to compare in the bench.
    const offscreen = opts.fastPath !== false && !flags.has('onscreen');
    const opened = novnc.open({
      target: opts.target,
      channel: this.channel,
      password: opts.ticket.vncPassword || undefined,
      fastPath: opts.fastPath !== false,
      offscreen,
      // ?imagedecoder: every JPEG through ImageDecoder, as before the WebAssembly decoder; ?palette8:
      // noVNC's own palette expansion (both only to compare in the bench, e.g. --variant '&imagedecoder=1').
      wasmJpeg: !flags.has('imagedecoder'),
      palette32: !flags.has('palette8'),
      encodings: () => this.encodingList(),
      oneToOne: () => this.prefs.scale === 'native',
      hooks: {
        onFrameDrawn: (now) => this.frameDrawn(now),
        beforeRect: flushBeforeRect ? () => this.channel.flushSends() : undefined,
        onRect: (enc, pixels) => {
          if (!REAL_ENCODINGS.has(enc)) return;
          this.sec.enc.set(enc, (this.sec.enc.get(enc) ?? 0) + 1);
          if (enc !== ENC.copyRect) {
            this.pixelsReceived += pixels;
            this.fbuPixels += pixels;
          }
        },
        onRectAt: (rect) => {
          if (!REAL_ENCODINGS.has(rect.encoding)) return;
          const fb = novnc.framebufferSize(this.rfb);
          this.lossy.fit(fb.width, fb.height);
          if (rect.encoding === ENC.copyRect && rect.from) this.lossy.copy(rect, rect.from.x, rect.from.y);
          else if (rect.jpeg) this.lossy.jpeg(rect);
          else this.lossy.exact(rect);
        },
      },
    });
    this.rfb = opened.rfb;
    this.stopAligning = opened.stopAligning;
    this.watchDevicePixelRatio();
    this.rfb.focusOnClick = true;
    this.applyPrefs(this.prefs);
    this.rfb.addEventListener('connect', () => {
      performance.mark('gd:rfbconnect');
      this.setState('connected');
    });
    this.rfb.addEventListener('disconnect', (e) => {
      const clean = (e as CustomEvent<{ clean: boolean }>).detail?.clean ?? false;
      this.setState('disconnected', { clean });
    });
    this.rfb.addEventListener('securityfailure', (e) => {
      const reason = (e as CustomEvent<{ reason?: string }>).detail?.reason;
      this.setState('disconnected', { clean: false, reason: reason ? `VNC authentication failed: ${reason}` : 'VNC authentication failed' });
    });
    const askPerson = () => {
      if (opts.onCredentialsRequired) opts.onCredentialsRequired();
      else {
        this.setState('disconnected', { clean: false, reason: 'The VNC session asks for a password gpu-desk does not have.' });
        this.rfb.disconnect();
      }
    };
    // The one-time password on its way is tried once; a session that asks again asks the person.
    let later = opts.ticket.passwordLater === true && opts.fetchPassword !== undefined;
    this.rfb.addEventListener('credentialsrequired', () => {
      if (!later) return askPerson();
      later = false;
      // Refused only for a viewer the app has closed (its display moved): the channel's close
      // follows and reconnects, so nobody is asked for a password meanwhile.
      opts.fetchPassword!().then((password) => {
        if (this.state === 'disconnected') return;
        if (password) this.rfb.sendCredentials({ password });
        else askPerson();
      }, () => {});
    });
    this.rfb.addEventListener('clipboard', (e) => opts.onRemoteClipboard?.((e as CustomEvent<{ text: string }>).detail.text));
    // Input → next frame drawn: what the person at the keyboard perceives as lag.
    const markInput = () => {
      if (this.inputAt === null) this.inputAt = performance.now();
    };
    opts.target.addEventListener('keydown', markInput, true);
    opts.target.addEventListener('mousedown', markInput, true);
    void detectH264().then((ok) => {
      this.h264 = ok;
    });
    this.timer = setInterval(() => this.tick(), 1000);
    // Checked often so the refresh follows the last update by about LOSSLESS_IDLE_MS, not by up to a second more.
    this.lossyTimer = setInterval(() => this.maybeRefreshLossless(), 100);
  }

  /**
   * Motion stopped with JPEG pixels still on screen (adaptive quality lowered it, or the codec is
   * lossy): the whole screen once more without JPEG. TurboVNC's own -alr usually gets there first,
   * and then nothing is left to refresh.
   */
  private maybeRefreshLossless(): void {
    // With the Video codec chosen the screen is the stream's (video mode hands it back with its own
    // lossless refresh); asking beside it broke the e2e's encoder-killed fallback (videoMode.spec.ts).
    if (this.state !== 'connected' || this.videoOwnsScreen || this.prefs.codec === 'video') return;
    if (!refreshDue({ lossy: this.lossy.lossy, lastUpdateAt: this.lastUpdateAt, pending: this.losslessPending }, performance.now())) return;
    this.losslessRefreshes.auto++;
    this.refreshWhole();
  }

  /** The toolbar's Lossless refresh: the whole screen now, exactly as the server has it (TurboVNC or TigerVNC). */
  losslessRefresh(): void {
    if (this.state !== 'connected') return;
    this.losslessRefreshes.asked++;
    this.refreshWhole();
  }

  private refreshWhole(): void {
    this.refreshLossless();
    this.novnc.requestFullUpdate(this.rfb);
    const { auto, asked } = this.losslessRefreshes;
    // For the e2e and the curious: how many refreshes the viewer asked for, and why.
    this.opts.target.dataset.losslessRefreshes = `${auto} auto, ${asked} asked`;
  }

  private setState(s: ViewerState, detail?: { clean: boolean; reason?: string }): void {
    if (this.state === 'disconnected') return;
    this.state = s;
    if (s === 'disconnected' && this.timer) clearInterval(this.timer);
    if (s === 'disconnected') clearInterval(this.lossyTimer);
    this.opts.onState?.(s, detail);
  }

  private frameDrawn(now: number): void {
    this.lastUpdateAt = now;
    if (this.losslessPending) {
      const fb = this.novnc.framebufferSize(this.rfb);
      if (this.fbuPixels >= fb.width * fb.height) {
        // The whole screen came lossless: what changes next is encoded as the user chose again.
        this.losslessPending = false;
        this.sendEncodings();
        this.lossy.clear();
      }
    }
    this.fbuPixels = 0;
    // While video draws the screen, RFB's one-pixel updates are not frames the person sees.
    if (!this.videoOwnsScreen) this.countFrame(now);
  }

  /** Video mode draws the screen (its frames are counted instead of RFB's). */
  videoOwnsScreen = false;

  /** While video draws the screen: RFB updates shrink to one pixel (video/rfbPause.ts). */
  pauseScreenUpdates(): void {
    this.novnc.pauseScreenUpdates(this.rfb);
  }

  /** The screen back to RFB: updates over all of it again, one full update now. */
  resumeScreenUpdates(): void {
    this.novnc.resumeScreenUpdates(this.rfb);
  }

  private countFrame(now: number): void {
    this.framesDrawn++;
    this.sec.frames++;
    if (this.firstFrameAt === null) this.firstFrameAt = now;
    if (this.inputAt !== null) {
      this.sec.latencies.push(now - this.inputAt);
      this.inputAt = null;
    }
    for (const l of this.frameListeners) l(now);
  }

  /** Marks an input sent by code (benchmark, key menu) for the latency figure. */
  markInput(): void {
    if (this.inputAt === null) this.inputAt = performance.now();
  }

  private encodingList(): number[] {
    const codec = this.effectiveCodec();
    return encodingList(this.losslessPending ? { ...codec, lossless: true } : codec, {
      fullDepth: true,
      h264: this.h264,
      turbo: this.turbo,
      cursor: true,
    });
  }

  private effectiveCodec(): ViewerPrefs {
    return this.prefs.adaptive
      ? { ...this.prefs, quality: this.adaptive.quality, compression: this.adaptive.compression, jpegQuality: null, subsampling: null, lossless: false }
      : this.prefs;
  }

  private tick(): void {
    const now = performance.now();
    const dt = (now - this.lastTick.at) / 1000 || 1;
    const st = this.channel.stats;
    const bytesIn = st.bytesIn - this.lastTick.bytesIn;
    const bytesOut = st.bytesOut - this.lastTick.bytesOut;
    this.lastTick = { at: now, bytesIn: st.bytesIn, bytesOut: st.bytesOut };
    let topEnc: number | null = null;
    let topN = 0;
    for (const [e, n] of this.sec.enc) if (n > topN && e !== ENC.copyRect) { topEnc = e; topN = n; }
    if (topEnc === null && this.sec.enc.size) topEnc = ENC.copyRect;
    const eff = this.effectiveCodec();
    const sample: ViewerSample = {
      at: Date.now(),
      fps: this.sec.frames / dt,
      bytesInPerSec: bytesIn / dt,
      bytesOutPerSec: bytesOut / dt,
      bytesPerFrame: this.sec.frames ? bytesIn / this.sec.frames : null,
      latencyMs: median(this.sec.latencies),
      encoding: topEnc === null ? (this.history.last()?.encoding ?? null) : encodingLabel(topEnc),
      quality: eff.quality,
      compression: eff.compression,
    };
    this.sec = { frames: 0, bytesIn: 0, bytesOut: 0, latencies: [], enc: new Map() };
    this.history.push(sample);
    this.opts.onSample?.(sample);
    if (this.prefs.adaptive && this.state === 'connected') {
      const before = this.adaptive;
      this.adaptive = adaptStep(before, { bytesPerSec: sample.bytesInPerSec, fps: sample.fps }, now);
      if (before.quality !== this.adaptive.quality || before.compression !== this.adaptive.compression) {
        this.sendEncodings();
        this.opts.onQualityChange?.(this.adaptive.quality, this.adaptive.compression);
      }
    }
  }

  private sendEncodings(): void {
    if (this.state === 'connected') this.novnc.sendEncodings(this.rfb);
  }

  /** Applies preferences live: codec changes go out as a new SetEncodings, no reconnect. */
  applyPrefs(p: ViewerPrefs): void {
    const codecChanged = ['quality', 'compression', 'encoding', 'lossless', 'jpegQuality', 'subsampling', 'adaptive']
      .some((k) => p[k as keyof ViewerPrefs] !== this.prefs[k as keyof ViewerPrefs]);
    if (p.adaptive && !this.prefs.adaptive) this.adaptive = initialAdaptive(p.quality, p.compression);
    this.prefs = { ...p };
    this.rfb.viewOnly = p.viewOnly;
    this.rfb.scaleViewport = p.scale === 'fit';
    this.rfb.resizeSession = p.scale === 'remote';
    // 1:1 shows the whole remote screen at its size; noVNC's screen element scrolls when it is larger.
    this.rfb.clipViewport = false;
    this.rfb.dragViewport = false;
    // noVNC rescales only when scaleViewport flips; 1:1 and resize-remote differ at a fractional ratio too.
    this.novnc.updateScale(this.rfb);
    // ?smooth: the browser's default sampling, only to measure what nearest sampling saves.
    if (this.opts.fastPath !== false && !new URLSearchParams(globalThis.location?.search ?? '').has('smooth')) this.setSampling(p.scale);
    if (codecChanged && this.state === 'connected') {
      this.sendEncodings();
      // The user's choice shows at once on the whole screen (adaptive steps need no such refresh).
      this.novnc.requestFullUpdate(this.rfb);
    }
  }

  /**
   * Unscaled (1:1 or resize-remote at a whole device-pixel ratio), nearest sampling shows exactly the
   * same pixels as smoothing, but Chromium's software compositor then copies the canvas instead of
   * filtering it: profiled in the motion benchmark, its per-frame draw fell from ~3 ms to ~0.3 ms
   * (VizCompositorThread 16% -> 7% of a core). Scale-to-fit keeps smoothing.
   */
  private setSampling(scale: ViewerPrefs['scale']): void {
    const canvas = this.opts.target.querySelector('canvas');
    if (!canvas) return;
    // 1:1 is whole device pixels per remote pixel at any ratio (installDevicePixelScale).
    const exact = scale === 'native' || (scale === 'remote' && Number.isInteger(globalThis.devicePixelRatio ?? 1));
    canvas.style.imageRendering = exact ? 'pixelated' : '';
  }

  /**
   * The window moved to a screen with another scale factor, or the user changed it: 1:1 follows, so
   * the desktop stays whole device pixels per remote pixel.
   */
  private watchDevicePixelRatio(): void {
    if (typeof matchMedia !== 'function') return;
    const mq = matchMedia(`(resolution: ${globalThis.devicePixelRatio || 1}dppx)`);
    const onChange = () => {
      if (this.state === 'disconnected') return;
      this.novnc.updateScale(this.rfb);
      if (this.opts.fastPath !== false) this.setSampling(this.prefs.scale);
      this.watchDevicePixelRatio();
    };
    mq.addEventListener('change', onChange, { once: true });
  }

  get currentQuality(): { quality: number; compression: number } {
    const e = this.effectiveCodec();
    return { quality: e.quality, compression: e.compression };
  }

  /**
   * The next full update without JPEG (TurboVNC's lossless refresh): after motion, and when video
   * mode hands the screen back, text and thin lines come out exactly as the server has them.
   * The caller asks for the update (requestFullUpdate, or resumeScreenUpdates).
   */
  refreshLossless(): void {
    if (this.state !== 'connected') return;
    this.losslessPending = true;
    this.fbuPixels = 0;
    this.sendEncodings();
  }

  get framebufferSize(): { width: number; height: number } {
    return this.novnc.framebufferSize(this.rfb);
  }

  /** A decoded video frame onto the viewer's own canvas, at the framebuffer's pixels. */
  drawVideoFrame(frame: VideoFrame): void {
    this.novnc.drawOnScreen(this.rfb, frame);
    this.countFrame(performance.now());
  }

  /** Presses the keys in order, then releases them in reverse (e.g. Ctrl+Alt+F2). */
  sendCombo(keysyms: number[]): void {
    this.markInput();
    for (const k of keysyms) this.rfb.sendKey(k, null, true);
    for (const k of [...keysyms].reverse()) this.rfb.sendKey(k, null, false);
  }

  ctrlAltDel(): void {
    this.markInput();
    this.rfb.sendCtrlAltDel();
  }

  sendPassword(password: string): void {
    this.rfb.sendCredentials({ password });
  }

  paste(text: string): void {
    this.rfb.clipboardPasteFrom(text);
  }

  focus(): void {
    this.rfb.focus();
  }

  close(): void {
    this.stopAligning();
    if (this.timer) clearInterval(this.timer);
    clearInterval(this.lossyTimer);
    this.timer = null;
    try {
      this.rfb.disconnect();
    } catch {
      /* already gone */
    }
  }
}

let h264Support: Promise<boolean> | null = null;
/** WebCodecs H.264 decode, as noVNC itself checks (config support only; the server decides use). */
function detectH264(): Promise<boolean> {
  h264Support ??= (async () => {
    const VD = (globalThis as { VideoDecoder?: { isConfigSupported(c: unknown): Promise<{ supported?: boolean }> } }).VideoDecoder;
    if (!VD) return false;
    try {
      const r = await VD.isConfigSupported({ codec: 'avc1.42401f', codedWidth: 1920, codedHeight: 1080, optimizeForLatency: true });
      return !!r.supported;
    } catch {
      return false;
    }
  })();
  return h264Support;
}

export function h264Available(): Promise<boolean> {
  return detectH264();
}
