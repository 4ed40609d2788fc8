import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { GpuDeskError } from '../errors';
import { checkFileName, partName } from './fileName';
import { channelOpen, closeFile, exists, isFile, openFile, renameNoClobber, renameReplacing, setMode, sftpError, stat, unlink } from './sftpOps';

/**
 * Bytes per WRITE and WRITEs in flight. On a long link only bytes in flight move data: 64 × 64 KiB
 * = 4 MiB keeps more than the server's channel window (OpenSSH: 2 MiB) outstanding, so the window,
 * not our request rate, is the limit — as for OpenSSH's own sftp (64 × 32 KiB).
 */
export const WRITE_CHUNK = 64 * 1024;
export const WRITES_IN_FLIGHT = 64;

/** Uploads are created readable by their owner only: a dropped file is not published to the server's other users. */
export const NEW_FILE_MODE = 0o600;

export interface UploadOptions {
  /** Absolute folder on the server. */
  folder: string;
  name: string;
  /** Replace an existing file of that name (the user said so). */
  overwrite: boolean;
  source: AsyncIterable<Buffer>;
  signal?: AbortSignal;
  /** Bytes the server has acknowledged so far. */
  onProgress?(bytes: number): void;
  /**
   * The part file's path, once it exists on the server. A dropped connection cannot remove it: the
   * caller removes it once it is connected again (see FileTransfers).
   */
  onPart?(partPath: string): void;
}

export interface UploadResult {
  path: string;
  bytes: number;
}

export function fileExistsError(name: string, folder: string): GpuDeskError {
  return new GpuDeskError('FILE_EXISTS', `${name} already exists in ${folder} on the server`, 'choose Replace to overwrite it, or rename the file before uploading');
}

function cancelled(name: string): GpuDeskError {
  return new GpuDeskError('CANCELLED', `The upload of ${name} was cancelled`, 'nothing was left on the server; drop the file again to upload it');
}

/**
 * Writes `source` to folder/name over SFTP. The bytes go to a hidden part file first and are
 * renamed into place only when complete, so a cancelled or broken upload never leaves a partial
 * file under the final name; without `overwrite` an existing file is never replaced, even one
 * created while the upload ran (the rename refuses then).
 */
export async function uploadToFolder(sftp: SFTPWrapper, o: UploadOptions): Promise<UploadResult> {
  const name = checkFileName(o.name);
  const finalPath = path.posix.join(o.folder, name);
  // A replaced file keeps its permissions (as sftp's put keeps a mode); a new one is the owner's only.
  const replaced = await stat(sftp, finalPath).then((a) => a, (e: unknown) => {
    if (e instanceof GpuDeskError && e.code === 'FILE_NOT_FOUND') return null;
    throw e;
  });
  if (!o.overwrite && replaced) throw fileExistsError(name, o.folder);
  const mode = replaced && isFile(replaced) ? replaced.mode & 0o7777 : NEW_FILE_MODE;
  if (o.signal?.aborted) throw cancelled(name);
  const part = path.posix.join(o.folder, partName(name, randomBytes(4).toString('hex')));
  const handle = await openFile(sftp, part, 'wx', NEW_FILE_MODE);
  o.onPart?.(part);
  let open = true;
  try {
    const bytes = await writePipelined(sftp, handle, part, o.source, o.signal, o.onProgress, () => cancelled(name));
    // fchmod: exact, whatever the server's umask did to the mode given at open.
    if (mode !== NEW_FILE_MODE) await setMode(sftp, handle, part, mode);
    open = false;
    await closeFile(sftp, handle, part);
    if (o.signal?.aborted) throw cancelled(name);
    if (o.overwrite) await renameReplacing(sftp, part, finalPath);
    else {
      try {
        await renameNoClobber(sftp, part, finalPath);
      } catch (e) {
        if (await exists(sftp, finalPath).catch(() => false)) throw fileExistsError(name, o.folder);
        throw e;
      }
    }
    return { path: finalPath, bytes };
  } catch (e) {
    // Over a dropped connection the part stays; the caller removes it once connected again.
    if (channelOpen(sftp)) {
      if (open) await closeFile(sftp, handle, part).catch(() => {});
      await unlink(sftp, part).catch(() => {});
    }
    throw e;
  }
}

async function writePipelined(
  sftp: SFTPWrapper,
  handle: Buffer,
  part: string,
  source: AsyncIterable<Buffer>,
  signal: AbortSignal | undefined,
  onProgress: ((bytes: number) => void) | undefined,
  cancelledError: () => GpuDeskError,
): Promise<number> {
  let offset = 0;
  let acked = 0;
  let inFlight = 0;
  let failed: unknown = null;
  let wake: (() => void) | null = null;
  const poke = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const settle = () => new Promise<void>((r) => { wake = r; });
  const onAbort = () => poke();
  signal?.addEventListener('abort', onAbort);
  try {
    for await (const chunk of rechunk(source, WRITE_CHUNK)) {
      while (inFlight >= WRITES_IN_FLIGHT && !failed && !signal?.aborted) await settle();
      if (failed) throw failed;
      if (signal?.aborted) throw cancelledError();
      const at = offset;
      offset += chunk.length;
      inFlight++;
      sftp.write(handle, chunk, 0, chunk.length, at, (err) => {
        inFlight--;
        if (err) failed ??= sftpError(err, 'writing', part);
        else {
          acked += chunk.length;
          onProgress?.(acked);
        }
        poke();
      });
    }
    while (inFlight > 0 && !failed && !signal?.aborted) await settle();
    if (failed) throw failed;
    if (signal?.aborted) throw cancelledError();
    return acked;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
}

/** Re-slices any stream of buffers into chunks of exactly `size` bytes (the last may be shorter). */
export async function* rechunk(source: AsyncIterable<Buffer>, size: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let have = 0;
  for await (const b of source) {
    let off = 0;
    if (have > 0) {
      const take = b.subarray(0, size - have);
      pending.push(take);
      have += take.length;
      off = take.length;
      if (have < size) continue;
      yield Buffer.concat(pending, size);
      pending = [];
      have = 0;
    }
    for (; b.length - off >= size; off += size) yield b.subarray(off, off + size);
    if (off < b.length) {
      pending.push(b.subarray(off));
      have = b.length - off;
    }
  }
  if (have > 0) yield Buffer.concat(pending, have);
}

/** A local file as an upload source (the CLI and the benchmark; the window sends chunks instead). */
export function localFileSource(file: string): AsyncIterable<Buffer> {
  return fs.createReadStream(file, { highWaterMark: WRITE_CHUNK });
}
