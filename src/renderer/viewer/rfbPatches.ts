import type RFB from '@novnc/novnc';

/**
 * noVNC 1.7 internals gpu-desk hooks into (pinned version; checkRfbInternals() fails loudly if an
 * upgrade moves them). Why each one:
 * - _sendEncodings: noVNC's order is fixed and it never sends TurboVNC's fine-grained quality or
 *   subsampling; we send our own list.
 * - _display.imageRect/drawImage: noVNC decodes each JPEG by base64-encoding it into a data: URL
 *   for an <img>; WebCodecs' ImageDecoder decodes the bytes directly, off the main thread.
 * - _display.pending: noVNC waits for every frame to finish decoding before parsing the next one;
 *   allowing a few frames in flight keeps the decoder busy while the next frame is parsed.
 * - _display.flip / _handleRect / _sendKeyEvent paths: counted for the HUD (fps, encoding, latency).
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
  _FBU: { encoding: number | null; width: number; height: number };
  _fbDepth: number;
  _fbWidth: number;
  _fbHeight: number;
  _rfbConnectionState: string;
  _enabledContinuousUpdates: boolean;
}

export function internals(rfb: RFB): RfbInternals {
  return rfb as unknown as RfbInternals;
}

export function checkRfbInternals(rfb: RFB): void {
  const r = internals(rfb);
  const missing = ['_sendEncodings', '_handleRect', '_display', '_sock', '_FBU'].filter((k) => !(k in r));
  const d = r._display as unknown as Record<string, unknown> | undefined;
  if (d) {
    missing.push(...['imageRect', 'drawImage', 'pending', 'flip', '_renderQPush', '_damage', '_rescale', 'resize', 'viewportChangeSize'].filter((k) => typeof d[k] !== 'function'));
    missing.push(...['_drawCtx', '_renderQ', '_target', '_targetCtx', '_viewportLoc', '_damageBounds'].filter((k) => !d[k]));
  }
  if (missing.length) throw new Error(`noVNC internals changed (missing ${missing.join(', ')}): update src/renderer/viewer/rfbPatches.ts`);
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
}

export function installFastPath(rfb: RFB, opts: FastPathOptions): void {
  const d = internals(rfb)._display;
  d.imageRect = (x, y, w, h, mime, arr) => {
    if (w === 0 || h === 0) return;
    // Both decoders copy the bytes before returning, so noVNC may reuse its receive queue at once.
    d._renderQPush({ type: 'img', img: new PendingImage(arr, mime), x, y, width: w, height: h });
  };
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

export interface FrameHooks {
  /** A frame (FramebufferUpdate) became visible. */
  onFrameDrawn(now: number): void;
  /** A rectangle with this encoding started decoding. */
  onRect(encoding: number): void;
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
  const origRect = r._handleRect.bind(r);
  r._handleRect = () => {
    // Re-entered while a rectangle's bytes arrive; count it once, when it completes.
    const enc = r._FBU.encoding;
    const done = origRect();
    if (done && enc !== null) hooks.onRect(enc);
    return done;
  };
}
