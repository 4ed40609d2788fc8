import RFB from '@novnc/novnc';
import { CountingChannel } from './channel';
import { loadJpegWasm } from './jpegWasm';
import { checkRfbInternals, drawOnScreen, framebufferSize, installDevicePixelScale, installDirectDraw, installFastPath, installHooks, installOffscreen, offscreenContext, overrideEncodings, requestFullUpdate, sendEncodings, updateScale } from './rfbPatches';
import type { NoVncSeam } from './rfbSession';
import { pauseScreenUpdates, resumeScreenUpdates } from './video/rfbPause';

/** The app's noVNC for a ViewerSession: over a CountingChannel, with gpu-desk's patches in (rfbPatches.ts). */
export const patchedNoVnc: NoVncSeam = {
  channel: (url, opts) => new CountingChannel(url, opts),
  open: (o) => {
    const rfb = withOpaqueCanvases(o.fastPath, o.offscreen, () => new RFB(o.target, o.channel, {
      credentials: o.password ? { password: o.password } : undefined,
    }));
    checkRfbInternals(rfb);
    overrideEncodings(rfb, o.encodings);
    if (o.fastPath) {
      // The element says which JPEG decoder draws (the e2e checks the page's CSP lets WebAssembly load).
      o.target.dataset.jpegDecoder = 'imagedecoder';
      if (o.wasmJpeg) void loadJpegWasm().then((ok) => { if (ok) o.target.dataset.jpegDecoder = 'webassembly'; });
      installFastPath(rfb, { maxQueued: 3, wasmJpeg: o.wasmJpeg, palette32: o.palette32 });
      installDirectDraw(rfb);
      installOffscreen(rfb);
    }
    const stopAligning = installDevicePixelScale(rfb, o.oneToOne);
    installHooks(rfb, o.hooks);
    return { rfb, stopAligning };
  },
  framebufferSize,
  sendEncodings,
  requestFullUpdate,
  updateScale,
  drawOnScreen,
  pauseScreenUpdates,
  resumeScreenUpdates,
};

/**
 * noVNC creates its canvases (the visible one and the back buffer) inside its constructor with
 * default attributes. A remote desktop is opaque: alpha:false lets the compositor skip blending.
 * With `offscreen`, the visible canvas draws through an OffscreenCanvas (installOffscreen in
 * rfbPatches.ts): it is the one noVNC has already placed in its screen element when it asks for a
 * context; the back buffer is detached.
 */
function withOpaqueCanvases<T>(enabled: boolean, offscreen: boolean, make: () => T): T {
  if (!enabled) return make();
  const proto = HTMLCanvasElement.prototype;
  const orig = proto.getContext;
  let transferred = false;
  proto.getContext = function (this: HTMLCanvasElement, type: string, attrs?: Record<string, unknown>) {
    if (type !== '2d') return orig.call(this, type, attrs);
    const opaque = { alpha: false, ...attrs };
    if (offscreen && !transferred && this.parentElement !== null) {
      transferred = true;
      const ctx = offscreenContext(this, opaque);
      if (ctx) return ctx;
    }
    return orig.call(this, type, opaque);
  } as typeof proto.getContext;
  try {
    return make();
  } finally {
    proto.getContext = orig;
  }
}
