import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';

export interface ChannelCounters {
  /** Server → viewer bytes. */
  bytesIn: number;
  /** Viewer → server bytes. */
  bytesOut: number;
  open: boolean;
}

/** Above this many bytes queued towards the browser, stop reading from the tunnel (backpressure). */
const HIGH_WATER = 4 << 20;
/**
 * SSH delivers at most 32 KiB per channel packet; one WebSocket message per packet means one
 * browser task and one noVNC parse attempt per packet. Coalescing whatever arrived during the same
 * event-loop turn (up to this size) cuts message count several-fold at no latency cost.
 */
const MAX_BATCH = 1 << 20;

/** Pipes a tunnel stream to a WebSocket both ways; returns a closer. */
export function pipeStreamToSocket(stream: Duplex, ws: WebSocket, counters: ChannelCounters): () => void {
  counters.open = true;
  let chunks: Buffer[] = [];
  let size = 0;
  let scheduled = false;
  let queued = 0;
  let paused = false;
  let closed = false;

  const flush = () => {
    scheduled = false;
    if (size === 0 || ws.readyState !== ws.OPEN) return;
    const data = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
    const n = size;
    chunks = [];
    size = 0;
    queued += n;
    ws.send(data, { binary: true }, () => {
      queued -= n;
      if (paused && queued < HIGH_WATER / 2) {
        paused = false;
        stream.resume();
      }
    });
    if (queued > HIGH_WATER && !paused) {
      paused = true;
      stream.pause();
    }
  };

  stream.on('data', (d: Buffer) => {
    counters.bytesIn += d.length;
    chunks.push(d);
    size += d.length;
    if (size >= MAX_BATCH) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  });
  ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
    if (!isBinary) return;
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    counters.bytesOut += buf.length;
    stream.write(buf);
  });

  const close = () => {
    if (closed) return;
    closed = true;
    counters.open = false;
    flush();
    stream.destroy();
    if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(1000);
  };
  stream.on('end', close);
  stream.on('close', close);
  stream.on('error', close);
  ws.on('close', close);
  ws.on('error', close);
  return close;
}
