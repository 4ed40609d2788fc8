import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, makeTempDir, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { GpuDeskError } from '../../../src/core/errors';
import { defaultUploadFolder, downloadToFolder, listFolder, uploadToFolder, WRITE_CHUNK } from '../../../src/core/files';
import { FileTransfers } from '../../../src/core/app/services/files';
import { ConnectionScope } from '../../../src/core/app/connectionScope';

let bed: SshdBed;
let conn: SshConnection;
let sftp: SFTPWrapper;
/** This run's own folder in the shared bed home (other people's tests use the same account). */
let dir: string;

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const mkdir = (p: string) => new Promise<void>((res, rej) => sftp.mkdir(p, (e) => (e ? rej(e) : res())));
const symlink = (target: string, p: string) => new Promise<void>((res, rej) => sftp.symlink(target, p, (e) => (e ? rej(e) : res())));
async function* chunks(b: Buffer, size = 100_000): AsyncGenerator<Buffer> {
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}
const partsIn = (folder: string) => fs.readdirSync(folder).filter((n) => n.endsWith('.gpu-desk-part'));

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(GpuDeskError);
    return (e as GpuDeskError).code;
  }
  throw new Error('expected a failure');
}

beforeAll(async () => {
  bed = await startSshd();
  conn = await connectSsh(bedOptions(bed));
  sftp = await conn.sftp();
  dir = path.posix.join(bed.home, `gd-files-${process.pid}-${randomBytes(3).toString('hex')}`);
  await mkdir(dir);
}, 60_000);
afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await conn?.close();
  await cleanupAll();
});

describe('upload over SFTP on the open connection', () => {
  it('lands byte-exact under its name, reports acknowledged bytes up to the size, leaves no part file', async () => {
    const data = randomBytes(5 * 1024 * 1024 + 12_345);
    const seen: number[] = [];
    const r = await uploadToFolder(sftp, { folder: dir, name: 'data.bin', overwrite: false, source: chunks(data), onProgress: (b) => seen.push(b) });
    expect(r).toEqual({ path: `${dir}/data.bin`, bytes: data.length });
    expect(sha(fs.readFileSync(path.join(dir, 'data.bin')))).toBe(sha(data));
    expect(seen.at(-1)).toBe(data.length);
    expect(seen.every((b, i) => i === 0 || b > seen[i - 1])).toBe(true);
    expect(partsIn(dir)).toEqual([]);
  });

  it('an empty file and a name with spaces and quotes arrive as they are', async () => {
    await uploadToFolder(sftp, { folder: dir, name: "it's a file $(x).txt", overwrite: false, source: chunks(Buffer.alloc(0)) });
    expect(fs.statSync(path.join(dir, "it's a file $(x).txt")).size).toBe(0);
  });

  it('never replaces an existing file unless told to; told to, it does', async () => {
    fs.writeFileSync(path.join(dir, 'keep.txt'), 'original');
    fs.chownSync(path.join(dir, 'keep.txt'), fs.statSync(dir).uid, fs.statSync(dir).gid);
    expect(await codeOf(uploadToFolder(sftp, { folder: dir, name: 'keep.txt', overwrite: false, source: chunks(Buffer.from('new')) }))).toBe('FILE_EXISTS');
    expect(fs.readFileSync(path.join(dir, 'keep.txt'), 'utf8')).toBe('original');
    await uploadToFolder(sftp, { folder: dir, name: 'keep.txt', overwrite: true, source: chunks(Buffer.from('replaced')) });
    expect(fs.readFileSync(path.join(dir, 'keep.txt'), 'utf8')).toBe('replaced');
    expect(partsIn(dir)).toEqual([]);
  });

  it('a file that appears under the name while the upload runs is kept, and the upload says so', async () => {
    const data = randomBytes(3 * WRITE_CHUNK);
    let acked = 0;
    async function* source(): AsyncGenerator<Buffer> {
      yield data.subarray(0, WRITE_CHUNK);
      while (acked === 0) await new Promise((r) => setImmediate(r));
      // Someone else saves a file with that name meanwhile.
      await new Promise<void>((res, rej) => sftp.writeFile(`${dir}/race.txt`, 'theirs', (e) => (e ? rej(e) : res())));
      yield data.subarray(WRITE_CHUNK);
    }
    expect(await codeOf(uploadToFolder(sftp, { folder: dir, name: 'race.txt', overwrite: false, source: source(), onProgress: (b) => { acked = b; } }))).toBe('FILE_EXISTS');
    expect(fs.readFileSync(path.join(dir, 'race.txt'), 'utf8')).toBe('theirs');
    expect(partsIn(dir)).toEqual([]);
  });

  it('cancelled halfway: nothing under the final name and no part file left', async () => {
    const abort = new AbortController();
    let acked = 0;
    async function* endless(): AsyncGenerator<Buffer> {
      for (;;) {
        yield randomBytes(WRITE_CHUNK);
        // The user presses Cancel once the server has taken some of it.
        if (acked > 0) abort.abort();
        await new Promise((r) => setImmediate(r));
      }
    }
    expect(await codeOf(uploadToFolder(sftp, { folder: dir, name: 'cancelled.bin', overwrite: false, source: endless(), signal: abort.signal, onProgress: (b) => { acked = b; } }))).toBe('CANCELLED');
    expect(acked).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(dir, 'cancelled.bin'))).toBe(false);
    expect(partsIn(dir)).toEqual([]);
  });

  it('refuses names that are paths or not names, before touching the server', async () => {
    for (const name of ['../escape', 'a/b', '.', '..', '', 'bell\x07']) {
      expect(await codeOf(uploadToFolder(sftp, { folder: dir, name, overwrite: false, source: chunks(Buffer.from('x')) }))).toBe('BAD_ARGUMENT');
    }
    expect(fs.existsSync(path.join(bed.home, 'escape'))).toBe(false);
  });

  it('a folder the account may not write to fails with the folder named', async () => {
    const e = await uploadToFolder(sftp, { folder: '/root', name: 'x.txt', overwrite: false, source: chunks(Buffer.from('x')) }).catch((x: GpuDeskError) => x);
    expect(e).toBeInstanceOf(GpuDeskError);
    expect((e as GpuDeskError).message).toContain('/root');
  });
});

