/**
 * Synchronous JPEG decoding for Tight's JPEG rectangles: libjpeg-turbo 2.1.5's decoder built for
 * WebAssembly with SIMD for its inverse DCT and colour conversion (tools/jpeg-wasm: the same bytes as
 * its C code gives), one decompressor kept for the page's life, RGBA out, on the page's thread.
 *
 * Why not WebCodecs' ImageDecoder for every rectangle: profiled in bench:viewer (docs/bench-viewer.md)
 * each ImageDecoder costs ~0.5 ms of the main thread (construction, the promise, drawing a decoded
 * VideoFrame, close) plus a thread-pool hop, however small the rectangle; TigerVNC and TurboVNC send
 * hundreds of 5–11 kpixel JPEG rectangles a second, so the fixed cost was ~120 ms of CPU per Mpixel
 * against ~13 ms here. Decoding synchronously also keeps noVNC's render queue empty, so a frame's
 * other rectangles are drawn at once instead of copied into the queue behind a pending decode.
 */
import wasmUrl from './jpeg/gd_jpeg.wasm?url';

/** The module's exports (tools/jpeg-wasm/gd_jpeg.c). */
interface GdJpeg {
  memory: { buffer: ArrayBuffer };
  __stack_pointer: { value: number };
  _initialize(): void;
  gd_in(n: number): number;
  gd_out(n: number): number;
  gd_decode(len: number, w: number, h: number): number;
  gd_reset(): void;
}

let mod: GdJpeg | null = null;
let loading: Promise<boolean> | null = null;

/** libjpeg's error_exit, called from inside the module: leaves it by throwing (see decodeJpegRgba). */
class JpegError extends Error {}

/**
 * Loads the decoder once per page; resolves false (ImageDecoder stays in use) where it cannot load.
 * `binary`: the module's bytes where there is no page to fetch them from (the unit test).
 */
export function loadJpegWasm(binary?: ArrayBuffer): Promise<boolean> {
  loading ??= (async () => {
    try {
      const bytes = binary ?? (await (await fetch(wasmUrl)).arrayBuffer());
      // The C library's stdio is linked but never used: its WASI calls answer "bad file".
      const unused = () => 8;
      // Typed here: the Node-side type check (the unit test) has no DOM library's WebAssembly types.
      const wasm = (globalThis as unknown as { WebAssembly: { instantiate(b: ArrayBuffer, imports: object): Promise<{ instance: { exports: unknown } }> } }).WebAssembly;
      const { instance } = await wasm.instantiate(bytes, {
        env: { gd_jpeg_error: (code: number) => { throw new JpegError(`libjpeg error ${code}`); } },
        wasi_snapshot_preview1: { fd_close: unused, fd_seek: unused, fd_write: unused, proc_exit: unused },
      });
      const ex = instance.exports as unknown as GdJpeg;
      ex._initialize();
      mod = ex;
      return true;
    } catch (e) {
      console.warn(`gpu-desk viewer: the WebAssembly JPEG decoder did not load (${String(e)}); JPEG rectangles use ImageDecoder`);
      return false;
    }
  })();
  return loading;
}

let scratch = new Uint8Array(0);

/**
 * Decodes `bytes` to RGBA, or null where the decoder is not loaded or the data is not a whole JPEG
 * of `w`×`h` (the caller then uses ImageDecoder, which reports a corrupt rectangle as noVNC does).
 * The pixels are a view of the module's own memory, valid until the next call: drawn from there,
 * a rectangle is copied once (into the canvas), not twice. `atZero`: a copy at offset 0 of a buffer
 * reused by the next such call instead, for noVNC's render queue, which copies from offset 0 of
 * the view's buffer.
 */
export function decodeJpegRgba(bytes: Uint8Array, w: number, h: number, atZero = false): Uint8Array | null {
  const m = mod;
  if (!m) return null;
  const size = w * h * 4;
  const sp = m.__stack_pointer.value;
  try {
    const input = m.gd_in(bytes.length);
    const out = m.gd_out(size);
    if (!input || !out) return null;
    new Uint8Array(m.memory.buffer, input, bytes.length).set(bytes);
    if (m.gd_decode(bytes.length, w, h) !== 0) return null;
    // The memory may have grown during the call: the view is made after it.
    const pixels = new Uint8Array(m.memory.buffer, out, size);
    if (!atZero) return pixels;
    if (scratch.length < size) scratch = new Uint8Array(size);
    scratch.set(pixels);
    return scratch;
  } catch (e) {
    if (!(e instanceof JpegError)) throw e;
    // Thrown out of the middle of libjpeg, as its longjmp recovery would leave it: the C stack
    // pointer is put back and the decompressor reset for the next rectangle.
    m.__stack_pointer.value = sp;
    m.gd_reset();
    return null;
  }
}
