import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { GpuDeskError } from '../errors';
import { checkFileName } from './fileName';
import { isFile, sftpError, stat } from './sftpOps';

export interface DownloadResult {
  /** Where the file was saved on this computer. */
  file: string;
  bytes: number;
}

/**
 * Copies one remote file into a local folder: to a hidden part file first (parallel reads, as
 * OpenSSH's sftp does), then linked in under the file's name — or "name (1)", "name (2)"… when that
 * exists: a download never replaces a local file.
 */
export async function downloadToFolder(sftp: SFTPWrapper, remotePath: string, localFolder: string, onProgress?: (bytes: number, total: number) => void): Promise<DownloadResult> {
  const a = await stat(sftp, remotePath);
  if (!isFile(a)) throw new GpuDeskError('BAD_ARGUMENT', `${remotePath} is not a regular file`, 'open folders in the browser; download the files inside them');
  const name = checkFileName(path.posix.basename(remotePath), 'download');
  const part = path.join(localFolder, `.${name}.${randomBytes(4).toString('hex')}.gpu-desk-part`);
  try {
    await new Promise<void>((resolve, reject) =>
      sftp.fastGet(remotePath, part, { concurrency: 64, chunkSize: 64 * 1024, step: (done, _chunk, total) => onProgress?.(done, total) }, (err) =>
        err ? reject(sftpError(err, 'reading', remotePath)) : resolve(),
      ),
    );
    const file = linkUnique(part, localFolder, name);
    return { file, bytes: fs.statSync(file).size };
  } finally {
    fs.rmSync(part, { force: true });
  }
}

function linkUnique(part: string, folder: string, name: string): string {
  const ext = path.extname(name);
  const stem = ext ? name.slice(0, -ext.length) : name;
  for (let n = 0; n < 1000; n++) {
    const target = path.join(folder, n === 0 ? name : `${stem} (${n})${ext}`);
    try {
      // link(2) fails when the name exists: no check-then-write race with another program.
      fs.linkSync(part, target);
      return target;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new GpuDeskError('BAD_ARGUMENT', `Cannot save ${name} in ${folder} (${(e as NodeJS.ErrnoException).code})`, 'choose a folder you can write to');
      }
    }
  }
  throw new GpuDeskError('BAD_ARGUMENT', `${folder} already has 1000 copies of ${name}`, 'choose another folder');
}
