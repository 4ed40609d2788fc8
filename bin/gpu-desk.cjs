#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx so `npx gpu-desk` works right after `npm ci`,
// with no build step and without Electron.
'use strict';
require('tsx/cjs');
const { main } = require('../src/core/cli/main.ts');
const exit = (code) => process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
main(process.argv.slice(2)).then(exit, (err) => {
  process.stderr.write(`error: ${err && err.message ? err.message.split('\n')[0] : String(err)}\n`);
  exit(1);
});
