// The decoder half of @jsquash/jpeg (an Emscripten factory) and Vite's `?url` asset imports,
// typed as src/renderer/viewer/jpegWasm.ts uses them.
declare module '@jsquash/jpeg/codec/dec/mozjpeg_dec.js' {
  const createModule: (options: { wasmBinary: ArrayBuffer }) => Promise<{ decode(data: Uint8Array, preserveOrientation: boolean): unknown }>;
  export default createModule;
}
declare module '*?url' {
  const url: string;
  export default url;
}
