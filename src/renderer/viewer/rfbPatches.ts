import type RFB from '@novnc/novnc';
import { decodeJpegRgba } from './jpegWasm';
import { patchTightPalette, type TightInternals } from './tightPalette';

/**
 * noVNC 1.7 internals gpu-desk hooks into (pinned version; checkRfbInternals() fails loudly if an
 * upgrade moves them). Why each one:
 * - _sendEncodings: noVNC's order is fixed and it never sends TurboVNC's fine-grained quality or
 *   subsampling; we send our own list.
 * - _display.imageRect/drawImage: noVNC decodes each JPEG by base64-encoding it into a data: URL
 *   for an <img>; we decode it synchronously in WebAssembly (jpegWasm.ts), or with WebCodecs'
 *   ImageDecoder until that has loaded.
 * - the Tight decoder's _paletteRect/_monoRect: noVNC expands indexed pixels a byte at a time; we
 *   write whole 32-bit pixels (TurboVNC sends most of a moving desktop this way).
 * - _display.pending: noVNC waits for every frame to finish decoding before parsing the next one;
 *   allowing a few frames in flight keeps the decoder busy while the next frame is parsed.
 * - _display.flip / _handleRect / _sendKeyEvent paths: counted for the HUD (fps, encoding, latency).
 * - _fbWidth/_fbHeight, _updateScale, _display._targetCtx: the session's reads, through the helpers
 *   below (framebufferSize, updateScale, drawOnScreen), so no other file reads a private field unlisted.
 */
interface DisplayInternals {
  _renderQ: unknown[];
  _target: HTMLCanvasElement;
  _targetCtx: CanvasRenderingContext2D;
  _backbuffer: HTMLCanvasElement;
  _damageBounds: { left: number; top: number; right: number; bottom: number };
  _viewportLoc: { x: number; y: number; w: number; h: number };
  _scale: number;
  _rescale(factor: number): void;
  viewportChangeSize(width?: number, height?: number): void;
  resize(width: number, height: number): void;
  _drawCtx: CanvasRenderingContext2D;
  _damage(x: number, y: number, w: number, h: number): void;
  imageRect(x: number, y: number, w: number, h: number, mime: string, arr: Uint8Array): void;
  blitImage(x: number, y: number, w: number, h: number, arr: Uint8Array, offset: number, fromQueue: boolean): void;
  copyImage(oldX: number, oldY: number, newX: number, newY: number, w: number, h: number, fromQueue?: boolean): void;
  drawImage(img: CanvasImageSource, ...args: number[]): void;
  pending(): boolean;
  flip(fromQueue?: boolean): void;
  _renderQPush(action: Record<string, unknown>): void;
}
export interface RfbInternals {
  _sendEncodings(): void;
  _sock: { flush(): void; sQpush8(n: number): void; sQpush16(n: number): void; sQpush32(n: number): void };
  _display: DisplayInternals;
  clipViewport: boolean;
  _handleRect(): boolean;
  _updateScale(): void;
  _FBU: { encoding: number | null; x: number; y: number; width: number; height: number };
  _fbDepth: number;
  _fbWidth: number;
  _fbHeight: number;
  _rfbConnectionState: string;
  _enabledContinuousUpdates: boolean;
  /** Where noVNC last put the remote pointer (canvas CSS pixels). */
  _mousePos?: { x?: unknown; y?: unknown };
  /** noVNC's screen element (the canvas's parent). */
  _screen?: HTMLElement;
}

/**
 * noVNC's fields read outside this file, by file: checked with the rest at connect, so a noVNC
 * upgrade that renames one fails here, naming it, not in a corner of the viewer later.
 */
const READ_ELSEWHERE: Record<string, string[]> = {
  // Multi-screen layouts: its own _requestRemoteResize (SetDesktopSize with several screens).
  'rfbScreens.ts': ['_requestRemoteResize', '_screenSize', '_resizeSession', '_viewOnly', '_supportsSetDesktopSize', '_pendingRemoteResize', '_lastResize', '_resizeTimeout', '_screenID', '_screenFlags', '_fbWidth', '_fbHeight', '_sock'],
  // Video mode: one-pixel update requests while the stream draws.
  'video/rfbPause.ts': ['_sock', '_fbWidth', '_fbHeight', '_enabledContinuousUpdates', '_rfbConnectionState'],
  // This file's helpers below, for the viewer: the pointer lock's start, the picture kept over a reconnect.
  'rfbPatches.ts': ['_mousePos', '_screen'],
};

