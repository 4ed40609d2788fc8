import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The bundle scripts/build-cli.mjs makes starts a command without loading the others: `--help` loads
 * nothing beyond gpu-desk.cjs (no command, no package, not commands.cjs or zod.cjs), and a command
 * loads what it needs (issue 43: loading everything made every start slow). Built aside, then run in fresh Node processes that
 * record each module required.
 */
const REPO = path.resolve(__dirname, '../../..');
// Inside the checkout: the bundle finds ssh2 and keytar in its node_modules, as out/cli/ does.
fs.mkdirSync(path.join(REPO, 'out'), { recursive: true });
const dir = fs.mkdtempSync(path.join(REPO, 'out', 'lazy-bundle-'));
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-lazy-home-'));
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});
beforeAll(() => {
  execFileSync(process.execPath, [path.join(REPO, 'scripts/build-cli.mjs'), dir], { cwd: REPO, stdio: 'inherit' });
});

/** Runs the bundle's main with these arguments; returns what it required beyond Node's built-ins. */
function required(args: string[]): { loaded: string[]; stdout: string } {
  const script = `
    const Module = require('node:module');
    const load = Module._load;
    const seen = [];
    Module._load = function (request, ...rest) {
      if (!request.startsWith('node:') && !Module.isBuiltin(request)) seen.push(request);
      return load.call(this, request, ...rest);
    };
    let out = '';
    const io = { stdout: { write: (s) => { out += s; return true; } }, stderr: { write: () => true }, stdin: process.stdin, interactive: false, env: process.env };
    require(${JSON.stringify(path.join(dir, 'gpu-desk.cjs'))}).main(${JSON.stringify(args)}, io)
      .then(() => { process.stdout.write(JSON.stringify({ loaded: seen.slice(1), stdout: out })); process.exit(0); });`;
  const env = { ...process.env, GPU_DESK_HOME: home };
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: REPO, encoding: 'utf8', env }));
}

describe('the CLI bundle loads only the command that runs', () => {
  it('--help lists every command and loads nothing else', () => {
    const r = required(['--help']);
    expect(r.stdout).toMatch(/tunnel .*\n.*profiles /);
    expect(r.loaded).toEqual([]);
  });

  it('help <command> loads the commands file, and of it that command alone', () => {
    const r = required(['help', 'probe']);
    expect(r.stdout).toMatch(/^Usage: gpu-desk probe /);
    expect(r.loaded).toContain('./commands.cjs');
    expect(r.loaded).not.toContain('keytar'); // the keys command's, not probe's
    expect(r.loaded).not.toContain('./zod.cjs');
  });

  it('a command that reads profiles loads zod from its own file', () => {
    const r = required(['profiles', 'list']);
    expect(r.stdout).toMatch(/No profiles yet/);
    expect(r.loaded).toContain('./zod.cjs');
  });
});
