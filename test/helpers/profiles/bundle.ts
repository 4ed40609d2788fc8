import { buildSync } from 'esbuild';
import path from 'node:path';

/**
 * Child processes in crash tests start hundreds of times: bundle the TypeScript worker once into
 * plain JS so each start costs a bare `node` launch rather than a TypeScript loader.
 */
export function bundleWorker(entry: string, outDir: string): string {
  const outfile = path.join(outDir, path.basename(entry).replace(/\.ts$/, '.cjs'));
  buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', target: 'node20', outfile, logLevel: 'error' });
  return outfile;
}
