import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

/**
 * Three bundles: main (Node, dependencies such as ssh2 and keytar stay external so their native
 * bindings load from node_modules, unpacked from the asar), preload (sandboxed: everything bundled
 * into one CommonJS file whose only require is 'electron'), renderer (the React app).
 */
export default defineConfig({
  main: {
    build: {
      rolldownOptions: { input: { index: resolve(__dirname, 'src/main/index.ts') } },
    },
  },
  preload: {
    build: {
      // A sandboxed preload cannot require node_modules: zod (the contract) is bundled in.
      externalizeDeps: false,
      rolldownOptions: { input: { index: resolve(__dirname, 'src/preload/index.ts') }, output: { format: 'cjs' } },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    build: {
      rolldownOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } },
    },
    plugins: [react()],
  },
});