export function internals(rfb: RFB): RfbInternals {
  return rfb as unknown as RfbInternals;
}

export function checkRfbInternals(rfb: RFB): void {
  const r = internals(rfb);
  const missing = ['_sendEncodings', '_handleRect', '_updateScale', '_display', '_sock', '_FBU', '_fbWidth', '_fbHeight'].filter((k) => !(k in r));
  for (const [file, keys] of Object.entries(READ_ELSEWHERE)) missing.push(...keys.filter((k) => !(k in r)).map((k) => `${k} (${file})`));
  const d = r._display as unknown as Record<string, unknown> | undefined;
  if (d) {
    missing.push(...['imageRect', 'copyImage', 'drawImage', 'pending', 'flip', '_renderQPush', '_damage', '_rescale', 'resize', 'viewportChangeSize'].filter((k) => typeof d[k] !== 'function'));
    missing.push(...['_drawCtx', '_renderQ', '_target', '_targetCtx', '_viewportLoc', '_damageBounds'].filter((k) => !d[k]));
  }
  // installPalette32 replaces these on the Tight decoder.
  const tight = (rfb as unknown as { _decoders?: Record<number, Record<string, unknown> | undefined> })._decoders?.[7];
  missing.push(...['_paletteRect', '_monoRect', '_getScratchBuffer'].filter((k) => typeof tight?.[k] !== 'function').map((k) => `_decoders[7].${k}`));
  // …and read this one from it (tightPalette.ts).
  if (!tight || !('_numColors' in tight)) missing.push('_decoders[7]._numColors');
  if (missing.length) throw new Error(`noVNC internals changed (missing ${missing.join(', ')}): update src/renderer/viewer/rfbPatches.ts`);
}

/** Where noVNC last put the remote pointer (canvas CSS pixels), if it has. */
export function remotePointer(rfb: RFB): { x: number; y: number } | null {
  const p = internals(rfb)._mousePos;
  return typeof p?.x === 'number' && typeof p.y === 'number' ? { x: p.x, y: p.y } : null;
}

/** noVNC's screen element: on disconnect it leaves the page with its canvas and pixels intact. */
export function screenElement(rfb: RFB): HTMLElement | null {
  return internals(rfb)._screen ?? null;
}

/** The remote screen's size in its pixels (0 × 0 until the server has said). */
export function framebufferSize(rfb: RFB): { width: number; height: number } {
  const r = internals(rfb);
  return { width: r._fbWidth, height: r._fbHeight };
}

/** Sends the SetEncodings list now (ours: overrideEncodings). */
export function sendEncodings(rfb: RFB): void {
  internals(rfb)._sendEncodings();
}

/** Scales the canvas for the current settings again: noVNC does it only when scaleViewport flips. */
export function updateScale(rfb: RFB): void {
  internals(rfb)._updateScale();
}

/** A picture onto noVNC's visible canvas at the framebuffer's pixels (video mode's decoded frames). */
export function drawOnScreen(rfb: RFB, image: CanvasImageSource): void {
  internals(rfb)._display._targetCtx.drawImage(image, 0, 0);
}

/** Sends our SetEncodings list instead of noVNC's. */
export function overrideEncodings(rfb: RFB, list: () => number[]): void {
  const r = internals(rfb);
  r._sendEncodings = () => {
    const encs = list();
    r._sock.sQpush8(2); // msg-type SetEncodings
    r._sock.sQpush8(0); // padding
    r._sock.sQpush16(encs.length);
    for (const e of encs) r._sock.sQpush32(e);
    r._sock.flush();
  };
}

/**
 * Asks for the whole screen again (a non-incremental FramebufferUpdateRequest; TurboVNC and TigerVNC
 * honour it with continuous updates on). A codec change only applies to what the server encodes
 * next, so a still screen would keep its old, perhaps JPEG-blurred, pixels until they change.
 */
