import fs from 'node:fs';

/** OpenSSH's MAX_KEY_FILE_SIZE (authfile.c): no private key file is larger. */
export const MAX_KEY_FILE_BYTES = 1024 * 1024;

/**
 * Reads a key file as ssh does (sshkey_load_file): a regular file of at most 1 MiB, else an error
 * naming why. Opened non-blocking and checked with fstat before any read, so /dev/zero, a FIFO or a
 * huge file never blocks or fills the main process. Errors keep the fs `code` ('ENOENT' …) or are
 * 'EKEYFILETYPE' / 'EKEYFILESIZE' with a one-line message.
 */
export function readKeyFile(file: string): Buffer {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOCTTY ?? 0));
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'EKEYFILETYPE' });
    if (st.size > MAX_KEY_FILE_BYTES) throw Object.assign(new Error(`larger than ${MAX_KEY_FILE_BYTES / 1024 / 1024} MiB, which no key file is`), { code: 'EKEYFILESIZE' });
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < buf.length) {
      const n = fs.readSync(fd, buf, off, buf.length - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf.subarray(0, off);
  } finally {
    fs.closeSync(fd);
  }
}
