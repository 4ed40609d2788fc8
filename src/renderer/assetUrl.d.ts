// Vite's `?url` asset imports (the viewer's WebAssembly JPEG decoder, src/renderer/viewer/jpegWasm.ts).
declare module '*?url' {
  const url: string;
  export default url;
}
