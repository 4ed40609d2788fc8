/**
 * The service behind the tunnel, in its own process so it never shares an event loop with the
 * tunnel under test. Each connection sends one command byte:
 *   'S' + uint64 length → that many bytes (a fixed pseudo-random pattern), then end;
 *   'E' → echo everything back.
 * Reports { port } to the parent over IPC.
 */
import net from 'node:net';
import { randomBytes } from 'node:crypto';

const pattern = randomBytes(1 << 20);

const server = net.createServer({ noDelay: true }, (sock) => {
  let head = Buffer.alloc(0);
  const onHead = (d: Buffer) => {
    head = Buffer.concat([head, d]);
    if (head[0] === 0x45 /* E */) {
      sock.off('data', onHead);
      sock.on('data', (x: Buffer) => sock.write(x));
      if (head.length > 1) sock.write(head.subarray(1));
      return;
    }
    if (head.length < 9) return;
    sock.off('data', onHead);
    send(sock, Number(head.readBigUInt64BE(1)));
  };
  sock.on('data', onHead);
  sock.on('error', () => sock.destroy());
});

function send(sock: net.Socket, total: number): void {
  let left = total;
  const more = () => {
    while (left > 0) {
      const n = Math.min(left, pattern.length);
      left -= n;
      if (!sock.write(n === pattern.length ? pattern : pattern.subarray(0, n))) {
        sock.once('drain', more);
        return;
      }
    }
    sock.end();
  };
  more();
}

server.listen(0, '127.0.0.1', () => {
  process.send?.({ port: (server.address() as net.AddressInfo).port });
});
process.on('disconnect', () => process.exit(0));
