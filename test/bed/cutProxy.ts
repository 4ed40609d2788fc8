import net from 'node:net';
import { registerCleanup } from './util';

export interface CutProxy {
  /** Port on 127.0.0.1 that forwards to the target. */
  port: number;
  /** Bytes passed from the client to the target so far (all connections). */
  readonly upBytes: number;
  /** Bytes passed from the target to the client so far. */
  readonly downBytes: number;
  /** Whether the cut has happened. */
  readonly cut: boolean;
  stop(): Promise<void>;
}

/**
 * A TCP forwarder from a 127.0.0.1 port to `host:port` that cuts every connection (both sides
 * destroyed, as a link that goes down) once `cutAfterUpBytes` bytes have gone from client to target
 * over all its connections: an upload cut off in the middle, wherever the code under test is in it.
 * With Infinity it only counts the bytes each way.
 */
export async function startCutProxy(opts: { host: string; port: number; cutAfterUpBytes: number }): Promise<CutProxy> {
  const sockets = new Set<net.Socket>();
  let up = 0;
  let down = 0;
  let cut = false;
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    if (cut) { client.destroy(); return; }
    const target = net.connect({ host: opts.host, port: opts.port, noDelay: true });
    for (const s of [client, target]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => { client.destroy(); target.destroy(); });
    }
    client.on('data', (d: Buffer) => {
      if (cut) return;
      up += d.length;
      if (up >= opts.cutAfterUpBytes) {
        cut = true;
        for (const s of sockets) s.destroy();
        return;
      }
      target.write(d);
    });
    target.on('data', (d: Buffer) => {
      if (cut) return;
      down += d.length;
      client.write(d);
    });
    client.on('end', () => target.end());
    target.on('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  registerCleanup(stop);
  return {
    port,
    get upBytes() { return up; },
    get downBytes() { return down; },
    get cut() { return cut; },
    stop,
  };
}
