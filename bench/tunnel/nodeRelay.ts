/**
 * The bench's floor reference: a plain TCP relay in Node built from the tunnel's own socket layer
 * (lean reads of the accepted socket, direct writes; src/core/net/leanSocket.ts) with no SSH at all.
 * What it costs over the C relay (cRelay.c) is what any Node process on the path costs.
 * argv[2]: JSON { targetPort }. Reports { port } over IPC.
 */
import net from 'node:net';
import { adoptAccepted, socketWriter } from '../../src/core/net/leanSocket';

const { targetPort } = JSON.parse(process.argv[2]) as { targetPort: number };

const server = net.createServer({ noDelay: true, pauseOnConnect: true }, (accepted) => {
  const { socket: local, onData } = adoptAccepted(accepted, { allowHalfOpen: false });
  local.setNoDelay(true);
  // Both reads land in reused buffers that the next read overwrites, and a write the kernel could
  // not take at once is kept by libuv: each chunk is copied (the tunnel copies it into a packet).
  const down = socketWriter(local);
  const upstream = net.connect({
    host: '127.0.0.1',
    port: targetPort,
    noDelay: true,
    onread: {
      buffer: Buffer.allocUnsafe(64 * 1024),
      callback: (n: number, buf: Uint8Array) => {
        down.write(Buffer.from(buf.subarray(0, n)));
        return true;
      },
    },
  });
  const up = socketWriter(upstream);
  onData((d) => up.write(Buffer.from(d)));
  upstream.once('connect', () => local.resume());
  const close = () => {
    local.destroy();
    upstream.destroy();
  };
  local.on('close', close);
  upstream.on('close', close);
  local.on('error', close);
  upstream.on('error', close);
});

server.listen(0, '127.0.0.1', () => process.send?.({ port: (server.address() as net.AddressInfo).port }));
process.on('disconnect', () => process.exit(0));
