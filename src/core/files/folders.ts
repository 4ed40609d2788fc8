import path from 'node:path';
import type { Attributes, FileEntryWithStats, SFTPWrapper } from 'ssh2';
import { GpuDeskError } from '../errors';
import { closeFile, isDir, isFile, isLink, opendir, readdirBatch, realpath, stat } from './sftpOps';

export interface RemoteEntry {
  name: string;
  kind: 'dir' | 'file' | 'other';
  /** Bytes (files), else 0. */
  size: number;
  /** Seconds since the epoch. */
  mtime: number;
  /** A symbolic link (kind is what it points to; 'other' when it dangles). */
  link: boolean;
}

export interface RemoteFolder {
  path: string;
  /** null at /. */
  parent: string | null;
  entries: RemoteEntry[];
  /** Set when the folder had more entries than MAX_LIST_ENTRIES, or the server took longer than MAX_LIST_MS to list it. */
  truncated?: boolean;
}

/** What one listing holds at most, and how long the server may take: a READDIR that never ends must not hang or fill memory. */
export const MAX_LIST_ENTRIES = 10_000;
export const MAX_LIST_MS = 20_000;

/** SFTP starts in the login's home folder, so "." resolves to it without asking a shell. */
export const homeFolder = (sftp: SFTPWrapper) => realpath(sftp, '.');

/** Where drops go unless the user picked a folder: ~/Desktop where it exists, else ~. */
export async function defaultUploadFolder(sftp: SFTPWrapper): Promise<string> {
  const home = await homeFolder(sftp);
  const desktop = path.posix.join(home, 'Desktop');
  try {
    if (isDir(await stat(sftp, desktop))) return desktop;
  } catch {
    // No Desktop folder (a server without a desktop session yet): the home folder it is.
  }
  return home;
}

/** One folder, folders first, then by name; symbolic links shown as what they point to. */
export interface ListLimits {
  maxEntries: number;
  maxMs: number;
}

export async function listFolder(sftp: SFTPWrapper, folder: string, limits: ListLimits = { maxEntries: MAX_LIST_ENTRIES, maxMs: MAX_LIST_MS }): Promise<RemoteFolder> {
  if (!folder.startsWith('/')) throw new GpuDeskError('BAD_ARGUMENT', `"${folder}" is not an absolute path`, 'open folders from the file browser, which starts at your home folder');
  const abs = await realpath(sftp, folder);
  const here = await stat(sftp, abs);
  if (!isDir(here)) throw new GpuDeskError('BAD_ARGUMENT', `${abs} is not a folder`, 'pick a folder to open; files are downloaded instead');
  const deadline = Date.now() + limits.maxMs;
  const { list, truncated } = await boundedReaddir(sftp, abs, limits, deadline);
  const raw = list.filter((e) => e.filename !== '.' && e.filename !== '..');
  // Links are followed within the same time limit; one the server does not answer in time shows as a link to "other".
  const linkTimer = (ms: number) => new Promise<null>((resolve) => setTimeout(() => resolve(null), Math.max(0, ms)).unref());
  const entries = await Promise.all(
    raw.map(async (e): Promise<RemoteEntry> => {
      let a: Attributes = e.attrs;
      const link = isLink(a);
      if (link) a = (await Promise.race([stat(sftp, path.posix.join(abs, e.filename)).catch(() => null), linkTimer(deadline - Date.now())])) ?? a;
      const kind = isDir(a) ? 'dir' : isFile(a) ? 'file' : 'other';
      return { name: e.filename, kind, size: kind === 'file' ? a.size : 0, mtime: a.mtime, link };
    }),
  );
  entries.sort((x, y) => (x.kind === 'dir') !== (y.kind === 'dir') ? (x.kind === 'dir' ? -1 : 1) : x.name < y.name ? -1 : x.name > y.name ? 1 : 0);
  return { path: abs, parent: abs === '/' ? null : path.posix.dirname(abs), entries, ...(truncated ? { truncated } : {}) };
}

/**
 * READDIR batch by batch (ssh2's readdir(path) reads until EOF, however long the server goes on):
 * stops at `maxEntries` or after `maxMs`, closing the handle without waiting for it.
 */
async function boundedReaddir(sftp: SFTPWrapper, abs: string, limits: ListLimits, deadline: number): Promise<{ list: FileEntryWithStats[]; truncated: boolean }> {
  const handle = await opendir(sftp, abs);
  const list: FileEntryWithStats[] = [];
  let truncated = false;
  let timer: NodeJS.Timeout | undefined;
  try {
    for (;;) {
      const left = deadline - Date.now();
      const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), Math.max(0, left))));
      const batch = await Promise.race([readdirBatch(sftp, handle, abs), timedOut]);
      clearTimeout(timer);
      if (batch === null) break;
      if (batch === 'timeout') {
        truncated = true;
        break;
      }
      for (const e of batch) {
        if (list.length >= limits.maxEntries) {
          truncated = true;
          break;
        }
        list.push(e);
      }
      if (truncated) break;
    }
  } finally {
    clearTimeout(timer);
    // A server that stalls may never answer CLOSE either: do not wait for it.
    void closeFile(sftp, handle, abs).catch(() => {});
  }
  return { list, truncated };
}
