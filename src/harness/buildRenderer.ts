import fs from 'node:fs';
import path from 'node:path';

export const RENDERER_ROOT = path.resolve(__dirname, '../renderer');
export const HARNESS_OUT = path.resolve(__dirname, '../../out/harness');

/** Newest mtime under the renderer and shared sources (a stale build is rebuilt). */
function newestSource(): number {
  let newest = 0;
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  };
  walk(RENDERER_ROOT);
  walk(path.resolve(RENDERER_ROOT, '../shared'));
  return newest;
}

/** The real renderer, built by Vite the same way Electron's build does (React, ES2022 for noVNC's top-level await). */
export async function buildRenderer(outDir = HARNESS_OUT, opts: { force?: boolean; quiet?: boolean } = {}): Promise<string> {
  const index = path.join(outDir, 'index.html');
  if (!opts.force && fs.existsSync(index) && fs.statSync(index).mtimeMs >= newestSource()) return outDir;
  const { build } = await import('vite');
  const react = (await import('@vitejs/plugin-react')).default;
  await build({
    configFile: false,
    root: RENDERER_ROOT,
    base: './',
    logLevel: opts.quiet ? 'warn' : 'info',
    plugins: [react()],
    build: { outDir, emptyOutDir: true, target: 'es2022', sourcemap: true, chunkSizeWarningLimit: 2000 },
  });
  return outDir;
}
