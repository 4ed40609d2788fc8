import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { adoptAccepted, leanSocketsAvailable, socketWriter } from '../../../src/core/net/leanSocket';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const open: (net.Socket | net.Server)[] = [];
afterEach(() => {
  for (const x of open.splice(0)) {
    if (x instanceof net.Server) x.close();
    else x.destroy();
  }
});

/** A loopback pair: `server` is the accepted side as the server hands it over (paused on connect). */
async function pair(): Promise<{ server: net.Socket; client: net.Socket; listener: net.Server }> {
  const listener = net.createServer({ pauseOnConnect: true, allowHalfOpen: true });
  open.push(listener);
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  const accepted = new Promise<net.Socket>((r) => listener.once('connection', r));
  const client = net.connect({ port: (listener.address() as net.AddressInfo).port, host: '127.0.0.1', allowHalfOpen: true });
  open.push(client);
  await new Promise<void>((r, j) => client.once('connect', r).once('error', j));
  const server = await accepted;
  open.push(server);
  return { server, client, listener };
}

function collect(s: net.Socket, bytes: number): Promise<Buffer> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let got = 0;
    s.on('data', (d: Buffer) => {
      parts.push(d);
      got += d.length;
      if (got >= bytes) resolve(Buffer.concat(parts));
    });
  });
}

describe('lean socket paths (real loopback sockets)', () => {
  it('are in use on this Node (a runtime change that drops them must be noticed, not silently slower)', () => {
    expect(leanSocketsAvailable).toBe(true);
  });

  it('writer: writes the kernel cannot take at once keep their order, count as pending, and end in onIdle', async () => {
    const { server, client } = await pair();
    let idle = 0;
    const w = socketWriter(server, () => idle++);
    const chunks = Array.from({ length: 400 }, (_, i) => randomBytes(16 * 1024 + i));
    const total = chunks.reduce((n, c) => n + c.length, 0);
    client.pause(); // the peer reads nothing yet: the kernel's buffers fill and writes must queue
    for (const c of chunks) w.write(c);
    expect(w.pending()).toBeGreaterThan(0);
    const got = collect(client, total);
    client.resume();
    expect(sha(await got)).toBe(sha(Buffer.concat(chunks)));
    await new Promise((r) => setTimeout(r, 50));
    expect(w.pending()).toBe(0);
    expect(idle).toBeGreaterThan(0);
  });

  it('writer: onIdle comes after a queued tail smaller than the Writable\'s high-water mark (no \'drain\' for it)', async () => {
    const { server, client } = await pair();
    let idle = 0;
    const w = socketWriter(server, () => idle++);
    client.pause();
    const sent: Buffer[] = [];
    // Direct writes until the kernel is full and one is left queued…
    while (w.pending() === 0) {
      const c = randomBytes(64 * 1024);
      sent.push(c);
      w.write(c);
    }
    // …then one small chunk behind it, through socket.write(), which returns true.
    const tail = randomBytes(1024);
    sent.push(tail);
    w.write(tail);
    expect(server.writableLength).toBe(1024);
    idle = 0;
    const total = sent.reduce((n, c) => n + c.length, 0);
    const got = collect(client, total);
    client.resume();
    expect(sha(await got)).toBe(sha(Buffer.concat(sent)));
    for (let i = 0; i < 50 && idle === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(w.pending()).toBe(0);
    expect(idle).toBeGreaterThan(0);
  });

  it('writer: a write to a peer that is gone destroys the socket with the system error, no throw', async () => {
    const { server, client } = await pair();
    const w = socketWriter(server);
    client.resetAndDestroy();
    const err = new Promise<NodeJS.ErrnoException>((r) => server.once('error', r));
    await new Promise((r) => setTimeout(r, 50));
    for (let i = 0; i < 20 && !server.destroyed; i++) {
      w.write(Buffer.alloc(1024));
      await new Promise((r) => setTimeout(r, 10));
    }
    expect((await err).code).toMatch(/^(EPIPE|ECONNRESET)$/);
    expect(server.destroyed).toBe(true);
  });

  it('reader: an adopted socket gets every byte sent before and after adoption, honours pause/resume, and sees EOF', async () => {
    const { server: raw, client, listener } = await pair();
    const early = randomBytes(3000);
    client.write(early); // sent while the accepted socket reads nothing yet
    await new Promise((r) => setTimeout(r, 30));
    const { socket, onData } = adoptAccepted(raw, { allowHalfOpen: true });
    open.push(socket);
    expect(socket).not.toBe(raw);
    expect(raw.destroyed).toBe(true);
    const parts: Buffer[] = [];
    // The chunk is a view of a reused buffer: copies are kept.
    onData((d) => { parts.push(Buffer.from(d)); });
    socket.resume();
    await new Promise((r) => setTimeout(r, 50));
    expect(sha(Buffer.concat(parts))).toBe(sha(early));

    socket.pause();
    const later = randomBytes(200_000);
    client.write(later);
    await new Promise((r) => setTimeout(r, 100));
    expect(Buffer.concat(parts).length).toBe(early.length); // paused: nothing delivered
    const ended = new Promise<void>((r) => socket.once('end', () => r()));
    socket.resume();
    client.end();
    await ended;
    expect(sha(Buffer.concat(parts))).toBe(sha(Buffer.concat([early, later])));
    // Half-open as asked: the adopted socket can still answer after the peer's EOF.
    const reply = collect(client, 5);
    socket.write('hello');
    expect((await reply).toString()).toBe('hello');
    // The server no longer counts the old wrapper.
    const count = await new Promise<number>((r, j) => listener.getConnections((e, n) => (e ? j(e) : r(n))));
    expect(count).toBe(0);
  });

  it('GD_LEAN_SOCKETS=0 falls back to plain streams, with the same bytes through', () => {
    const script = `
      const net = require('node:net');
      const { adoptAccepted, leanSocketsAvailable, socketWriter } = require(${JSON.stringify(path.resolve('src/core/net/leanSocket.ts'))});
      const srv = net.createServer({ pauseOnConnect: true }, (raw) => {
        const { socket, onData } = adoptAccepted(raw, { allowHalfOpen: false });
        const w = socketWriter(socket);
        onData((d) => w.write(Buffer.from(d.toString().toUpperCase())));
        socket.resume();
      }).listen(0, '127.0.0.1', () => {
        const c = net.connect(srv.address().port, '127.0.0.1', () => c.write('ping'));
        c.on('data', (d) => { console.log(JSON.stringify({ lean: leanSocketsAvailable, reply: d.toString() })); process.exit(0); });
      });`;
    const out = execFileSync(process.execPath, ['--import', 'tsx', '-e', script], {
      env: { ...process.env, GD_LEAN_SOCKETS: '0' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(JSON.parse(out.trim())).toMatchObject({ lean: false, reply: 'PING' });
  });
});
