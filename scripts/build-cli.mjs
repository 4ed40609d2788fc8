// Builds the command-line tool into CommonJS files under out/cli/, so `gpu-desk` starts without
// compiling TypeScript at each run (through tsx it took 0.5 s on a quiet machine, 3-5 s on a busy one).
// Three files, each read only when needed (issue 43: `gpu-desk --help` at most 250 ms after
// `node -e 0`, on a busy machine too, where each millisecond of CPU costs several of waiting):
// - gpu-desk.cjs: main.ts alone, a few kilobytes: --help, --version and an unknown command need no more.
// - commands.cjs: runCommand.ts and everything the commands use. Its import() of each command becomes
//   a lazy initialiser inside the file: a command's modules, and the packages they require, run only
//   when that command runs.
// - zod.cjs: zod alone (more than half of all the code; built from its ES modules, which leave out
//   what its CommonJS build carries besides), required only when a module that uses it first runs.
//   Loading it from node_modules' many files instead cost a command more than parsing one file.
// Each of these is the one copy of its modules: one registry of commands, one registry of secrets.
// Packages with native parts stay external and load from node_modules: keytar, and ssh2 (its optional
// sshcrypto.node and cpu-features bindings are found relative to its own files; bundled, it would
// silently fall back to slower JavaScript ciphers).
// bin/gpu-desk.cjs runs these when gpu-desk.cjs is at least as new as every source they were built
// from (out/cli/inputs.json), and tsx otherwise.
// Run by `npm run build`, `npm run build:cli` and npm's `prepare` (after `npm ci`).
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

/** Packages with native bindings (and their optional native dependencies). */
const NATIVE = ['keytar', 'ssh2', 'cpu-features'];

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// Another folder may be named (test/unit/cli/lazyBundle.test.ts builds one aside).
const outDir = path.resolve(root, process.argv[2] ?? 'out/cli');
// 'dynamic-import': false turns import() of another of these files into require(): Node's ESM loader
// would otherwise start up for it and scan the file for its export names.
const common = { absWorkingDir: root, bundle: true, platform: 'node', target: 'node20', format: 'cjs', supported: { 'dynamic-import': false }, write: false, logLevel: 'warning' };
/** An import of one of these becomes require() of the file built from it, beside the requiring file. */
const apart = {
  name: 'apart',
  setup(b) {
    b.onResolve({ filter: /^zod$/ }, () => ({ path: './zod.cjs', external: true }));
    b.onResolve({ filter: /^\.\/runCommand$/ }, (a) => (a.importer.endsWith(path.join('src/core/cli/main.ts')) ? { path: './commands.cjs', external: true } : undefined));
  },
};
const ours = (entry, outName) => build({ ...common, entryPoints: [entry], external: NATIVE, plugins: [apart], metafile: true, outfile: path.join(outDir, outName) });
const [front, commands, zod] = await Promise.all([
  ours('src/core/cli/main.ts', 'gpu-desk.cjs'),
  ours('src/core/cli/runCommand.ts', 'commands.cjs'),
  build({ ...common, stdin: { contents: "export * from 'zod';", resolveDir: root }, outfile: path.join(outDir, 'zod.cjs') }),
]);
fs.mkdirSync(outDir, { recursive: true });
// Written aside and renamed into place: a CLI starting meanwhile reads the old file or the new, whole.
const put = (name, text) => {
  const tmp = path.join(outDir, `.${name}.${process.pid}`);
  fs.writeFileSync(tmp, text);
  fs.renameSync(tmp, path.join(outDir, name));
};
// Our sources only: bin/gpu-desk.cjs compares their times with the bundle's (packages change with npm ci).
const inputs = [...new Set([front, commands].flatMap((r) => Object.keys(r.metafile.inputs)))].filter((f) => !f.includes('node_modules/'));
// gpu-desk.cjs last, so that it is the newest: bin/gpu-desk.cjs compares the sources with it.
put('zod.cjs', zod.outputFiles[0].contents);
put('commands.cjs', commands.outputFiles[0].contents);
put('inputs.json', JSON.stringify(inputs) + '\n');
put('gpu-desk.cjs', front.outputFiles[0].contents);
