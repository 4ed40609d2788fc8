import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, freePort, isPortFree, readUntil, startSshd, startXvnc, type SshdBed, type XvncBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { TunnelManager } from '../../../src/core/tunnels/tunnelManager';
import type { ConnectionStateEvent } from '../../../src/core/ssh/types';
import { GpuDeskError } from '../../../src/core/errors';

let bed: SshdBed;
let xvnc: XvncBed;

beforeAll(async () => {
  [bed, xvnc] = await Promise.all([startSshd(), startXvnc()]);
});
afterAll(cleanupAll);

function connectLocal(port: number, host = '127.0.0.1', allowHalfOpen = false): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host, port, allowHalfOpen }, () => resolve(s));
    s.once('error', reject);
  });
}

/** Everything until EOF; with pauseMs, stops reading that long after each MiB. */
function readAll(s: net.Socket, pauseMs = 0): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let sinceStop = 0;
    s.on('data', (d: Buffer) => {
      parts.push(d);
      sinceStop += d.length;
      if (pauseMs && sinceStop >= 1024 * 1024) {
        sinceStop = 0;
        s.pause();
        setTimeout(() => s.resume(), pauseMs);
      }
    });
    s.once('end', () => resolve(Buffer.concat(parts)));
    s.once('error', reject);
    s.resume();
  });
}

async function readBanner(port: number): Promise<string> {
  const s = await connectLocal(port);
  try {
    return (await readUntil(s, (b) => b.length >= 12)).subarray(0, 12).toString('latin1');
  } finally {
    s.destroy();
  }
}

function echoServer(): Promise<{ port: number; close: () => void }> {
  return new Promise((resolve) => {
    const srv = net.createServer((s) => s.pipe(s)).listen(0, '127.0.0.1', () => {
      resolve({ port: (srv.address() as net.AddressInfo).port, close: () => srv.close() });
    });
  });
}

