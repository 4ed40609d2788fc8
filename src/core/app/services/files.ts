import { randomBytes } from 'node:crypto';
import type { SFTPWrapper } from 'ssh2';
import { GpuDeskError } from '../../errors';
import { ChunkQueue, checkFileName, defaultUploadFolder, downloadToFolder, fileExistsError, listFolder, remoteExists, uploadToFolder } from '../../files';
import { channelOpen, unlink } from '../../files/sftpOps';
import type { Emit, HandlersOf, ParsedInput } from '../../../shared/contract';
import type { UploadTicket } from '../../../shared/models';
import path from 'node:path';
import type { ConnectionScope } from '../connectionScope';

interface Upload {
  connectionId: string;
  total: number;
  /** Bytes received from the window so far (chunks must come in order). */
  received: number;
  queue: ChunkQueue;
  abort: AbortController;
  done: Promise<{ path: string; bytes: number }>;
  /** Takes the upload out of its connection's scope once it finished or was cancelled. */
  unscope: () => void;
}

export interface FileTransferDeps {
  /** The connection's SFTP session (opened once, again after a reconnect). */
  sftp(connectionId: string): Promise<SFTPWrapper>;
  /** The connection's scope: its uploads are cancelled with it. */
  scope(connectionId: string): ConnectionScope;
  emit: Emit;
  /** A folder on this computer to save into (a native dialog in the app); null: the user cancelled. */
  chooseSaveFolder?(): Promise<string | null>;
}

const PROGRESS_EVERY_MS = 150;

/** The contract's files.* methods: uploads fed chunk by chunk from the window, listings, downloads. */
export class FileTransfers {
  private readonly uploads = new Map<string, Upload>();
  /**
   * Part files of failed uploads, by connection, that may still be on the server: a connection that
   * dropped mid-upload could not remove them. Removed the next time that connection's SFTP is used.
   */
  private readonly leftParts = new Map<string, Set<string>>();

  constructor(private readonly deps: FileTransferDeps) {}

  /** The connection's SFTP session, with any part file an earlier failed upload left there removed first. */
  private async sftp(connectionId: string): Promise<SFTPWrapper> {
    const sftp = await this.deps.sftp(connectionId);
    const left = this.leftParts.get(connectionId);
    if (!left || !channelOpen(sftp)) return sftp;
    for (const part of [...left]) {
      try {
        await unlink(sftp, part);
        left.delete(part);
      } catch (e) {
        // Already gone (its own clean-up got there): forget it; anything else is retried next time.
        if ((e as GpuDeskError).code === 'FILE_NOT_FOUND') left.delete(part);
      }
    }
    if (left.size === 0) this.leftParts.delete(connectionId);
    return sftp;
  }

  handlers(): HandlersOf<'files'> {
    return {
      'files.list': async ({ connectionId, path: p }) => {
        const sftp = await this.sftp(connectionId);
        return listFolder(sftp, p ?? (await defaultUploadFolder(sftp)));
      },
      'files.uploadStart': (i) => this.start(i),
      'files.uploadChunk': async ({ uploadId, offset, data }) => {
        const u = this.upload(uploadId);
        if (offset !== u.received) throw new GpuDeskError('BAD_ARGUMENT', `Upload chunk at byte ${offset}, expected ${u.received}`, 'send the chunks in order, one at a time');
        const b = Buffer.from(data, 'base64');
        if (u.received + b.length > u.total) throw new GpuDeskError('BAD_ARGUMENT', `Upload is longer than the ${u.total} bytes announced`, 'start it again with the file\'s real size');
        u.received += b.length;
        await u.queue.push(b);
      },
      'files.uploadFinish': async ({ uploadId }) => {
        const u = this.upload(uploadId);
        if (u.received !== u.total) throw new GpuDeskError('BAD_ARGUMENT', `Upload ended after ${u.received} of ${u.total} bytes`, 'send the whole file, or cancel the upload');
        u.queue.end();
        try {
          return await u.done;
        } finally {
          this.uploads.delete(uploadId);
          u.unscope();
        }
      },
      'files.uploadCancel': ({ uploadId }) => this.cancel(uploadId),
      'files.download': async ({ connectionId, path: remote }) => {
        if (!this.deps.chooseSaveFolder) throw new GpuDeskError('BAD_ARGUMENT', 'Saving files is not available here', 'use the desktop app');
        const sftp = await this.sftp(connectionId);
        const folder = await this.deps.chooseSaveFolder();
        if (!folder) return null;
        return downloadToFolder(sftp, remote, folder);
      },
    };
  }

  private async cancel(uploadId: string): Promise<void> {
    const u = this.uploads.get(uploadId);
    if (!u) return;
    u.unscope();
    u.abort.abort();
    u.queue.fail(new GpuDeskError('CANCELLED', 'The upload was cancelled', 'drop the file again to upload it'));
    // Resolves once the part file is gone from the server.
    await u.done.catch(() => {});
    this.uploads.delete(uploadId);
  }

  private upload(uploadId: string): Upload {
    const u = this.uploads.get(uploadId);
    if (!u) throw new GpuDeskError('BAD_ARGUMENT', 'That upload is no longer running', 'drop the file again');
    return u;
  }

  private async start({ connectionId, folder, name, size, overwrite }: ParsedInput<'files.uploadStart'>): Promise<UploadTicket> {
    checkFileName(name);
    const sftp = await this.sftp(connectionId);
    const dir = folder ?? (await defaultUploadFolder(sftp));
    // Asked before any byte moves, so the window can ask the user first; the rename checks again.
    if (!overwrite && (await remoteExists(sftp, path.posix.join(dir, name)))) throw fileExistsError(name, dir);
    const uploadId = `u${randomBytes(6).toString('hex')}`;
    const queue = new ChunkQueue();
    const abort = new AbortController();
    let last = 0;
    let part: string | null = null;
    const done = uploadToFolder(sftp, {
      folder: dir,
      name,
      overwrite,
      source: queue,
      signal: abort.signal,
      onProgress: (bytes) => {
        const now = Date.now();
        if (bytes < size && now - last < PROGRESS_EVERY_MS) return;
        last = now;
        this.deps.emit('files.progress', { uploadId, bytes, total: size });
      },
      onPart: (p) => { part = p; },
    });
    done.catch((e: Error) => {
      // A failure on the server's side stops the window's next chunk with the same error.
      queue.fail(e);
      if (part) {
        const left = this.leftParts.get(connectionId) ?? new Set<string>();
        left.add(part);
        this.leftParts.set(connectionId, left);
        // Only this connection's next SFTP use removes them: a closed one has none.
        this.deps.scope(connectionId).once('upload part files', () => void this.leftParts.delete(connectionId));
      }
    });
    const u: Upload = { connectionId, total: size, received: 0, queue, abort, done, unscope: () => {} };
    this.uploads.set(uploadId, u);
    u.unscope = this.deps.scope(connectionId).add(() => this.cancel(uploadId));
    if (size === 0) this.deps.emit('files.progress', { uploadId, bytes: 0, total: 0 });
    return { uploadId, folder: dir, path: path.posix.join(dir, name) };
  }
}