export function requestFullUpdate(rfb: RFB): void {
  const r = internals(rfb);
  if (!r._fbWidth || !r._fbHeight) return;
  r._sock.sQpush8(3); // msg-type FramebufferUpdateRequest
  r._sock.sQpush8(0); // not incremental
  r._sock.sQpush16(0);
  r._sock.sQpush16(0);
  r._sock.sQpush16(r._fbWidth);
  r._sock.sQpush16(r._fbHeight);
  r._sock.flush();
}

interface DecodedFrame {
  displayWidth: number;
  displayHeight: number;
  close(): void;
}
interface ImageDecoderLike {
  decode(): Promise<{ image: DecodedFrame }>;
  close(): void;
}
type ImageDecoderCtor = new (init: { data: BufferSource; type: string }) => ImageDecoderLike;
const ImageDecoderImpl = (globalThis as { ImageDecoder?: ImageDecoderCtor }).ImageDecoder;

/**
 * A pending JPEG that noVNC's render queue treats like an <img> (complete + 'load'). WebCodecs'
 * ImageDecoder where the browser has it: measured here, building a Blob per rectangle for
 * createImageBitmap cost a fifth of the main thread (Blob registration), ImageDecoder does not.
 */
class PendingImage {
  complete = false;
  width = 0;
  height = 0;
  source: CanvasImageSource | null = null;
  private closeSource: (() => void) | null = null;
  src = '';
  private listeners: (() => void)[] = [];
  constructor(bytes: Uint8Array, mime: string) {
    const done = () => {
      this.complete = true;
      for (const l of this.listeners.splice(0)) l.call(this);
    };
    // A corrupt JPEG: noVNC logs the size mismatch and stops this queue entry, as with <img>.
    const failed = () => done();
    if (ImageDecoderImpl) {
      const dec = new ImageDecoderImpl({ data: bytes as Uint8Array<ArrayBuffer>, type: mime });
      dec.decode().then(({ image }) => {
        dec.close();
        this.source = image as unknown as CanvasImageSource;
        this.width = image.displayWidth;
        this.height = image.displayHeight;
        this.closeSource = () => image.close();
        done();
      }, () => { dec.close(); failed(); });
      return;
    }
    createImageBitmap(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mime })).then((bm) => {
      this.source = bm;
      this.width = bm.width;
      this.height = bm.height;
      this.closeSource = () => bm.close();
      done();
    }, failed);
  }
  release(): void {
    this.closeSource?.();
    this.closeSource = null;
    this.source = null;
  }
  addEventListener(_type: 'load', fn: () => void): void {
    this.listeners.push(fn);
  }
  removeEventListener(_type: 'load', fn: () => void): void {
    this.listeners = this.listeners.filter((l) => l !== fn);
  }
}

export interface FastPathOptions {
  /** Frames allowed in the render queue before noVNC stops parsing (noVNC's own: 0). */
  maxQueued: number;
  /** Decode JPEG rectangles synchronously in WebAssembly once it has loaded (else ImageDecoder only). */
  wasmJpeg: boolean;
  /** Expand Tight's indexed rectangles 32 bits at a time (installPalette32). */
  palette32: boolean;
}

export function installFastPath(rfb: RFB, opts: FastPathOptions): void {
  const d = internals(rfb)._display;
  d.imageRect = (x, y, w, h, mime, arr) => {
    if (w === 0 || h === 0) return;
    // blitImage draws at once, or queues a copy (made from offset 0 of the pixels' buffer) behind a
    // frame still waiting on ImageDecoder.
    const queued = d._renderQ.length !== 0;
    const rgba = opts.wasmJpeg && mime === 'image/jpeg' ? decodeJpegRgba(arr, w, h, queued) : null;
    if (rgba) {
      d.blitImage(x, y, w, h, rgba, 0, false);
      return;
    }
    // Both decoders copy the bytes before returning, so noVNC may reuse its receive queue at once.
    d._renderQPush({ type: 'img', img: new PendingImage(arr, mime), x, y, width: w, height: h });
  };
  if (opts.palette32) installPalette32(rfb);
  const origDraw = d.drawImage.bind(d);
  d.drawImage = (img: CanvasImageSource, ...args: number[]) => {
    if (img instanceof PendingImage) {
      if (!img.source) return;
      d._drawCtx.drawImage(img.source, args[0], args[1]);
      d._damage(args[0], args[1], img.width, img.height);
      img.release();
      return;
    }
    origDraw(img, ...args);
  };
  // Count queued frames by their flip markers: noVNC pushes one 'flip' per frame into the queue.
  d.pending = () => {
    let flips = 0;
    for (const a of d._renderQ as { type: string }[]) if (a.type === 'flip') flips++;
    return flips >= opts.maxQueued;
  };
}