describe('display tunnels to a real Xvnc through a real sshd', () => {
  let conn: SshConnection;
  let tm: TunnelManager;
  beforeAll(async () => {
    conn = await connectSsh(bedOptions(bed));
    tm = new TunnelManager(conn);
  });
  afterAll(async () => {
    await tm?.closeAll();
    await conn?.close();
  });

  it('reads the RFB 003.008 banner through the tunnel; counters move', async () => {
    const t = await tm.openDisplay(xvnc.display);
    expect(t.remotePort).toBe(5900 + xvnc.display);
    // 5900+n is taken here by Xvnc itself, so the tunnel fell back to a free port.
    expect(t.localPort).not.toBe(5900 + xvnc.display);
    expect(t.localHost).toBe('127.0.0.1');
    expect(await readBanner(t.localPort)).toBe('RFB 003.008\n');
    const st = tm.stats(t.id);
    expect(st.bytesIn).toBeGreaterThanOrEqual(12);
    expect(st.totalConnections).toBe(1);
  });

  it('takes 5900+n when it is free, the asked-for port when given, and refuses a taken one', async () => {
    let n = -1;
    for (let d = 99; d >= 50; d--) if (await isPortFree(5900 + d)) { n = d; break; }
    const t = await tm.openDisplay(n);
    expect(t.localPort).toBe(5900 + n);
    const want = await freePort();
    const t2 = await tm.openDisplay(xvnc.display, { localPort: want });
    expect(t2.localPort).toBe(want);
    const e = await tm.openDisplay(xvnc.display, { localPort: want }).catch((x) => x);
    expect(e).toBeInstanceOf(GpuDeskError);
    expect(e.code).toBe('PORT_TAKEN');
    await expect(tm.openDisplay(100)).rejects.toMatchObject({ code: 'DISPLAY_OUT_OF_RANGE' });
    await tm.close(t.id);
    await tm.close(t2.id);
  });

  it('the listener is unreachable on every non-loopback address of this machine', async () => {
    const t = await tm.openDisplay(xvnc.display);
    const addrs = Object.values(os.networkInterfaces()).flat().filter((a) => a && !a.internal).map((a) => a!.address);
    if (!addrs.length) console.log('this machine has no non-loopback address; only the 127.0.0.1 binding is checked');
    for (const a of addrs) {
      const host = a.includes(':') ? a.split('%')[0] : a;
      const err = await connectLocal(t.localPort, host).then((s) => { s.destroy(); return null; }, (e) => e);
      expect(err, `reachable on ${host}`).not.toBeNull();
    }
    // Another loopback address is not 127.0.0.1 either: the bind is exact.
    const other = await connectLocal(t.localPort, '127.0.0.2').then((s) => { s.destroy(); return null; }, (e) => e);
    expect(other).not.toBeNull();
    await tm.close(t.id);
  });

  it('-L forwards carry bytes both ways, counted', async () => {
    const echo = await echoServer();
    const f = await tm.openForward(`0:127.0.0.1:${echo.port}`);
    const s = await connectLocal(f.localPort);
    s.write('hello through ssh');
    const got = await readUntil(s, (b) => b.length >= 17);
    expect(got.toString()).toBe('hello through ssh');
    s.destroy();
    const st = tm.stats(f.id);
    expect(st.bytesOut).toBe(17);
    expect(st.bytesIn).toBe(17);
    echo.close();
    await tm.close(f.id);
  });

  it("an upload larger than the server's window, then a half-close: the reply still comes back", async () => {
    // Reads until the client's EOF, then answers with what it got (half-close, as `ssh -L` allows).
    const srv = net.createServer({ allowHalfOpen: true }, (s) => {
      const h = createHash('sha256');
      let n = 0;
      s.on('data', (d: Buffer) => { n += d.length; h.update(d); });
      // A reply larger than what the sockets buffer, so it is still in flight when the server closes.
      s.on('end', () => s.end(`${n} ${h.digest('hex')} ${'x'.repeat(16 * 1024 * 1024)}`));
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const f = await tm.openForward(`0:127.0.0.1:${(srv.address() as net.AddressInfo).port}`);
    const s = await connectLocal(f.localPort, '127.0.0.1', true);
    // sshd opens a channel with a 2 MiB window: 8 MiB must wait for window adjusts on the way.
    const body = randomBytes(8 * 1024 * 1024);
    s.end(body);
    // A slow client (about 40 MiB/s): the reply's tail is still queued in the tunnel when the server closes.
    const reply = (await readAll(s, 25)).toString();
    expect(reply.slice(0, 72)).toBe(`${body.length} ${createHash('sha256').update(body).digest('hex')}`);
    expect(reply.length).toBe(72 + 1 + 16 * 1024 * 1024);
    expect(tm.stats(f.id).bytesOut).toBe(body.length);
    srv.close();
    await tm.close(f.id);
  });

  it('a server that sends and closes: a client reading late gets every byte (backpressure, then EOF)', async () => {
    const total = 24 * 1024 * 1024;
    const srv = net.createServer((s) => s.end(randomBytes(total)));
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const f = await tm.openForward(`0:127.0.0.1:${(srv.address() as net.AddressInfo).port}`);
    const s = await connectLocal(f.localPort);
    s.pause();
    // Long enough for the server to finish while the tunnel holds what the stalled client has not read.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await readAll(s)).length).toBe(total);
    expect(tm.stats(f.id).bytesIn).toBe(total);
    srv.close();
    await tm.close(f.id);
  });

  it('a forward to a closed remote port fails that connection with a clear error', async () => {
    const dead = await freePort();
    const f = await tm.openForward(`0:127.0.0.1:${dead}`);
    const errs: GpuDeskError[] = [];
    tm.on('forward-error', (x: { error: GpuDeskError }) => errs.push(x.error));
    const s = await connectLocal(f.localPort);
    await new Promise((r) => s.once('close', r));
    expect(errs[0]?.code).toBe('FORWARD_FAILED');
    await tm.close(f.id);
  });

  it('teardown closes listeners and connections', async () => {
    const t = await tm.openDisplay(xvnc.display);
    const s = await connectLocal(t.localPort);
    await readUntil(s, (b) => b.length >= 12);
    const closed = new Promise((r) => s.once('close', r));
    await tm.closeAll();
    await closed;
    expect(await isPortFree(t.localPort)).toBe(true);
    expect(tm.list()).toEqual([]);
  });
});

describe('reconnect', () => {
  it('sshd killed and restarted → the tunnel comes back on the same local port and carries data', async () => {
    const own = await startSshd();
    const states: ConnectionStateEvent[] = [];
    const conn = await connectSsh(bedOptions(own, { reconnect: { enabled: true, initialDelayMs: 200, maxDelayMs: 1000 }, keepaliveIntervalMs: 1000 }));
    conn.on('state', (e: ConnectionStateEvent) => states.push(e));
    const tm = new TunnelManager(conn);
    const t = await tm.openDisplay(xvnc.display);
    expect(await readBanner(t.localPort)).toBe('RFB 003.008\n');
    await own.kill();
    await new Promise((r) => setTimeout(r, 800));
    expect(conn.state).toBe('reconnecting');
    // A viewer connecting during the outage waits for the link instead of failing.
    const early = connectLocal(t.localPort).then((s) => readUntil(s, (b) => b.length >= 12, 20_000).finally(() => s.destroy()));
    await own.restart();
    expect((await early).subarray(0, 12).toString()).toBe('RFB 003.008\n');
    expect(conn.state).toBe('ready');
    expect(tm.list()[0].localPort).toBe(t.localPort);
    expect(await readBanner(t.localPort)).toBe('RFB 003.008\n');
    expect(states.map((s) => s.state)).toContain('reconnecting');
    expect(states.at(-1)?.state).toBe('ready');
    await tm.closeAll();
    await conn.close();
    expect(states.at(-1)).toMatchObject({ state: 'closed' });
  });
});

/** A TCP relay that can go silent (a dead Wi-Fi or VPN: no RST, just nothing). */
function freezableRelay(targetPort: number): Promise<{ port: number; freeze: () => void; thaw: () => void; close: () => void }> {
  let frozen = false;
  const pairs = new Set<[net.Socket, net.Socket]>();
  const srv = net.createServer((a) => {
    if (frozen) return; // swallow new connections while frozen
    const b = net.connect({ host: '127.0.0.1', port: targetPort });
    const pair: [net.Socket, net.Socket] = [a, b];
    pairs.add(pair);
    a.on('data', (d) => { if (!frozen) b.write(d); });
    b.on('data', (d) => { if (!frozen) a.write(d); });
    const end = () => { a.destroy(); b.destroy(); pairs.delete(pair); };
    a.on('error', end); b.on('error', end); a.on('close', end); b.on('close', end);
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve({
    port: (srv.address() as net.AddressInfo).port,
    freeze: () => { frozen = true; },
    thaw: () => {
      frozen = false;
      // The old path is dead for good, as after a real outage.
      for (const [a, b] of pairs) { a.destroy(); b.destroy(); }
    },
    close: () => { for (const [a, b] of pairs) { a.destroy(); b.destroy(); } srv.close(); },
  })));
}

describe('keepalive', () => {
  it('a silent link (no RST) is detected by keepalive probes and the tunnel comes back after it', async () => {
    const relay = await freezableRelay(bed.port);
    const states: string[] = [];
    const conn = await connectSsh(bedOptions(bed, {
      port: relay.port,
      userKnownHostsFiles: [],
      keepaliveIntervalMs: 300,
      keepaliveCountMax: 2,
      reconnect: { enabled: true, initialDelayMs: 200, maxDelayMs: 500 },
    }));
    conn.on('state', (e: ConnectionStateEvent) => states.push(e.state));
    const tm = new TunnelManager(conn);
    const t = await tm.openDisplay(xvnc.display);
    relay.freeze();
    for (let i = 0; i < 50 && conn.state === 'ready'; i++) await new Promise((r) => setTimeout(r, 100));
    expect(conn.state).toBe('reconnecting');
    relay.thaw();
    await conn.whenReady(15_000);
    expect(await readBanner(t.localPort)).toBe('RFB 003.008\n');
    expect(states).toEqual(expect.arrayContaining(['reconnecting', 'ready']));
    await tm.closeAll();
    await conn.close();
    relay.close();
  });
});
