import net from 'node:net';

export interface DelayProxyOptions {
  /** Port on 127.0.0.1 (or targetHost) to forward to. */
  targetPort: number;
  /** Default 127.0.0.1; a fresh server with no route out is at its end of a veth pair. */
  targetHost?: string;
  /** Added to every chunk in each direction (a round trip gains 2 × delayMs). */
  delayMs: number;
  /** Optional cap per direction and connection, bytes per second. */
  rateBytesPerSec?: number;
  /**
   * Bytes a direction holds (in flight plus queued) before it stops reading its source: a real
   * bottleneck's buffer is small, so a sender faster than the rate is slowed by TCP instead of
   * queueing seconds of data. Default 256 MiB (room for any window on a long, fast link).
   */
  maxQueuedBytes?: number;
}

export interface DelayProxy {
  port: number;
  /** Bytes currently held in delay lines, all connections and directions. */
  readonly queuedBytes: number;
  stop(): Promise<void>;
}

/** Beyond this a direction stops reading its source, as a real link would drop and slow the sender. */
const DEFAULT_MAX_QUEUED = 256 * 1024 * 1024;

/**
 * A user-space "long link" on loopback: every chunk is released `delayMs` after it arrived, in
 * order, optionally paced to a rate. tc/netem would need privileges and touches the whole host;
 * this touches only the connections that go through it.
 */
export async function startDelayProxy(opts: DelayProxyOptions): Promise<DelayProxy> {
  const { targetPort, delayMs } = opts;
  const rate = opts.rateBytesPerSec ?? 0;
  const maxQueued = opts.maxQueuedBytes ?? DEFAULT_MAX_QUEUED;
  const sockets = new Set<net.Socket>();
  let queued = 0;

  const pump = (src: net.Socket, dst: net.Socket) => {
    const line: { at: number; data: Buffer }[] = [];
    let lineBytes = 0;
    let timer: NodeJS.Timeout | null = null;
    let lastRelease = 0;
    let srcEnded = false;
    let waitingDrain = false;
    const endIfDone = () => {
      if (srcEnded && line.length === 0 && !dst.writableEnded) dst.end();
    };

    const schedule = () => {
      if (timer || waitingDrain || line.length === 0) return;
      timer = setTimeout(release, Math.max(0, line[0].at - performance.now()));
    };
    const release = () => {
      timer = null;
      const now = performance.now();
      while (line.length > 0 && line[0].at <= now + 0.5) {
        const { data } = line.shift()!;
        lineBytes -= data.length;
        queued -= data.length;
        if (!dst.destroyed && !dst.write(data)) waitingDrain = true;
        if (waitingDrain) break;
      }
      if (lineBytes < maxQueued && !waitingDrain) src.resume();
      endIfDone();
      schedule();
    };
    dst.on('drain', () => {
      waitingDrain = false;
      release();
    });
    src.on('data', (data: Buffer) => {
      const now = performance.now();
      let at = now + delayMs;
      if (rate > 0) {
        // Serialisation: a chunk is out once the one before it is and its own bytes have passed.
        at = Math.max(at, lastRelease) + (data.length / rate) * 1000;
        lastRelease = at;
      }
      line.push({ at, data });
      lineBytes += data.length;
      queued += data.length;
      if (lineBytes >= maxQueued || waitingDrain) src.pause();
      schedule();
    });
    src.on('end', () => {
      srcEnded = true;
      endIfDone();
    });
  };

  const server = net.createServer({ noDelay: true, allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ host: opts.targetHost ?? '127.0.0.1', port: targetPort, noDelay: true, allowHalfOpen: true });
    sockets.add(client);
    sockets.add(upstream);
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    // A clean end travels through the delay line (pump); only errors cut both sides at once.
    client.on('error', closeBoth).on('close', () => sockets.delete(client));
    upstream.on('error', closeBoth).on('close', () => sockets.delete(upstream));
    pump(client, upstream);
    pump(upstream, client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    get queuedBytes() {
      return queued;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