/** The Tight decoder's palette expansion, 32 bits at a time (tightPalette.ts). */
function installPalette32(rfb: RFB): void {
  // checkRfbInternals has made sure the decoder and its methods are there.
  patchTightPalette((rfb as unknown as { _decoders: Record<number, TightInternals> })._decoders[7]);
}

/**
 * Draws straight into the visible canvas. noVNC renders into a hidden back buffer and copies each
 * frame's damaged bounding box to the visible canvas on flip(): with the viewport never clipped
 * (gpu-desk scrolls 1:1 instead) the two canvases always hold the same pixels, so the copy, and the
 * back buffer's own raster and snapshot in Chromium, are pure cost (measured: see bench:viewer).
 * CopyRect then copies within one canvas, which the 2D context handles.
 */
export function installDirectDraw(rfb: RFB): void {
  const r = internals(rfb);
  const d = r._display;
  d._backbuffer = d._target;
  d._drawCtx = d._targetCtx;
  d.flip = (fromQueue?: boolean) => {
    if (d._renderQ.length !== 0 && !fromQueue) {
      d._renderQPush({ type: 'flip' });
      return;
    }
    d._damageBounds.left = d._damageBounds.top = 65535;
    d._damageBounds.right = d._damageBounds.bottom = 0;
  };
  // noVNC sizes the visible canvas here (clearing it); resize() has just sized and refilled it.
  d.viewportChangeSize = () => {};
  const origResize = d.resize.bind(d);
  d.resize = (w: number, h: number) => {
    if (r.clipViewport) throw new Error('direct drawing needs an unclipped viewport');
    origResize(w, h);
    // noVNC's viewport follows the framebuffer when unclipped; keep its bookkeeping in step.
    Object.assign(d._viewportLoc, { x: 0, y: 0, w, h });
    d._rescale(d._scale);
  };
}

/**
 * Where the viewer's pixels live once installOffscreen moved them: the visible canvas element carries
 * its OffscreenCanvas under this key, for the tests and the benchmark that read pixels back (the
 * element itself no longer hands out a 2D context).
 */
export const OFFSCREEN = Symbol.for('gpu-desk.viewer.offscreen');

/**
 * Draws into an OffscreenCanvas that the visible canvas shows (transferControlToOffscreen), still on
 * the page's main thread. Chromium then hands each frame to the compositor directly instead of
 * through the page's paint and commit: measured in software compositing (docs/bench-viewer.md), a
 * 1080p canvas changed 25 times a second cost the renderer and GPU process ~3 ms of CPU per change
 * instead of ~6. The element keeps its CSS size, transform, sampling and input events, so scaling
 * and pointer mapping are unchanged. A canvas can only be transferred before it has a context, and
 * noVNC takes one in its constructor: offscreenContext() is what rfbSession hands noVNC there; this,
 * after installDirectDraw, points noVNC's back buffer (sized on resize, source of CopyRect) at it.
 */
export function installOffscreen(rfb: RFB): void {
  const d = internals(rfb)._display;
  const offscreen = (d._target as HTMLCanvasElement & { [OFFSCREEN]?: OffscreenCanvas })[OFFSCREEN];
  if (!offscreen) return;
  d._backbuffer = offscreen as unknown as HTMLCanvasElement;
  d._drawCtx = d._targetCtx;
}

/** Transfers `canvas` to an OffscreenCanvas (kept on the element under OFFSCREEN) and returns its 2D context. */
export function offscreenContext(canvas: HTMLCanvasElement, attrs: CanvasRenderingContext2DSettings): OffscreenCanvasRenderingContext2D | null {
  if (typeof canvas.transferControlToOffscreen !== 'function') return null;
  const offscreen = canvas.transferControlToOffscreen();
  const ctx = offscreen.getContext('2d', attrs);
  if (ctx) (canvas as HTMLCanvasElement & { [OFFSCREEN]?: OffscreenCanvas })[OFFSCREEN] = offscreen;
  return ctx;
}

