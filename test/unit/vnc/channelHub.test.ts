import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ChannelHub } from '../../../src/core/vnc/channelHub';
import { openSpeakingFirst, RFB_38_CLIENT_VERSION } from '../../../src/core/vnc/rfbEarly';

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

/** Like connect, collecting messages from the start (an eager channel sends its first at once). */
async function connectCollecting(url: string): Promise<{ ws: WebSocket; msgs: Buffer[] }> {
  const msgs: Buffer[] = [];
  const ws = new WebSocket(url, { origin: ORIGIN });
  ws.on('message', (d: Buffer) => msgs.push(d));
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  return { ws, msgs };
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

  it('what the page sends while its stream is still opening reaches the server, in order', async () => {
    const { hub, port, open, echo } = await hubWithEcho();
    let letOpen!: () => void;
    const gate = new Promise<void>((r) => { letOpen = r; });
    const t = hub.register(async () => { await gate; return open(); });
    const { ws, msgs } = await connectCollecting(`ws://127.0.0.1:${port}${t.path}`);
    cleanups.push(() => ws.terminate());
    ws.send(Buffer.from('one,'));
    ws.send(Buffer.from('two'));
    // The hub answers a ping only after it has read the frames before it: both messages are in.
    const pong = new Promise((r) => ws.once('pong', r));
    ws.ping();
    await pong;
    expect(echo.sockets).toHaveLength(0);
    letOpen();
    await expect.poll(() => Buffer.concat(msgs).toString()).toBe('one,two');
    expect(t.counters.bytesOut).toBe(7);
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

  it('an eager stream nobody claims in time is closed (a server encoder never runs for nobody); a claimed one keeps going', async () => {
    const { hub, port, open } = await hubWithEcho();
    const streams: net.Socket[] = [];
    const opening = () => open().then((x) => (streams.push(x), x));
    const claimed = hub.register(opening, { eager: true, claimWithinMs: 300 });
    const abandoned = hub.register(opening, { eager: true, claimWithinMs: 300 });
    const ws = await connect(`ws://127.0.0.1:${port}${claimed.path}`, ORIGIN);
    cleanups.push(() => ws.terminate());
    await expect.poll(() => streams.length).toBe(2);
    await expect.poll(() => streams.filter((x) => x.destroyed).length, { timeout: 5000 }).toBe(1);
    // The one destroyed is the unclaimed ticket's, and its ticket is gone; the claimed channel still echoes.
    await expect(connect(`ws://127.0.0.1:${port}${abandoned.path}`, ORIGIN)).rejects.toThrow('HTTP 401');
    const echoed = new Promise<string>((r) => ws.once('message', (d: Buffer) => r(d.toString())));
    ws.send(Buffer.from('still here'));
    expect(await echoed).toBe('still here');
  });

  it('an eager TurboVNC ticket: the stream opens at once and speaks the viewer\'s version; the viewer sees the exchange in protocol order and its own copy is dropped', async () => {
    // A real TCP server speaking RFB's opening as TurboVNC does once the client spoke first: its
    // version, and its security types as soon as the client's version is in.
    const got: Buffer[] = [];
    const sockets: net.Socket[] = [];
    const srv = net.createServer((sock) => {
      sockets.push(sock);
      sock.write('RFB 003.008\n');
      let seen = 0;
      sock.on('data', (d) => {
        got.push(d);
        if (seen < 12 && (seen += d.length) >= 12) sock.write(Buffer.from([1, 2]));
      });
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    cleanups.push(() => new Promise<void>((r) => { for (const x of sockets) x.destroy(); srv.close(() => r()); }));
    const hub = new ChannelHub({ allowedOrigins: () => [ORIGIN] });
    const port = await hub.listen();
    cleanups.push(() => hub.close());
    const tcp = () => new Promise<net.Socket>((resolve, reject) => {
      const x = net.connect((srv.address() as net.AddressInfo).port, '127.0.0.1', () => resolve(x));
      x.once('error', reject);
    });
    const t = hub.register(() => openSpeakingFirst(tcp), { eager: true, sentForViewer: RFB_38_CLIENT_VERSION });
    // Before any page connects, the server already has the viewer's version.
    await expect.poll(() => Buffer.concat(got).toString('latin1')).toBe('RFB 003.008\n');
    const { ws, msgs } = await connectCollecting(`ws://127.0.0.1:${port}${t.path}`);
    cleanups.push(() => ws.terminate());
    // The greeting alone, though the security types are already waiting behind it.
    await expect.poll(() => msgs.length).toBe(1);
    expect(msgs[0].toString('latin1')).toBe('RFB 003.008\n');
    await new Promise((r) => setImmediate(r));
    expect(msgs).toHaveLength(1);
    // The viewer answers as the protocol has it (split, to check partial matching) and picks a type.
    ws.send(Buffer.from('RFB 003'));
    ws.send(Buffer.from('.008\n'));
    await expect.poll(() => Buffer.concat(msgs).length).toBe(14);
    expect([...Buffer.concat(msgs).subarray(12)]).toEqual([1, 2]);
    ws.send(Buffer.from([2]));
    await expect.poll(() => Buffer.concat(got).length).toBe(13);
    expect(Buffer.concat(got).toString('latin1')).toBe('RFB 003.008\n\x02');
    expect(t.counters.bytesIn).toBe(14);
  });

  it('a viewer answering otherwise than gpu-desk did for it closes the channel; an eager stream nobody claims closes with its ticket', async () => {
    const { hub, port, open, echo } = await hubWithEcho();
    const t = hub.register(() => openSpeakingFirst(open), { eager: true, sentForViewer: RFB_38_CLIENT_VERSION });
    const { ws, msgs } = await connectCollecting(`ws://127.0.0.1:${port}${t.path}`);
    // The echo sends our version back: the greeting, as far as the viewer can tell.
    await expect.poll(() => msgs.length).toBe(1);
    ws.send(Buffer.from('RFB 003.003\n'));
    const [code] = await new Promise<[number]>((r) => ws.once('close', (c) => r([c])));
    expect(code).toBe(1011);
    await expect.poll(() => echo.sockets[0].destroyed || echo.sockets[0].readableEnded).toBe(true);

    const unclaimed = hub.register(open, { eager: true });
    await expect.poll(() => echo.sockets.length).toBe(2);
    hub.revoke(unclaimed.id);
    await expect.poll(() => echo.sockets[1].destroyed || echo.sockets[1].readableEnded).toBe(true);
  });

  it('a ticket revoked while its stream is still opening closes the page\'s socket and the stream that arrives', async () => {
    const { hub, port, open, echo } = await hubWithEcho();
    let go!: () => void;
    const gate = new Promise<void>((r) => { go = r; });
    let asked = false;
    const t = hub.register(async () => { asked = true; await gate; return open(); });
    const ws = await connect(`ws://127.0.0.1:${port}${t.path}`, ORIGIN);
    const closed = new Promise((r) => ws.once('close', r));
    await expect.poll(() => asked).toBe(true);
    hub.revoke(t.id);
    go();
    await closed;
    await expect.poll(() => echo.sockets.length).toBe(1);
    await expect.poll(() => echo.sockets[0].destroyed || echo.sockets[0].readableEnded).toBe(true);
    expect(t.counters.open).toBe(false);
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