describe('folders', () => {
  it('the default upload folder is Desktop where it exists, else the home folder', async () => {
    // Shown with a folder of this run's own as "home": the shared bed home is not ours to change.
    const fakeHome = `${dir}/home`;
    await mkdir(fakeHome);
    const realpathFor = (s: SFTPWrapper): SFTPWrapper => Object.assign(Object.create(s) as SFTPWrapper, { realpath: (p: string, cb: (e: Error | undefined, r: string) => void) => (p === '.' ? cb(undefined, fakeHome) : s.realpath(p, cb)) });
    expect(await defaultUploadFolder(realpathFor(sftp))).toBe(fakeHome);
    await mkdir(`${fakeHome}/Desktop`);
    expect(await defaultUploadFolder(realpathFor(sftp))).toBe(`${fakeHome}/Desktop`);
    expect(await defaultUploadFolder(sftp)).toBe(fs.existsSync(path.join(bed.home, 'Desktop')) ? `${bed.home}/Desktop` : bed.home);
  });

  it('lists one folder: folders first, links as what they point to, sizes of files', async () => {
    const f = `${dir}/list`;
    await mkdir(f);
    await mkdir(`${f}/zdir`);
    await new Promise<void>((res, rej) => sftp.writeFile(`${f}/a.txt`, 'hello', (e) => (e ? rej(e) : res())));
    await symlink(`${f}/zdir`, `${f}/b-link`);
    const l = await listFolder(sftp, f);
    expect(l.path).toBe(f);
    expect(l.parent).toBe(dir);
    expect(l.entries.map((e) => [e.name, e.kind, e.size, e.link])).toEqual([
      ['b-link', 'dir', 0, true],
      ['zdir', 'dir', 0, false],
      ['a.txt', 'file', 5, false],
    ]);
    expect(await codeOf(listFolder(sftp, `${f}/a.txt`))).toBe('BAD_ARGUMENT');
    expect(await codeOf(listFolder(sftp, `${f}/missing`))).toBe('FILE_NOT_FOUND');
    expect(await codeOf(listFolder(sftp, 'relative'))).toBe('BAD_ARGUMENT');
  });
});

