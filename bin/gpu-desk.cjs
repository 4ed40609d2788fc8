#!/usr/bin/env node
// Runs the TypeScript CLI directly through tsx so `npx gpu-desk` works right after `npm ci`,
// with no build step and without Electron.
'use strict';
require('tsx/cjs');
const { main } = require('../src/core/cli/main.ts');
main(process.argv.slice(2)).then(
  (code) => { process.exitCode = code; },
  (err) => { process.stderr.write(`error: ${err && err.message ? err.message : String(err)}\n`); process.exitCode = 1; },
);
