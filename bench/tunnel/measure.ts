/** What the bench's client side does through a tunnel's local port. */
import fs from 'node:fs';
import net from 'node:net';

function connect(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port, noDelay: true }, () => {
      s.off('error', reject);
      resolve(s);
    });
    s.once('error', reject);
  });
}

function sendRequest(s: net.Socket, bytes: number): void {
  const head = Buffer.alloc(9);
  head[0] = 0x53; // 'S'
  head.writeBigUInt64BE(BigInt(bytes), 1);
  s.write(head);
}

/** Server → client: seconds from the request until `bytes` arrived (server-to-client, as VNC flows). */
export async function throughput(port: number, bytes: number): Promise<number> {
  const s = await connect(port);
  const t0 = performance.now();
  sendRequest(s, bytes);
  return new Promise((resolve, reject) => {
    let got = 0;
    s.on('data', (d: Buffer) => { got += d.length; });
    s.once('error', reject);
    s.once('end', () => {
      const secs = (performance.now() - t0) / 1000;
      s.destroy();
      if (got !== bytes) reject(new Error(`received ${got} of ${bytes} bytes`));
      else resolve(secs);
    });
  });
}

/** n round trips of a 64-byte message through the echo service; milliseconds each, warm-up dropped. */
export async function echoRtts(port: number, n: number, warmup = 50): Promise<number[]> {
  const s = await connect(port);
  s.write('E');
  const msg = Buffer.alloc(64, 0x61);
  const out: number[] = [];
  await new Promise<void>((resolve, reject) => {
    let pending = 0;
    let t0 = 0;
    let i = 0;
    const next = () => {
      if (i === n + warmup) return resolve();
      pending = 64;
      t0 = performance.now();
      s.write(msg);
    };
    s.on('data', (d: Buffer) => {
      pending -= d.length;
      if (pending > 0) return;
      if (i++ >= warmup) out.push(performance.now() - t0);
      next();
    });
    s.once('error', reject);
    next();
  });
  s.destroy();
  return out;
}

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

/**
 * Reads `fastBytes` as fast as possible (the window grows), then drains at `rate` bytes/s for
 * `slowSecs` while the server keeps sending; samples `pid`'s RSS every 20 ms. Returns the peak
 * of each phase: the slow one is the figure asked for, the fast one says how much is GC lag.
 */
export async function drainAndWatch(
  port: number,
  pid: number,
  fastBytes: number,
  rate: number,
  slowSecs: number,
): Promise<{ peakFast: number; peakSlow: number; slowBytes: number }> {
  const s = await connect(port);
  sendRequest(s, 2 ** 40);
  let peak = rssBytes(pid);
  const sampler = setInterval(() => { peak = Math.max(peak, rssBytes(pid)); }, 20);
  let got = 0;
  await new Promise<void>((resolve) => {
    const onData = (d: Buffer) => {
      got += d.length;
      if (got >= fastBytes) { s.pause(); s.off('data', onData); resolve(); }
    };
    s.on('data', onData);
  });
  const peakFast = Math.max(peak, rssBytes(pid));
  peak = 0;
  // 1 MiB/s: take a chunk, then stay paused for as long as that chunk "costs".
  const slowStart = got;
  const t0 = performance.now();
  await new Promise<void>((resolve) => {
    s.on('data', (d: Buffer) => {
      got += d.length;
      s.pause();
      const due = t0 + ((got - slowStart) / rate) * 1000;
      if (performance.now() - t0 > slowSecs * 1000) return resolve();
      setTimeout(() => s.resume(), Math.max(0, due - performance.now()));
    });
    s.resume();
  });
  clearInterval(sampler);
  const peakSlow = Math.max(peak, rssBytes(pid));
  s.destroy();
  return { peakFast, peakSlow, slowBytes: got - slowStart };
}