describe('download', () => {
  it('saves byte-exact into the chosen folder, never over a local file, with no part file left', async () => {
    const data = randomBytes(3 * 1024 * 1024 + 77);
    await uploadToFolder(sftp, { folder: dir, name: 'get.bin', overwrite: false, source: chunks(data) });
    const local = makeTempDir('gd-dl-');
    const first = await downloadToFolder(sftp, `${dir}/get.bin`, local);
    expect(first).toEqual({ file: path.join(local, 'get.bin'), bytes: data.length });
    expect(sha(fs.readFileSync(first.file))).toBe(sha(data));
    const second = await downloadToFolder(sftp, `${dir}/get.bin`, local);
    expect(second.file).toBe(path.join(local, 'get (1).bin'));
    expect(sha(fs.readFileSync(first.file))).toBe(sha(data));
    expect(fs.readdirSync(local).sort()).toEqual(['get (1).bin', 'get.bin']);
    expect(await codeOf(downloadToFolder(sftp, dir, local))).toBe('BAD_ARGUMENT');
  });
});

describe('a connection that drops mid-upload', () => {
  it('leaves no file under the final name, and the part file it could not remove is removed once connected again', async () => {
    // A server of its own: this test kills it.
    const own = await startSshd();
    let c = await connectSsh(bedOptions(own));
    let current = await c.sftp();
    const folder = path.posix.join(own.home, `gd-drop-${process.pid}-${randomBytes(3).toString('hex')}`);
    fs.mkdirSync(folder);
    const home = fs.statSync(own.home);
    fs.chownSync(folder, home.uid, home.gid);
    try {
      let acked = 0;
      const files = new FileTransfers({
        sftp: async () => current,
        scope: () => new ConnectionScope(),
        emit: (event, payload) => {
          if (event === 'files.progress') acked = (payload as { bytes: number }).bytes;
        },
      });
      const h = files.handlers();
      const size = 64 * 1024 * 1024;
      const t = await h['files.uploadStart']({ connectionId: 'c1', folder, name: 'model.ckpt', size, overwrite: false });
      const chunk = randomBytes(512 * 1024);
      let offset = 0;
      let failure: unknown = null;
      // Send until the server has some of it, then take the server away mid-transfer.
      while (acked === 0) {
        await h['files.uploadChunk']({ uploadId: t.uploadId, offset, data: chunk.toString('base64') });
        offset += chunk.length;
      }
      await own.kill();
      try {
        for (; offset < size; offset += chunk.length) await h['files.uploadChunk']({ uploadId: t.uploadId, offset, data: chunk.toString('base64') });
        await h['files.uploadFinish']({ uploadId: t.uploadId });
      } catch (e) {
        failure = e;
      }
      expect(failure, 'the upload reports the dropped connection').toBeInstanceOf(GpuDeskError);
      expect(fs.existsSync(path.join(folder, 'model.ckpt'))).toBe(false);
      expect(partsIn(folder), 'the dropped connection could not remove its part file').toHaveLength(1);

      await own.restart();
      c = await connectSsh(bedOptions(own));
      current = await c.sftp();
      const listed = await h['files.list']({ connectionId: 'c1', path: folder });
      expect(partsIn(folder)).toEqual([]);
      expect(listed.entries.map((e) => e.name)).toEqual([]);
    } finally {
      await c.close().catch(() => {});
      fs.rmSync(folder, { recursive: true, force: true });
    }
  }, 120_000);
});
