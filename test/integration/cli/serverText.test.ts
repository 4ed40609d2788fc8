import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, makeTempDir, startSshd, type SshdBed } from '../../bed';

const BIN = path.resolve(__dirname, '../../../bin/gpu-desk.cjs');
// A window-title change, a screen clear, a bell, an 8-bit CSI and a right-to-left override: what a
// hostile server would send to take over the user's terminal or make text read differently.
const HOSTILE = '\x1b]0;owned\x07\x1b[2J\u009b31m\u202e';
const HOSTILE_ESCAPED = '\\033]0;owned\\007\\033[2J\\302\\23331m\\342\\200\\256';

let bed: SshdBed;
let shimDir: string;

beforeAll(async () => {
  const dir = makeTempDir('gd-hostile-');
  fs.chmodSync(dir, 0o755);
  const banner = path.join(dir, 'banner');
  fs.writeFileSync(banner, `Welcome to the lab ${HOSTILE} cluster\r\nSecond line\r\n`, { mode: 0o644 });
  // SHIM of nvidia-smi (no GPU here): the real query format, with a GPU name a hostile server chose.
  shimDir = path.join(dir, 'bin');
  fs.mkdirSync(shimDir, { mode: 0o755 });
  const line = `0, NVIDIA A100${HOSTILE}, GPU-3f1c2a7e-91b4-4c1d-8e0a-5b7f2d9c6e11, 81920, 4, 0, 535.183.01, 00000000:07:00.0`;
  fs.writeFileSync(path.join(shimDir, 'nvidia-smi'), `#!/bin/sh\nprintf '%s\\n' '${line}'\n`, { mode: 0o755 });
  bed = await startSshd({ extraConfig: [`Banner ${banner}`, `SetEnv PATH=${shimDir}:/usr/local/bin:/usr/bin:/bin`] });
});
afterAll(cleanupAll);

function cli(args: string[]): Promise<{ code: number; stdout: Buffer; stderr: Buffer }> {
  const home = makeTempDir('gd-hostile-home-');
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args, `${bed.user}@127.0.0.1`, '-p', String(bed.port), '-i', bed.userKeyPath, '-F', 'none', '--no-agent', '--accept-new-host-key', '--known-hosts', path.join(home, 'kh')], {
      env: { ...process.env, HOME: home, GPU_DESK_HOME: home, SSH_AUTH_SOCK: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    p.stdout.on('data', (d: Buffer) => out.push(d));
    p.stderr.on('data', (d: Buffer) => err.push(d));
    p.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out), stderr: Buffer.concat(err) }));
  });
}

/** No raw ESC, BEL, CR, 8-bit CSI or bidi override byte sequence reached the output. */
function expectTerminalSafe(b: Buffer): void {
  expect(b.includes(0x1b)).toBe(false);
  expect(b.includes(0x07)).toBe(false);
  expect(b.includes(0x0d)).toBe(false);
  expect(b.includes(Buffer.from('\u009b'))).toBe(false);
  expect(b.includes(Buffer.from('\u202e'))).toBe(false);
}

describe('text from the server reaches the terminal escaped, as OpenSSH prints it (issue 16.5)', () => {
  it('the sshd Banner (stderr) and the probe report (a GPU name from the nvidia-smi shim, stdout) show escape sequences made visible', async () => {
    const r = await cli(['probe']);
    expect(r.code, r.stderr.toString()).toBe(0);
    expect(r.stderr.toString('utf8')).toContain(`Welcome to the lab ${HOSTILE_ESCAPED} cluster\nSecond line\n`);
    expectTerminalSafe(r.stderr);
    expect(r.stdout.toString('utf8')).toContain(`NVIDIA A100${HOSTILE_ESCAPED}`);
    expectTerminalSafe(r.stdout);
  });

  it('probe --json keeps the GPU name\'s value, its unsafe characters written as \\u escapes', async () => {
    const json = await cli(['probe', '--json']);
    expect(json.code, json.stderr.toString()).toBe(0);
    expectTerminalSafe(json.stdout);
    const report = JSON.parse(json.stdout.toString('utf8'));
    expect(JSON.stringify(report)).toContain(JSON.stringify(`NVIDIA A100${HOSTILE}`).slice(1, -1));
  });
});
