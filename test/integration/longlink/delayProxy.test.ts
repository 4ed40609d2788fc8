import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startDelayProxy, type DelayProxy } from '../../bed/delayProxy';

// The bed's delaying proxy is what every long-link test and bench stands on: check it does what it says.
const servers: net.Server[] = [];
const proxies: DelayProxy[] = [];
afterAll(async () => {
  for (const p of proxies) await p.stop();
  for (const s of servers) s.close();
});

function echoServer(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer((s) => s.pipe(s)).listen(0, '127.0.0.1', () => resolve((srv.address() as net.AddressInfo).port));
    servers.push(srv);
  });
}

async function proxyTo(targetPort: number, delayMs: number, rateBytesPerSec?: number, maxQueuedBytes?: number): Promise<DelayProxy> {
  const p = await startDelayProxy({ targetPort, delayMs, rateBytesPerSec, maxQueuedBytes });
  proxies.push(p);
  return p;
}

/** Sends `data` through an echo behind the proxy; resolves with what came back and when. */
function echoThrough(port: number, data: Buffer): Promise<{ back: Buffer; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const parts: Buffer[] = [];
    let got = 0;
    const s = net.connect({ host: '127.0.0.1', port }, () => s.write(data));
    s.on('data', (d: Buffer) => {
      parts.push(d);
      got += d.length;
      if (got >= data.length) {
        s.destroy();
        resolve({ back: Buffer.concat(parts), ms: performance.now() - t0 });
      }
    });
    s.once('error', reject);
  });
}

/** A server that reads everything and resolves with what one connection sent. */
function sinkServer(): Promise<{ port: number; received: Promise<Buffer> }> {
  return new Promise((resolve) => {
    let got!: (b: Buffer) => void;
    const received = new Promise<Buffer>((r) => (got = r));
    const srv = net.createServer((s) => {
      const parts: Buffer[] = [];
      s.on('data', (d: Buffer) => parts.push(d)).on('end', () => { got(Buffer.concat(parts)); s.end(); });
    }).listen(0, '127.0.0.1', () => resolve({ port: (srv.address() as net.AddressInfo).port, received }));
    servers.push(srv);
  });
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('delay proxy (test bed)', () => {
  it('adds its delay in each direction', async () => {
    const p = await proxyTo(await echoServer(), 40);
    const { back, ms } = await echoThrough(p.port, Buffer.from('ping'));
    expect(back.toString()).toBe('ping');
    expect(ms).toBeGreaterThanOrEqual(79);
  });

  it('keeps every byte in order', async () => {
    const p = await proxyTo(await echoServer(), 5);
    const data = randomBytes(8 * 1024 * 1024);
    const { back } = await echoThrough(p.port, data);
    expect(back.length).toBe(data.length);
    expect(sha(back)).toBe(sha(data));
    expect(p.queuedBytes).toBe(0);
  });

  it('paces to the rate limit', async () => {
    const p = await proxyTo(await echoServer(), 0, 4 * 1024 * 1024);
    // 1 MiB at 4 MiB/s, each way: at least 0.25 s there and, echoed, again back.
    const { back, ms } = await echoThrough(p.port, randomBytes(1024 * 1024));
    expect(back.length).toBe(1024 * 1024);
    expect(ms).toBeGreaterThanOrEqual(240);
  });

  it('holds at most maxQueuedBytes per direction and slows the sender instead', async () => {
    const sink = await sinkServer();
    const limit = 256 * 1024;
    const p = await proxyTo(sink.port, 0, 2 * 1024 * 1024, limit);
    let peak = 0;
    const sampler = setInterval(() => { peak = Math.max(peak, p.queuedBytes); }, 5);
    const data = randomBytes(3 * 1024 * 1024);
    const s = net.connect({ host: '127.0.0.1', port: p.port }, () => s.end(data));
    const back = await sink.received;
    clearInterval(sampler);
    expect(sha(back)).toBe(sha(data));
    // One read (at most 64 KiB) may land before the direction pauses.
    expect(peak).toBeLessThanOrEqual(limit + 64 * 1024);
    // The sender was much faster than 2 MiB/s, so the limit was reached: the bound above was tested.
    expect(peak).toBeGreaterThan(limit / 2);
  });
});
