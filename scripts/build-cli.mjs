// Builds the command-line tool into one CommonJS file, out/cli/gpu-desk.cjs, so `gpu-desk` starts
// without compiling TypeScript at each run (through tsx it took 0.5 s on a quiet machine, 3-5 s on a
// busy one). Pure-JavaScript packages (zod, ssh-config) are bundled in: loading zod from its many files
// cost more CPU than the rest of the CLI. Packages with native parts stay external and load from
// node_modules: keytar, and ssh2 (its optional sshcrypto.node and cpu-features bindings are found
// relative to its own files; bundled, it would silently fall back to slower JavaScript ciphers).
// bin/gpu-desk.cjs runs this file when it
// is at least as new as every source it was built from (out/cli/inputs.json), and tsx otherwise.
// Run by `npm run build`, `npm run build:cli` and npm's `prepare` (after `npm ci`).
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

/** Packages with native bindings (and their optional native dependencies). */
const NATIVE = ['keytar', 'ssh2', 'cpu-features'];

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const outDir = path.join(root, 'out/cli');
const result = await build({
  absWorkingDir: root,
  entryPoints: ['src/core/cli/main.ts'],
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  external: NATIVE,
  metafile: true,
  write: false,
  outfile: path.join(outDir, 'gpu-desk.cjs'),
  logLevel: 'warning',
});
fs.mkdirSync(outDir, { recursive: true });
// Written aside and renamed into place: a CLI starting meanwhile reads the old file or the new, whole.
const put = (name, text) => {
  const tmp = path.join(outDir, `.${name}.${process.pid}`);
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, path.join(outDir, name));
};
// Our sources only: bin/gpu-desk.cjs compares their times with the bundle's (packages change with npm ci).
put('inputs.json', JSON.stringify(Object.keys(result.metafile.inputs).filter((f) => !f.includes('node_modules/'))) + '\n');
put('gpu-desk.cjs', result.outputFiles[0].contents);
