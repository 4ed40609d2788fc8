import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { cleanupAll, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { ChannelHub } from '../../../src/core/vnc/channelHub';
import { openSpeakingFirst, RFB_38_CLIENT_VERSION } from '../../../src/core/vnc/rfbEarly';
import { waitFor } from '../../helpers/until';

/**
 * The viewer's byte channel over a real SSH channel (sshd on loopback): the path the app uses, where
 * ssh2 hands each packet straight to the channel (its sink) and the channel writes whole WebSocket
 * frames itself. The unit test (test/unit/vnc/channelHub.test.ts) covers the same channel over a
 * plain socket.
 */
const ORIGIN = 'http://127.0.0.1:5555';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let bed: SshdBed;
let conn: SshConnection;
let hub: ChannelHub;
let hubPort: number;
const servers: net.Server[] = [];

beforeAll(async () => {
  bed = await startSshd();
  conn = await connectSsh(bedOptions(bed));
  hub = new ChannelHub({ allowedOrigins: () => [ORIGIN] });
  hubPort = await hub.listen();
});
afterAll(async () => {
  await hub?.close();
  await conn?.close();
  for (const s of servers) s.close();
  await cleanupAll();
});

/** A service on the server's side: `onConn` gets each accepted socket. */
async function service(onConn: (s: net.Socket) => void): Promise<number> {
  const srv = net.createServer(onConn);
  servers.push(srv);
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  return (srv.address() as net.AddressInfo).port;
}

function openViewer(path: string): Promise<{ ws: WebSocket; msgs: Buffer[]; got: () => number }> {
  const msgs: Buffer[] = [];
  let n = 0;
  const ws = new WebSocket(`ws://127.0.0.1:${hubPort}${path}`, { origin: ORIGIN });
  ws.on('message', (d: Buffer) => {
    msgs.push(d);
    n += d.length;
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, msgs, got: () => n }));
    ws.once('error', reject);
  });
}

describe('the viewer channel over a real SSH channel', () => {
  it('the tunnel stream is an ssh2 channel with the sink path (else this test would not cover it)', async () => {
    const port = await service((s) => s.end());
    const ch = await conn.forwardOut('127.0.0.1', port);
    expect(typeof (ch as unknown as { setSink?: unknown }).setSink).toBe('function');
    ch.destroy();
  });

  it('carries 24 MiB of server bytes in order, in fewer messages than SSH packets, and the viewer\'s bytes back', async () => {
    const data = randomBytes(24 << 20);
    let fromViewer = Buffer.alloc(0);
    const port = await service((s) => {
      s.on('data', (d: Buffer) => { fromViewer = Buffer.concat([fromViewer, d]); });
      // Uneven writes, as a VNC server's rectangles are.
      for (let off = 0, i = 0; off < data.length; i++) {
        const n = Math.min(data.length - off, 1000 + ((i * 7919) % 90_000));
        s.write(data.subarray(off, off + n));
        off += n;
      }
    });
    const t = hub.register(() => conn.forwardOut('127.0.0.1', port));
    const v = await openViewer(t.path);
    v.ws.send(Buffer.from('hello from the page'));
    await waitFor(() => v.got() >= data.length, 'all bytes at the page');
    expect(sha(Buffer.concat(v.msgs))).toBe(sha(data));
    // SSH carries at most 32 KiB a packet: coalescing means fewer, larger messages.
    expect(v.msgs.length).toBeLessThan(data.length / 32768);
    await waitFor(() => fromViewer.length >= 19, 'the page\'s bytes at the service');
    expect(fromViewer.toString()).toBe('hello from the page');
    expect(t.counters.bytesIn).toBe(data.length);
    v.ws.close();
  });

  it('a page that stops reading stops the server (SSH window) and gets every byte once it reads again', async () => {
    const total = 160 << 20;
    let written = 0;
    let sender: net.Socket | null = null;
    const chunk = randomBytes(256 * 1024);
    const port = await service((s) => {
      sender = s;
      const pump = () => {
        while (written < total) {
          written += chunk.length;
          if (!s.write(chunk)) return void s.once('drain', pump);
        }
      };
      pump();
    });
    const t = hub.register(() => conn.forwardOut('127.0.0.1', port));
    const v = await openViewer(t.path);
    const raw = (v.ws as unknown as { _socket: net.Socket })._socket;
    await waitFor(() => v.got() > 0, 'the first bytes');
    raw.pause();
    // The sender stalls: no more is written for a while, well before the whole transfer.
    let last = -1;
    let still = 0;
    await waitFor(() => {
      still = written === last ? still + 1 : 0;
      last = written;
      return still >= 25;
    }, 'the service\'s writes to stall');
    expect(written).toBeLessThan(total);
    expect(sender).not.toBeNull();
    raw.resume();
    await waitFor(() => v.got() >= total, 'every byte after resuming');
    expect(v.got()).toBe(total);
    const got = Buffer.concat(v.msgs);
    for (let off = 0; off < total; off += chunk.length) {
      if (!got.subarray(off, off + chunk.length).equals(chunk)) throw new Error(`bytes differ at ${off}`);
    }
    v.ws.close();
  });

  it('an eager TurboVNC-style ticket over SSH: greeting first, the rest only after the page\'s answer, the answer dropped', async () => {
    let got = Buffer.alloc(0);
    const port = await service((s) => {
      s.write('RFB 003.008\n');
      s.write(Buffer.from('security types'));
      s.on('data', (d: Buffer) => { got = Buffer.concat([got, d]); });
    });
    const t = hub.register(() => openSpeakingFirst(() => conn.forwardOut('127.0.0.1', port)), { eager: true, sentForViewer: RFB_38_CLIENT_VERSION });
    const v = await openViewer(t.path);
    await waitFor(() => v.msgs.length >= 1, 'the greeting');
    expect(v.msgs[0].toString()).toBe('RFB 003.008\n');
    // Nothing past the greeting until the page has answered.
    await waitFor(() => got.length >= 12, 'gpu-desk\'s early answer at the server');
    expect(v.msgs.length).toBe(1);
    v.ws.send(RFB_38_CLIENT_VERSION);
    v.ws.send(Buffer.from([1]));
    await waitFor(() => Buffer.concat(v.msgs).length >= 12 + 14, 'the rest');
    expect(Buffer.concat(v.msgs).toString()).toBe('RFB 003.008\nsecurity types');
    await waitFor(() => got.length >= 13, 'the page\'s next byte at the server');
    // The server saw gpu-desk's answer once, then the page's next byte: the page's copy was dropped.
    expect(got).toEqual(Buffer.concat([RFB_38_CLIENT_VERSION, Buffer.from([1])]));
    v.ws.close();
  });
});
