import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';

/**
 * The "server side" of a long-link test: each connection sends an 8-byte big-endian length, then
 * receives that many bytes of a random pattern whose period (1 MiB + 7) is not a multiple of any
 * packet or chunk size, so reordered or repeated packets change the hash.
 */
export interface PatternService {
  port: number;
  /** Bytes handed to the kernel so far, all connections. */
  readonly sent: number;
  /** One entry per finished connection: what it sent. */
  done: { bytes: number; sha256: string }[];
  close(): void;
}

export const PERIOD = 1024 * 1024 + 7;
const pattern = randomBytes(PERIOD);

/** SHA-256 of the first `bytes` of the pattern stream, computed independently of any socket. */
export function expectedSha256(bytes: number): string {
  const h = createHash('sha256');
  for (let off = 0; off < bytes; off += PERIOD) h.update(pattern.subarray(0, Math.min(PERIOD, bytes - off)));
  return h.digest('hex');
}

export function startPatternService(): Promise<PatternService> {
  const svc = { port: 0, sent: 0, done: [] as { bytes: number; sha256: string }[], close: () => {} };
  const server = net.createServer((sock) => {
    sock.on('error', () => sock.destroy());
    let head = Buffer.alloc(0);
    const onHead = (d: Buffer) => {
      head = Buffer.concat([head, d]);
      if (head.length < 8) return;
      sock.off('data', onHead);
      send(sock, Number(head.readBigUInt64BE(0)));
    };
    sock.on('data', onHead);
  });
  const send = (sock: net.Socket, total: number) => {
    const h = createHash('sha256');
    let off = 0;
    let left = total;
    const more = () => {
      while (left > 0 && !sock.destroyed) {
        const n = Math.min(left, PERIOD - off, 256 * 1024);
        const chunk = pattern.subarray(off, off + n);
        h.update(chunk);
        off = (off + n) % PERIOD;
        left -= n;
        svc.sent += n;
        if (!sock.write(chunk)) return void sock.once('drain', more);
      }
      if (left === 0) {
        svc.done.push({ bytes: total, sha256: h.digest('hex') });
        sock.end();
      }
    };
    more();
  };
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      svc.port = (server.address() as net.AddressInfo).port;
      svc.close = () => server.close();
      resolve(svc);
    });
  });
}

export function request(sock: net.Socket, bytes: number): void {
  const head = Buffer.alloc(8);
  head.writeBigUInt64BE(BigInt(bytes));
  sock.write(head);
}

/**
 * Connects to a local port, asks for `bytes`, and hashes what arrives until the end; with `stall`,
 * stops reading for `stall.ms` after every `stall.every` bytes (the tunnel's queue fills meanwhile).
 */
export function fetchAndHash(port: number, bytes: number, stall?: { every: number; ms: number }): Promise<{ bytes: number; sha256: string }> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    let got = 0;
    const s = net.connect({ host: '127.0.0.1', port }, () => request(s, bytes));
    s.on('data', (d: Buffer) => {
      if (stall && Math.floor(got / stall.every) !== Math.floor((got + d.length) / stall.every)) {
        s.pause();
        setTimeout(() => s.resume(), stall.ms);
      }
      got += d.length;
      h.update(d);
    });
    s.once('error', reject);
    s.once('end', () => {
      s.destroy();
      resolve({ bytes: got, sha256: h.digest('hex') });
    });
  });
}
