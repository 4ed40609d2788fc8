import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ChannelHub } from '../../../src/core/vnc/channelHub';

const ORIGIN = 'http://127.0.0.1:5555';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A real TCP service standing in for the VNC session: echoes, and can send a burst of small writes. */
async function echoServer(): Promise<{ port: number; sockets: net.Socket[] }> {
  const sockets: net.Socket[] = [];
  const srv = net.createServer((s) => {
    sockets.push(s);
    s.on('data', (d) => {
      if (d.toString() === 'burst') for (let i = 0; i < 200; i++) s.write(Buffer.alloc(1000, i));
      else s.write(d);
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  cleanups.push(() => new Promise<void>((r) => { for (const s of sockets) s.destroy(); srv.close(() => r()); }));
  return { port: (srv.address() as net.AddressInfo).port, sockets };
}

async function hubWithEcho() {
  const echo = await echoServer();
  const hub = new ChannelHub({ allowedOrigins: () => [ORIGIN] });
  const port = await hub.listen();
  cleanups.push(() => hub.close());
  const open = () => new Promise<net.Socket>((resolve, reject) => {
    const s = net.connect(echo.port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
  return { hub, port, echo, open };
}

function connect(url: string, origin?: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, origin ? { origin } : {});
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

describe('ChannelHub: the viewer byte channel', () => {
  it('refuses a page from another origin, a wrong token and a second use of a token', async () => {
    const { hub, port, open } = await hubWithEcho();
    const t = hub.register(open);
    const base = `ws://127.0.0.1:${port}`;
    await expect(connect(base + t.path, 'http://evil.example')).rejects.toThrow('HTTP 403');
    await expect(connect(base + t.path)).rejects.toThrow('HTTP 403');
    await expect(connect(base + t.path.replace(/token=.*/, 'token=AAAA'), ORIGIN)).rejects.toThrow('HTTP 401');
    const ws = await connect(base + t.path, ORIGIN);
    cleanups.push(() => ws.terminate());
    await expect(connect(base + t.path, ORIGIN)).rejects.toThrow('HTTP 401');
  });

  it('carries bytes both ways, counts them, and coalesces small chunks into fewer messages', async () => {
    const { hub, port, open } = await hubWithEcho();
    const t = hub.register(open);
    const ws = await connect(`ws://127.0.0.1:${port}${t.path}`, ORIGIN);
    cleanups.push(() => ws.terminate());
    const got: Buffer[] = [];
    ws.on('message', (d: Buffer) => got.push(d));
    ws.send(Buffer.from('hello'));
    await expect.poll(() => Buffer.concat(got).toString()).toBe('hello');
    got.length = 0;
    ws.send(Buffer.from('burst'));
    await expect.poll(() => Buffer.concat(got).length, { timeout: 5000 }).toBe(200_000);
    // 200 writes of 1000 bytes arrive in far fewer WebSocket messages.
    expect(got.length).toBeLessThan(100);
    expect(t.counters.bytesIn).toBe(200_005);
    expect(t.counters.bytesOut).toBe(10);
    expect(t.counters.open).toBe(true);
  });

  it('revoking a ticket closes its channel and the tunnel stream', async () => {
    const { hub, port, open, echo } = await hubWithEcho();
    const t = hub.register(open);
    const ws = await connect(`ws://127.0.0.1:${port}${t.path}`, ORIGIN);
    ws.send(Buffer.from('x'));
    await expect.poll(() => echo.sockets.length).toBe(1);
    const closed = new Promise((r) => ws.once('close', r));
    hub.revoke(t.id);
    await closed;
    await expect.poll(() => echo.sockets[0].destroyed || echo.sockets[0].readableEnded).toBe(true);
    expect(t.counters.open).toBe(false);
  });

  it('an unreachable session closes the socket with a reason instead of hanging', async () => {
    const hub = new ChannelHub({ allowedOrigins: () => [ORIGIN] });
    const port = await hub.listen();
    cleanups.push(() => hub.close());
    const t = hub.register(() => Promise.reject(new Error('connect ECONNREFUSED')));
    const ws = await connect(`ws://127.0.0.1:${port}${t.path}`, ORIGIN);
    const [code, reason] = await new Promise<[number, string]>((r) => ws.once('close', (c, why) => r([c, why.toString()])));
    expect(code).toBe(1011);
    expect(reason).toContain('could not reach');
  });

  it('listens on loopback only', async () => {
    const hub = new ChannelHub({ allowedOrigins: () => [ORIGIN] });
    const port = await hub.listen();
    cleanups.push(() => hub.close());
    const addr = (hub as unknown as { server: net.Server }).server.address() as net.AddressInfo;
    expect(addr.address).toBe('127.0.0.1');
    expect(addr.port).toBe(port);
  });
});
