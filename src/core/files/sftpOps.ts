import type { Attributes, FileEntryWithStats, SFTPWrapper } from 'ssh2';
import { GpuDeskError } from '../errors';

/** SFTP status codes (draft-ietf-secsh-filexfer-02 §7) that change what we tell the user. */
const EOF = 1;
const NO_SUCH_FILE = 2;
const PERMISSION_DENIED = 3;

type SftpError = Error & { code?: number };

/** One line naming the path and why, with what to do; the server's own words only as the reason. */
export function sftpError(e: unknown, what: string, path: string): GpuDeskError {
  if (e instanceof GpuDeskError) return e;
  const err = e as SftpError;
  if (err.code === NO_SUCH_FILE) return new GpuDeskError('FILE_NOT_FOUND', `${path} does not exist on the server`, 'reload the folder and pick another');
  if (err.code === PERMISSION_DENIED) return new GpuDeskError('SFTP_FAILED', `Permission denied ${what} ${path} on the server`, 'pick a folder your account may write to (e.g. your home folder)');
  return new GpuDeskError('SFTP_FAILED', `The server failed ${what} ${path} (${err.message || 'SFTP error'})`, 'check the path and the free space on the server, then try again');
}

const call = <T>(what: string, path: string, run: (cb: (err: Error | null | undefined, v: T) => void) => void): Promise<T> =>
  new Promise((resolve, reject) => run((err, v) => (err ? reject(sftpError(err, what, path)) : resolve(v))));

export const stat = (s: SFTPWrapper, p: string) => call<Attributes>('reading', p, (cb) => s.stat(p, cb));
export const realpath = (s: SFTPWrapper, p: string) => call<string>('resolving', p, (cb) => s.realpath(p, cb));
export const opendir = (s: SFTPWrapper, p: string) => call<Buffer>('opening', p, (cb) => s.opendir(p, cb));

/** One READDIR batch on an open folder handle; null at its end (SSH_FX_EOF). */
export function readdirBatch(s: SFTPWrapper, h: Buffer, p: string): Promise<FileEntryWithStats[] | null> {
  return new Promise((resolve, reject) =>
    s.readdir(h, (err, list) => {
      if (err && (err as SftpError).code === EOF) resolve(null);
      else if (err) reject(sftpError(err, 'listing', p));
      else resolve(list);
    }));
}
export const openFile = (s: SFTPWrapper, p: string, flags: 'wx' | 'r', mode: number) => call<Buffer>('creating', p, (cb) => s.open(p, flags, { mode }, cb));
export const setMode = (s: SFTPWrapper, h: Buffer, p: string, mode: number) => call<void>('setting the permissions of', p, (cb) => s.fchmod(h, mode, (e) => cb(e, undefined)));
export const closeFile = (s: SFTPWrapper, h: Buffer, p: string) => call<void>('closing', p, (cb) => s.close(h, (e) => cb(e, undefined)));
export const unlink = (s: SFTPWrapper, p: string) => call<void>('removing', p, (cb) => s.unlink(p, (e) => cb(e, undefined)));

/** Plain SFTP rename: OpenSSH's server refuses it when the target exists (link(2)), which is the no-clobber we want. */
export const renameNoClobber = (s: SFTPWrapper, from: string, to: string) => call<void>('renaming to', to, (cb) => s.rename(from, to, (e) => cb(e, undefined)));

/** Replaces `to` in one step where the server has posix-rename@openssh.com, else remove then rename. */
export async function renameReplacing(s: SFTPWrapper, from: string, to: string): Promise<void> {
  try {
    await call<void>('renaming to', to, (cb) => s.ext_openssh_rename(from, to, (e) => cb(e, undefined)));
    return;
  } catch (e) {
    // ssh2 throws (synchronously) "Server does not support this extended request" without it.
    if (!/does not support/i.test((e as Error).message)) throw e;
  }
  await unlink(s, to).catch(() => {});
  await renameNoClobber(s, from, to);
}

export async function exists(s: SFTPWrapper, p: string): Promise<boolean> {
  try {
    await stat(s, p);
    return true;
  } catch (e) {
    if (e instanceof GpuDeskError && e.code === 'FILE_NOT_FOUND') return false;
    throw e;
  }
}

const S_IFMT = 0o170000;
export const isDir = (a: Attributes) => (a.mode & S_IFMT) === 0o040000;
export const isFile = (a: Attributes) => (a.mode & S_IFMT) === 0o100000;
export const isLink = (a: Attributes) => (a.mode & S_IFMT) === 0o120000;

/**
 * Whether the SFTP channel can still answer. ssh2 fails the requests in flight when the channel
 * closes, but a request made after that is never answered: clean-up must not wait on one.
 */
export const channelOpen = (s: SFTPWrapper) => (s as unknown as { readable?: boolean }).readable !== false;
