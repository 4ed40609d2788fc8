import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Issue 34, low 10 (key files): a key file is read with a type and size check, as ssh's
 * sshkey_load_file does: /dev/zero, a FIFO, a folder or a file over 1 MiB never blocks the main
 * process or fills its memory; each is skipped (auth) or refused (import) in one line.
 * The reads run in a child process with a time limit, so a read that blocks fails the test
 * instead of hanging the test worker.
 */
const ROOT = path.resolve(__dirname, '../../..');
let dir: string;
let fifo: string;
let big: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-keyfiles-'));
  fifo = path.join(dir, 'fifo');
  execFileSync('mkfifo', [fifo]);
  big = path.join(dir, 'big');
  fs.writeFileSync(big, '');
  fs.truncateSync(big, 64 * 1024 * 1024); // sparse: costs no disk
  fs.mkdirSync(path.join(dir, 'folder'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function child(script: string): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, ['-e', `require('tsx/cjs');\n${script}`], { cwd: ROOT, encoding: 'utf8', timeout: 30_000, env: { ...process.env, NODE_OPTIONS: '' } });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

describe('key files read with a type and size check (issue 34 low 10)', () => {
  it('an identity file that is /dev/zero, a FIFO, a folder or 64 MiB is skipped with a note; the next method is tried', () => {
    const files = ['/dev/zero', fifo, path.join(dir, 'folder'), big];
    const r = child(`
      const { makeAuthHandler } = require('./src/core/ssh/auth.ts');
      const report = { tried: [], notes: [], certificateProblems: [] };
      const h = makeAuthHandler({ endpoint: { host: 'h', hostName: 'h', port: 22, user: 'u', identityFiles: [] }, agent: undefined, keySources: [],
        identityFiles: ${JSON.stringify(files)}, callbacks: {}, memory: { passphrases: new Map() }, log: () => {} }, report);
      h(['publickey'], false, (next) => { console.log(JSON.stringify({ next, report })); process.exit(0); });
    `);
    expect(r.status, `child ended with ${r.status} (null: it blocked and was killed); stderr: ${r.err.slice(0, 500)}`).toBe(0);
    const { next, report } = JSON.parse(r.out.trim().split('\n').at(-1)!);
    expect(next).toBe(false);
    expect(report.notes).toEqual([
      'identity file /dev/zero: not a regular file',
      `identity file ${fifo}: not a regular file`,
      `identity file ${path.join(dir, 'folder')}: not a regular file`,
      `identity file ${big}: larger than 1 MiB, which no key file is`,
    ]);
  });

  it('keys import of /dev/zero, a FIFO or a 64 MiB file is refused in one line, at once', () => {
    const r = child(`
      const { KeyStore } = require('./src/core/keychain/keyStore.ts');
      const ks = new KeyStore({ secrets: {}, profiles: {}, keysDir: ${JSON.stringify(path.join(dir, 'keys'))} });
      (async () => {
        const out = [];
        for (const f of ${JSON.stringify(['/dev/zero', fifo, big])}) out.push(await ks.importFile('k', f).then(() => 'imported', (e) => e.code + ': ' + e.message));
        console.log(JSON.stringify(out));
        process.exit(0);
      })();
    `);
    expect(r.status, `child ended with ${r.status} (null: it blocked and was killed); stderr: ${r.err.slice(0, 500)}`).toBe(0);
    expect(JSON.parse(r.out.trim().split('\n').at(-1)!)).toEqual([
      'KEY_FILE: cannot read key file /dev/zero: not a regular file',
      `KEY_FILE: cannot read key file ${fifo}: not a regular file`,
      `KEY_FILE: cannot read key file ${big}: larger than 1 MiB, which no key file is`,
    ]);
  });
});
