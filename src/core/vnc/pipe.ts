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

export interface PipeOptions {
  /**
   * Already sent to the server for the viewer (RFB's 12-byte version answer, see rfbEarly.ts): the
   * viewer's first bytes must match, and are not sent again. The server's greeting of the same length
   * goes to the viewer as its own message, and what the server sends after it waits until the viewer
   * has answered: the viewer sees the exchange in the order the protocol has it (noVNC reads nothing
   * past the greeting until its answer is out).
   */
  sentForViewer?: Buffer;
}

/** Pipes a tunnel stream to a WebSocket both ways; returns a closer. */
export function pipeStreamToSocket(stream: Duplex, ws: WebSocket, counters: ChannelCounters, opts: PipeOptions = {}): () => void {
  counters.open = true;
  let owed = opts.sentForViewer ?? null;
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

  let greetingLeft = owed?.length ?? 0;
  let held: Buffer[] | null = owed ? [] : null;
  const release = () => {
    const h = held!;
    held = null;
    for (const d of h) take(d);
  };

  stream.on('data', (d: Buffer) => {
    counters.bytesIn += d.length;
    if (held) {
      if (greetingLeft > 0) {
        const g = d.subarray(0, greetingLeft);
        greetingLeft -= g.length;
        chunks.push(g);
        size += g.length;
        if (!greetingLeft) flush();
        d = d.subarray(g.length);
      }
      if (d.length) held.push(d);
      if (!owed && !greetingLeft) release();
      return;
    }
    take(d);
  });
  const take = (d: Buffer) => {
    chunks.push(d);
    size += d.length;
    if (size >= MAX_BATCH) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };
  ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
    if (!isBinary) return;
    let buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    counters.bytesOut += buf.length;
    if (owed) {
      const n = Math.min(owed.length, buf.length);
      if (!buf.subarray(0, n).equals(owed.subarray(0, n))) {
        // The server already has other bytes from us: carrying on would garble the session.
        ws.close(1011, 'the viewer answered the server differently than gpu-desk did for it');
        close();
        return;
      }
      owed = n === owed.length ? null : owed.subarray(n);
      if (!owed && !greetingLeft) release();
      buf = buf.subarray(n);
      if (!buf.length) return;
    }
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
