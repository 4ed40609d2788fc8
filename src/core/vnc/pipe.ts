import net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import type { WebSocket } from 'ws';
import { leanSocketsAvailable, socketWriter, type SocketWriter } from '../net/leanSocket';
import { isSinkChannel } from '../ssh/sinkChannel';
import type { PipeCounters } from '../tunnels/pipe';

/** A viewer channel's bytes each way (the tunnels' counters: the viewer is the local client), and whether it is open. */
export interface ChannelCounters extends PipeCounters {
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
/** Room before a batch for the largest WebSocket header a server sends (no mask). */
const HEADER_ROOM = 10;
const FIRST_BATCH = 64 * 1024;

export interface PipeOptions {
  /**
   * Already sent to the server for the viewer (RFB's 12-byte version answer, see rfbEarly.ts): the
   * viewer's first bytes must match, and are not sent again. The server's greeting of the same length
   * goes to the viewer as its own message, and what the server sends after it waits until the viewer
   * has answered: the viewer sees the exchange in the order the protocol has it (noVNC reads nothing
   * past the greeting until its answer is out).
   */
  sentForViewer?: Buffer;
  /** The page's messages that arrived before the stream was open, oldest first. */
  early?: ViewerMessage[];
}

/** One WebSocket message from the page, as ws's 'message' event gives it. */
export type ViewerMessage = [data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean];

/**
 * Where a batch goes. The lean path writes each batch as one binary WebSocket frame (header and
 * payload in one buffer, one write straight to the socket's handle) and reuses the buffer when the
 * kernel took it at once; ws.send() instead frames it, corks, writes twice and keeps the buffer.
 * Profiled with a 3D program on TurboVNC (docs/bench-3d.md), the tunnel process's CPU per frame was
 * mostly such per-message machinery, not bytes.
 */
interface FrameOut {
  /** A buffer with HEADER_ROOM free bytes before `cap` payload bytes. */
  buffer(cap: number): Buffer;
  /** Sends `buf[HEADER_ROOM, HEADER_ROOM + n)` as one binary message. */
  send(buf: Buffer, n: number): void;
  /** Bytes handed over but not yet taken by the kernel. */
  pending(): number;
}

function wsFrameOut(ws: WebSocket, onIdle: () => void): FrameOut {
  const sock = (ws as unknown as { _socket?: unknown })._socket;
  // A plain socket only: a TLS socket's bytes must go through its encryption, not straight to a handle.
  if (leanSocketsAvailable && sock instanceof net.Socket && !(sock instanceof tls.TLSSocket)) {
    const w: SocketWriter = socketWriter(sock, onIdle);
    let spare: Buffer | null = null;
    return {
      buffer: (cap) => {
        if (spare && spare.length >= HEADER_ROOM + cap) return spare;
        return (spare = Buffer.allocUnsafe(HEADER_ROOM + Math.max(cap, FIRST_BATCH)));
      },
      send: (buf, n) => {
        let h = HEADER_ROOM;
        if (n < 126) {
          buf[--h] = n;
        } else if (n < 65536) {
          h -= 2;
          buf.writeUInt16BE(n, h);
          buf[--h] = 126;
        } else {
          h -= 8;
          buf.writeUInt32BE(Math.floor(n / 2 ** 32), h);
          buf.writeUInt32BE(n >>> 0, h + 4);
          buf[--h] = 127;
        }
        buf[--h] = 0x82; // FIN, binary
        w.write(buf.subarray(h, HEADER_ROOM + n));
        // Kept by libuv until written: the next batch gets a buffer of its own.
        if (w.pending() > 0 && buf === spare) spare = null;
      },
      pending: () => w.pending(),
    };
  }
  let queued = 0;
  return {
    buffer: (cap) => Buffer.allocUnsafe(HEADER_ROOM + cap),
    send: (buf, n) => {
      queued += n;
      ws.send(buf.subarray(HEADER_ROOM, HEADER_ROOM + n), { binary: true }, () => {
        queued -= n;
        if (queued === 0) onIdle();
      });
    },
    pending: () => queued,
  };
}

/** Pipes a tunnel stream to a WebSocket both ways; returns a closer. */
export function pipeStreamToSocket(stream: Duplex, ws: WebSocket, counters: ChannelCounters, opts: PipeOptions = {}): () => void {
  counters.open = true;
  let owed = opts.sentForViewer ?? null;
  let closed = false;
  const sink = isSinkChannel(stream) ? stream : null;
  let paused = false;
  const out = wsFrameOut(ws, () => {
    // Everything went out: a sink channel grants window again, a paused stream resumes.
    if (sink) sink.consumed();
    else if (paused) {
      paused = false;
      stream.resume();
    }
  });

  // The batch being gathered this event-loop turn, payload from HEADER_ROOM on.
  let batch: Buffer | null = null;
  let size = 0;
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    if (size === 0 || ws.readyState !== ws.OPEN) return;
    const b = batch!;
    const n = size;
    batch = null;
    size = 0;
    out.send(b, n);
    if (!sink && out.pending() > HIGH_WATER && !paused) {
      paused = true;
      stream.pause();
    }
  };
  // Copies: a sink's data is a view of ssh2's read slab, which it reuses once we return.
  const add = (d: Buffer) => {
    if (!batch) batch = out.buffer(Math.max(d.length, FIRST_BATCH));
    else if (HEADER_ROOM + size + d.length > batch.length) {
      // Grown, not flushed: one message per event-loop turn however many packets it brought.
      const bigger = out.buffer(2 * (size + d.length));
      batch.copy(bigger, HEADER_ROOM, HEADER_ROOM, HEADER_ROOM + size);
      batch = bigger;
    }
    d.copy(batch, HEADER_ROOM + size);
    size += d.length;
  };
  const take = (d: Buffer) => {
    add(d);
    if (size >= MAX_BATCH) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };

  let greetingLeft = owed?.length ?? 0;
  let held: Buffer[] | null = owed ? [] : null;
  const release = () => {
    const h = held!;
    held = null;
    for (const d of h) take(d);
    sink?.consumed();
  };

  const fromServer = (d: Buffer) => {
    counters.bytesIn += d.length;
    if (held) {
      if (greetingLeft > 0) {
        const g = d.subarray(0, greetingLeft);
        greetingLeft -= g.length;
        add(g);
        if (!greetingLeft) flush();
        d = d.subarray(g.length);
      }
      if (d.length) held.push(Buffer.from(d));
      if (!owed && !greetingLeft) release();
      return;
    }
    take(d);
  };
  if (sink) {
    sink.setSink({
      write: fromServer,
      // Window is granted only for what the browser's socket took (a slow page stalls the server).
      // The batch itself is not counted: it goes out within this event-loop turn.
      buffered: () => out.pending() + (held ? held.reduce((t, x) => t + x.length, 0) : 0),
    });
  } else {
    stream.on('data', fromServer);
  }

  const fromViewer = (data: ViewerMessage[0], isBinary: boolean) => {
    if (!isBinary || closed) return;
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
  };
  ws.on('message', fromViewer);

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
  for (const [data, isBinary] of opts.early ?? []) fromViewer(data, isBinary);
  return close;
}
