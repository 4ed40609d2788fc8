#!/usr/bin/env node
// Runs the CLI from its one-file bundle (out/cli/gpu-desk.cjs: scripts/build-cli.mjs, run by `npm ci`'s
// prepare step and `npm run build`), which starts without compiling TypeScript. Where the bundle is
// missing, or older than any source it was built from (a checkout edited or pulled since), it runs
// the TypeScript through tsx instead, so a stale build never hides an edit.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const bundle = path.join(root, 'out', 'cli', 'gpu-desk.cjs');

function bundleIsCurrent() {
  let built;
  let inputs;
  try {
    built = fs.statSync(bundle).mtimeMs;
    inputs = JSON.parse(fs.readFileSync(path.join(root, 'out', 'cli', 'inputs.json'), 'utf8'));
  } catch {
    return false;
  }
  // An installed package without its TypeScript sources has only the bundle to run.
  if (!fs.existsSync(path.join(root, 'src'))) return true;
  for (const f of inputs) {
    try {
      if (fs.statSync(path.join(root, f)).mtimeMs > built) return false;
    } catch {
      return false; // a source removed or renamed since the build
    }
  }
  return true;
}

async function loadCli() {
  if (bundleIsCurrent()) return require(bundle);
  require('tsx/cjs');
  // main.ts loads each command with import(), which goes through Node's ESM loader: tsx/cjs alone
  // does not reach it, and an extensionless ./commands/tunnel would not be found.
  (await import('tsx/esm/api')).register();
  return require('../src/core/cli/main.ts');
}

const exit = (code) => process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
loadCli().then((cli) => cli.main(process.argv.slice(2))).then(exit, (err) => {
  process.stderr.write(`error: ${err && err.message ? err.message.split('\n')[0] : String(err)}\n`);
  exit(1);
});
