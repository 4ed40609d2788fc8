import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export interface PipeCounters {
  /** Server → local client. */
  bytesIn: number;
  /** Local client → server. */
  bytesOut: number;
}

/**
 * Joins a local TCP socket and an SSH channel. pipe() carries backpressure both ways (a slow viewer
 * stops reading the channel, which stops granting SSH window); half-closes are forwarded.
 */
export function joinStreams(local: Socket, channel: Duplex, counters: PipeCounters, onClose: () => void): void {
  local.setNoDelay(true);
  let closed = false;
  const done = () => {
    if (closed) return;
    closed = true;
    local.destroy();
    channel.destroy();
    onClose();
  };
  channel.on('data', (d: Buffer) => { counters.bytesIn += d.length; });
  local.on('data', (d: Buffer) => { counters.bytesOut += d.length; });
  channel.pipe(local);
  local.pipe(channel);
  local.on('error', done);
  channel.on('error', done);
  local.on('close', done);
  channel.on('close', done);
}