/**
 * "1:1" means whole device pixels per remote pixel. noVNC sizes its canvas in CSS pixels (scale 1),
 * which at a fractional device-pixel ratio (125 %, 150 %) spreads each remote pixel over 1.25 or 1.5
 * device pixels and resamples the whole desktop. This keeps the largest whole number of device pixels
 * per remote pixel that the ratio allows (1 at 125 % and 150 %, 2 at 200 % and 250 %) by scaling by
 * that over the ratio; noVNC maps the pointer through the same scale, so clicks land on the pixel
 * under them. Other modes (scale to fit, resize the remote) pass through unchanged. Returns what
 * stops its watching of the canvas's position.
 */
export function installDevicePixelScale(rfb: RFB, oneToOne: () => boolean): () => void {
  const d = internals(rfb)._display;
  const canvas = d._target;
  const orig = d._rescale.bind(d);
  // Whole device pixels per remote pixel need the canvas's origin on the device-pixel grid too:
  // centred in its scroll box, or scrolled, it may sit a quarter device pixel off, and Chromium then
  // blends the edge row and column with the background. A sub-pixel translate puts it back.
  let dx = 0;
  let dy = 0;
  /**
   * At a fractional ratio the canvas's size cannot be given in CSS: layout keeps lengths in 1/64 CSS
   * px, and 640 device px at 150 % is 426.67 CSS px, which comes out a hair too small or too large,
   * so the desktop's last column and row were resampled and blended with the page. Instead the canvas
   * is laid out at a whole number of CSS px (its device size) and scaled by 1/ratio in a transform,
   * which is kept in floating point; its margins give it the footprint of its visible size, centred
   * as noVNC centres it, so scrolling and centring stay as they were, and put its corner on a whole
   * device pixel (hidpi.spec compares the composited screen with the server's own at 125 and 150 %).
   */
  let composed: { w: number; h: number; dpr: number } | null = null;
  const transform = () => {
    const t = dx !== 0 || dy !== 0 ? `translate(${dx}px, ${dy}px)` : '';
    canvas.style.transform = composed ? `${t} scale(${1 / composed.dpr})`.trim() : t;
  };
  const footprint = () => {
    if (!composed) return;
    const box = canvas.parentElement;
    if (!box) return;
    const vw = composed.w / composed.dpr;
    const vh = composed.h / composed.dpr;
    // The canvas's own corner on a whole device pixel, from layout alone: a multiple of `grid` CSS px
    // is a whole number of device px and exact in layout's 1/64 px (3 device px = 2 CSS px at 150 %).
    const grid = layoutGrid(composed.dpr);
    const b = box.getBoundingClientRect();
    const ox = b.left + box.clientLeft - box.scrollLeft;
    const oy = b.top + box.clientTop - box.scrollTop;
    const snap = (origin: number, want: number) => (grid ? Math.ceil((origin + want) / grid) * grid - origin : want);
    const left = snap(ox, Math.max(0, (box.clientWidth - vw) / 2));
    const top = snap(oy, Math.max(0, (box.clientHeight - vh) / 2));
    const margin = `${top}px ${vw - composed.w}px ${vh - composed.h}px ${left}px`;
    if (canvas.style.margin !== margin) canvas.style.margin = margin;
  };
  const align = () => {
    const dpr = globalThis.devicePixelRatio || 1;
    if (!oneToOne() || Number.isInteger(dpr)) {
      if (dx !== 0 || dy !== 0) {
        dx = dy = 0;
        transform();
      }
      return;
    }
    // A composed canvas is put on the grid by its margins: layout snaps a translate's fractions away.
    footprint();
    if (composed) {
      if (dx !== 0 || dy !== 0) {
        dx = dy = 0;
        transform();
      }
      return;
    }
    const r = canvas.getBoundingClientRect();
    const fx = Math.round(r.left * dpr) / dpr - r.left;
    const fy = Math.round(r.top * dpr) / dpr - r.top;
    if (Math.abs(fx) < 1e-3 && Math.abs(fy) < 1e-3) return;
    dx += fx;
    dy += fy;
    transform();
  };
  d._rescale = (factor: number) => {
    const dpr = globalThis.devicePixelRatio || 1;
    const exact = factor === 1 && oneToOne();
    orig(exact ? deviceExactScale(dpr) : factor);
    if (exact && !Number.isInteger(dpr)) {
      const k = Math.max(1, Math.floor(dpr));
      composed = { w: k * d._viewportLoc.w, h: k * d._viewportLoc.h, dpr };
      canvas.style.width = `${composed.w}px`;
      canvas.style.height = `${composed.h}px`;
      canvas.style.transformOrigin = '0 0';
      canvas.style.flexShrink = '0';
      transform();
    } else if (composed) {
      composed = null;
      // noVNC's own centring again.
      canvas.style.margin = 'auto';
      canvas.style.transformOrigin = '';
      canvas.style.flexShrink = '';
      transform();
    }
    align();
  };
  const box = canvas.parentElement;
  const resized = typeof ResizeObserver === 'function' ? new ResizeObserver(align) : null;
  resized?.observe(canvas);
  if (box) resized?.observe(box);
  box?.addEventListener('scroll', align, { passive: true });
  globalThis.addEventListener?.('resize', align);
  return () => {
    resized?.disconnect();
    box?.removeEventListener('scroll', align);
    globalThis.removeEventListener?.('resize', align);
  };
}

