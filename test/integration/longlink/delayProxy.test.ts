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

async function proxyTo(targetPort: number, delayMs: number, rateBytesPerSec?: number): Promise<DelayProxy> {
  const p = await startDelayProxy({ targetPort, delayMs, rateBytesPerSec });
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
});
