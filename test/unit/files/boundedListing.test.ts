import type { SFTPWrapper } from 'ssh2';
import { describe, expect, it } from 'vitest';
import { listFolder, MAX_LIST_ENTRIES } from '../../../src/core/files/folders';

/**
 * Issue 34, low 6: a hostile server's READDIR that never ends (or never answers) must not hang
 * files.list nor grow memory without bound: entries and time are capped, and the folder says
 * "truncated". The fake speaks ssh2's SFTPWrapper API; its readdir(path) reads until EOF as ssh2's does.
 */
type Cb<T> = (err: (Error & { code?: number }) | undefined, v?: T) => void;
const DIR_MODE = 0o040755;
const FILE_MODE = 0o100644;

function hostileSftp(behaviour: 'endless' | 'silent' | 'finite'): { sftp: SFTPWrapper; requests: () => number; closed: () => number } {
  let n = 0;
  let reqs = 0;
  let closes = 0;
  const attrs = (mode: number) => ({ mode, uid: 0, gid: 0, size: 1, atime: 0, mtime: 0 });
  const batch = () => Array.from({ length: 100 }, () => ({ filename: `f${n}`, longname: `f${n++}`, attrs: attrs(FILE_MODE) }));
  const fake = {
    realpath: (p: string, cb: Cb<string>) => setImmediate(() => cb(undefined, p)),
    stat: (_p: string, cb: Cb<object>) => setImmediate(() => cb(undefined, attrs(DIR_MODE))),
    opendir: (_p: string, cb: Cb<Buffer>) => setImmediate(() => cb(undefined, Buffer.from('h'))),
    close: (_h: Buffer, cb: (e?: Error) => void) => {
      closes++;
      setImmediate(() => cb());
    },
    readdir(where: string | Buffer, cb: Cb<unknown[]>) {
      if (typeof where === 'string') {
        // ssh2's own readdir(path): every batch until EOF.
        const all: unknown[] = [];
        const again = () => fake.readdir(Buffer.from('h'), (err, list) => {
          if (err) return cb(err.code === 1 ? undefined : err, all);
          all.push(...(list ?? []));
          again();
        });
        return fake.opendir(where, () => again());
      }
      reqs++;
      if (behaviour === 'silent') return; // never answered
      // "Endless" stops at 50 000 (far past the cap) so that a listing without a cap fails the test instead of the machine.
      if ((behaviour === 'finite' && n >= 300) || n >= 50_000) return setImmediate(() => cb(Object.assign(new Error('EOF'), { code: 1 })));
      setImmediate(() => cb(undefined, batch()));
    },
  };
  return { sftp: fake as unknown as SFTPWrapper, requests: () => reqs, closed: () => closes };
}

describe('bounded folder listing (issue 34 low 6)', () => {
  it('a READDIR that never ends: the first MAX_LIST_ENTRIES entries, truncated, the handle closed', { timeout: 10_000 }, async () => {
    const h = hostileSftp('endless');
    const f = await listFolder(h.sftp, '/hostile');
    expect(f.entries).toHaveLength(MAX_LIST_ENTRIES);
    expect(f.truncated).toBe(true);
    expect(h.requests()).toBeLessThanOrEqual(MAX_LIST_ENTRIES / 100 + 1);
    expect(h.closed()).toBe(1);
  });

  it('a READDIR that is never answered: what came so far after the time limit, truncated', { timeout: 10_000 }, async () => {
    const t0 = Date.now();
    const f = await listFolder(hostileSftp('silent').sftp, '/stalled', { maxEntries: MAX_LIST_ENTRIES, maxMs: 300 });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(f).toMatchObject({ path: '/stalled', entries: [], truncated: true });
  });

  it('an ordinary folder is listed whole, not truncated', async () => {
    const f = await listFolder(hostileSftp('finite').sftp, '/ok');
    expect(f.entries).toHaveLength(300);
    expect(f.truncated).toBeUndefined();
  });
});
