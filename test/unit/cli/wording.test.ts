import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../../src/core/cli/io';
import { main } from '../../../src/core/cli/main';

/** The CLI in this process, with its own empty data folder and no ssh config: exit code and stderr. */
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-cli-wording-'));
afterAll(() => fs.rmSync(home, { recursive: true, force: true }));

async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (d: Buffer) => (text += d.toString()));
  const io: CliIo = { stdin: new PassThrough(), stdout: new PassThrough(), stderr, interactive: false, env: { GPU_DESK_HOME: home, HOME: home } };
  const code = await main(args, io);
  return { code, stderr: text };
}

describe('CLI wording (issue 43)', () => {
  it('the action before the destination: one line showing the order', async () => {
    const r = await cli(['sessions', 'list', 'sandbox']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('error: "list" comes after the destination — write it as gpu-desk sessions sandbox list\n');
    const j = await cli(['jobs', 'cancel', 'mycluster', '4711']);
    expect(j.stderr).toBe('error: "cancel" comes after the destination — write it as gpu-desk jobs mycluster cancel …\n');
  });

  it('a bad -L forward states its format once', async () => {
    const r = await cli(['tunnel', 'sandbox', '--display', '1', '-L', 'foo']);
    expect(r.code).not.toBe(0);
    expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(r.stderr.match(/LOCAL_PORT:HOST:REMOTE_PORT/g)).toHaveLength(1);
  });

  it('a bare name that is neither a saved profile nor a host says both', async () => {
    const r = await cli(['probe', 'sandbox', '-F', 'none']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: No saved profile is named "sandbox", and no host of that name was found — .*gpu-desk profiles list/);
    // A dotted name is a host name only: no word about profiles.
    const d = await cli(['probe', 'nosuch.invalid', '-F', 'none']);
    expect(d.stderr).toMatch(/^error: The host name in \S*nosuch\.invalid could not be resolved/);
    expect(d.stderr).not.toMatch(/profile/);
  });
});
