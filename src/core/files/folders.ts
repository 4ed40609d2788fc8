import path from 'node:path';
import type { Attributes, SFTPWrapper } from 'ssh2';
import { GpuDeskError } from '../errors';
import { isDir, isFile, isLink, readdir, realpath, stat } from './sftpOps';

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
}

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
export async function listFolder(sftp: SFTPWrapper, folder: string): Promise<RemoteFolder> {
  if (!folder.startsWith('/')) throw new GpuDeskError('BAD_ARGUMENT', `"${folder}" is not an absolute path`, 'open folders from the file browser, which starts at your home folder');
  const abs = await realpath(sftp, folder);
  const here = await stat(sftp, abs);
  if (!isDir(here)) throw new GpuDeskError('BAD_ARGUMENT', `${abs} is not a folder`, 'pick a folder to open; files are downloaded instead');
  const raw = (await readdir(sftp, abs)).filter((e) => e.filename !== '.' && e.filename !== '..');
  const entries = await Promise.all(
    raw.map(async (e): Promise<RemoteEntry> => {
      let a: Attributes = e.attrs;
      const link = isLink(a);
      if (link) a = await stat(sftp, path.posix.join(abs, e.filename)).catch(() => a);
      const kind = isDir(a) ? 'dir' : isFile(a) ? 'file' : 'other';
      return { name: e.filename, kind, size: kind === 'file' ? a.size : 0, mtime: a.mtime, link };
    }),
  );
  entries.sort((x, y) => (x.kind === 'dir') !== (y.kind === 'dir') ? (x.kind === 'dir' ? -1 : 1) : x.name < y.name ? -1 : x.name > y.name ? 1 : 0);
  return { path: abs, parent: abs === '/' ? null : path.posix.dirname(abs), entries };
}