/** The smallest whole CSS length that is a whole number of device pixels at this ratio (null: none up to 64). */
function layoutGrid(dpr: number): number | null {
  for (let g = 1; g <= 64; g++) if (Math.abs(g * dpr - Math.round(g * dpr)) < 1e-6) return g;
  return null;
}

/** The CSS scale that shows a remote pixel as a whole number of device pixels (see installDevicePixelScale). */
export function deviceExactScale(dpr: number): number {
  return Math.max(1, Math.floor(dpr)) / dpr;
}

export interface FrameHooks {
  /** A frame (FramebufferUpdate) became visible. */
  onFrameDrawn(now: number): void;
  /** A rectangle with this encoding and area (pixels) started decoding. */
  onRect(encoding: number, pixels: number): void;
  /**
   * A rectangle decoded, where it lies: `jpeg` when (some of) its pixels came as JPEG (Tight's JPEG
   * sub-encoding), `from` the source of a CopyRect.
   */
  onRectAt?(rect: { x: number; y: number; w: number; h: number; encoding: number; jpeg: boolean; from?: { x: number; y: number } }): void;
  /** Before each step of a rectangle's decoding (the channel sends what waits: a reply never waits for a decode). */
  beforeRect?(): void;
}

export function installHooks(rfb: RFB, hooks: FrameHooks): void {
  const r = internals(rfb);
  const d = r._display;
  const origFlip = d.flip.bind(d);
  d.flip = (fromQueue?: boolean) => {
    const queued = d._renderQ.length !== 0 && !fromQueue;
    origFlip(fromQueue);
    if (!queued) hooks.onFrameDrawn(performance.now());
  };
  // Which rectangle drew JPEG, and where a CopyRect came from (the decoders call these while the rectangle is handled).
  let jpeg = false;
  let from: { x: number; y: number } | undefined;
  const origImageRect = d.imageRect.bind(d);
  d.imageRect = (x, y, w, h, mime, arr) => {
    if (mime === 'image/jpeg') jpeg = true;
    origImageRect(x, y, w, h, mime, arr);
  };
  const origCopy = d.copyImage.bind(d);
  d.copyImage = (oldX, oldY, newX, newY, w, h, fromQueue) => {
    // The render queue replays copies later: only the decoder's own call belongs to the rectangle.
    if (!fromQueue) from = { x: oldX, y: oldY };
    origCopy(oldX, oldY, newX, newY, w, h, fromQueue);
  };
  const origRect = r._handleRect.bind(r);
  r._handleRect = () => {
    hooks.beforeRect?.();
    // Re-entered while a rectangle's bytes arrive; count it once, when it completes.
    const enc = r._FBU.encoding;
    const { x, y, width: w, height: h } = r._FBU;
    const pixels = w * h;
    const done = origRect();
    if (done && enc !== null) {
      hooks.onRect(enc, pixels);
      hooks.onRectAt?.({ x, y, w, h, encoding: enc, jpeg, ...(from && enc === 1 ? { from } : {}) });
    }
    if (done) { jpeg = false; from = undefined; }
    return done;
  };
}
