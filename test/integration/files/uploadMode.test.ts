import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { uploadToFolder } from '../../../src/core/files';

/**
 * Issue 34, low 5: an upload is created 0600 (not 0644 for every user on the server to read), and a
 * replaced file keeps its own mode. Real sshd, real sftp-server, whatever the bed's umask.
 */
let bed: SshdBed;
let conn: SshConnection;
let sftp: SFTPWrapper;
let dir: string;

async function* one(b: Buffer): AsyncGenerator<Buffer> {
  yield b;
}
const mode = (p: string) => fs.statSync(p).mode & 0o7777;

beforeAll(async () => {
  bed = await startSshd();
  conn = await connectSsh(bedOptions(bed));
  sftp = await conn.sftp();
  dir = path.posix.join(bed.home, `gd-upmode-${process.pid}-${randomBytes(3).toString('hex')}`);
  await new Promise<void>((res, rej) => sftp.mkdir(dir, (e) => (e ? rej(e) : res())));
}, 60_000);
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await conn?.close();
  await cleanupAll();
});

describe('modes of uploaded files (issue 34 low 5)', () => {
  it('a new upload is 0600', async () => {
    await uploadToFolder(sftp, { folder: dir, name: 'new.txt', overwrite: false, source: one(Buffer.from('secret\n')) });
    expect(mode(path.join(dir, 'new.txt')).toString(8)).toBe('600');
  });

  it('a replaced file keeps its mode (0755 script, 0640 shared, 0600 private), with the new bytes', async () => {
    for (const m of [0o755, 0o640, 0o600]) {
      const f = path.join(dir, `keep-${m.toString(8)}.sh`);
      fs.writeFileSync(f, 'old\n');
      fs.chmodSync(f, m);
      await uploadToFolder(sftp, { folder: dir, name: path.basename(f), overwrite: true, source: one(Buffer.from('new\n')) });
      expect(fs.readFileSync(f, 'utf8')).toBe('new\n');
      expect(mode(f).toString(8)).toBe(m.toString(8));
    }
  });
});
