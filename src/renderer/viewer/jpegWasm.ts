/**
 * Synchronous JPEG decoding for Tight's JPEG rectangles: libjpeg-turbo's API (Squoosh's MozJPEG
 * build, via @jsquash/jpeg) in WebAssembly, decoding straight to RGBA on the page's thread.
 *
 * Why not WebCodecs' ImageDecoder for every rectangle: profiled in bench:viewer (docs/bench-viewer.md)
 * each ImageDecoder costs ~0.5 ms of the main thread (construction, the promise, drawing a decoded
 * VideoFrame, close) plus a thread-pool hop, however small the rectangle; TigerVNC and TurboVNC send
 * hundreds of 5–11 kpixel JPEG rectangles a second, so the fixed cost was ~120 ms of CPU per Mpixel
 * against ~13 ms here. Decoding synchronously also keeps noVNC's render queue empty, so a frame's
 * other rectangles are drawn at once instead of copied into the queue behind a pending decode.
 */
import createModule from '@jsquash/jpeg/codec/dec/mozjpeg_dec.js';
import wasmUrl from '@jsquash/jpeg/codec/dec/mozjpeg_dec.wasm?url';

interface MozJpegModule {
  decode(data: Uint8Array, preserveOrientation: boolean): unknown;
}

let mod: MozJpegModule | null = null;
let loading: Promise<boolean> | null = null;

/**
 * Loads the decoder once per page; resolves false (ImageDecoder stays in use) where it cannot load.
 * `binary`: the module's bytes where there is no page to fetch them from (the unit test).
 */
export function loadJpegWasm(binary?: ArrayBuffer): Promise<boolean> {
  loading ??= (async () => {
    try {
      // Fetched here and handed over, so the module never looks for its file next to the bundle's URL.
      const wasmBinary = binary ?? (await (await fetch(wasmUrl)).arrayBuffer());
      mod = (await createModule({ wasmBinary })) ?? null;
      return mod !== null;
    } catch (e) {
      console.warn(`gpu-desk viewer: the WebAssembly JPEG decoder did not load (${String(e)}); JPEG rectangles use ImageDecoder`);
      return false;
    }
  })();
  return loading;
}

/**
 * The decoder's C++ builds its result as `new ImageData(new Uint8ClampedArray(view into its memory))`
 * through embind. Copying a Uint8Array view into a Uint8ClampedArray takes V8's element-by-element
 * path: profiled with glxspheres on TurboVNC, that copy cost more of the main thread (28 %) than the
 * decoding itself. For the length of one synchronous decode the two constructors the module looks
 * up by name are stand-ins that hand back the view itself; we copy it once with a same-type set
 * (a memcpy) into a buffer we reuse. Nothing else runs during the swap (one thread, no awaits).
 */
function PassView(this: unknown, view: Uint8Array): Uint8Array {
  return view;
}
function CaptureImage(this: unknown, data: Uint8Array, width: number, height: number): { data: Uint8Array; width: number; height: number } {
  return { data, width, height };
}
let scratch = new Uint8Array(0);

/**
 * Decodes `bytes` to RGBA in a buffer reused by the next call (starting at offset 0, as noVNC's
 * blitImage requires), or null where the decoder is not loaded or the data is not a JPEG of `w`×`h`
 * (the caller then uses ImageDecoder, which reports a corrupt rectangle as noVNC does).
 */
export function decodeJpegRgba(bytes: Uint8Array, w: number, h: number): Uint8Array | null {
  if (!mod) return null;
  const g = globalThis as unknown as Record<string, unknown>;
  const clamped = g.Uint8ClampedArray;
  const imageData = g.ImageData;
  let out: { data: Uint8Array; width: number; height: number } | null;
  g.Uint8ClampedArray = PassView;
  g.ImageData = CaptureImage;
  try {
    out = mod.decode(bytes, false) as typeof out;
  } catch {
    out = null;
  } finally {
    g.Uint8ClampedArray = clamped;
    g.ImageData = imageData;
  }
  if (!out || out.width !== w || out.height !== h || out.data.length !== w * h * 4) return null;
  if (scratch.length < out.data.length) scratch = new Uint8Array(out.data.length);
  scratch.set(out.data);
  return scratch;
}
