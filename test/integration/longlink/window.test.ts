import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { Client, type ClientChannel, type ConnectConfig } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, startSshd, type SshdBed } from '../../bed';
import { startDelayProxy, type DelayProxy } from '../../bed/delayProxy';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh } from '../../../src/core/ssh/connection';
import { CHANNEL_WINDOW, CHANNEL_WINDOW_MAX, sshTransportOptions } from '../../../src/core/ssh/algorithms';
import { joinStreams } from '../../../src/core/tunnels/pipe';
import { request, startPatternService, type PatternService } from './service';

/** Bytes in the kernel queues (Recv-Q + Send-Q) of established loopback TCP sockets on either end of these ports. */
function kernelQueued(ports: number[]): number {
  const filter = ports.map((p) => `sport = :${p} or dport = :${p}`).join(' or ');
  const out = execFileSync('ss', ['-tnH', 'state', 'established', `( ${filter} )`]).toString();
  let total = 0;
  for (const line of out.trim().split('\n')) {
    const [recvQ, sendQ] = line.trim().split(/\s+/);
    if (recvQ !== undefined && sendQ !== undefined) total += Number(recvQ) + Number(sendQ);
  }
  return total;
}

const MiB = 1024 * 1024;
// Long enough that 2 MiB per round trip (~17 MiB/s) is the limit even on a busy machine, so the window must grow.
const DELAY_MS = 60;

/** The patch's per-channel state (patches/ssh2+1.17.0.patch), read to check its promises. */
interface WindowState { target: number; max: number; granted: number; rtt: number }
const win = (ch: Duplex) => (ch as unknown as { _win?: WindowState })._win;
const incoming = (ch: Duplex) => (ch as unknown as { incoming: { window: number } }).incoming.window;

let bed: SshdBed;
let proxy: DelayProxy;
let svc: PatternService;

beforeAll(async () => {
  bed = await startSshd();
  proxy = await startDelayProxy({ targetPort: bed.port, delayMs: DELAY_MS });
  svc = await startPatternService();
});
afterAll(async () => {
  await proxy?.stop();
  svc?.close();
  await cleanupAll();
});

function rawClient(extra: Partial<ConnectConfig> & Record<string, unknown>): Promise<Client> {
  return new Promise((resolve, reject) => {
    const c = new Client();
    c.once('ready', () => resolve(c)).once('error', reject);
    c.connect({ host: '127.0.0.1', port: proxy.port, username: bed.user, privateKey: fs.readFileSync(bed.userKeyPath), ...extra });
  });
}

function forward(c: Client): Promise<ClientChannel> {
  return new Promise((resolve, reject) =>
    c.forwardOut('127.0.0.1', 0, '127.0.0.1', svc.port, (err, ch) => (err ? reject(err) : resolve(ch))),
  );
}

/** Reads `bytes` from a channel as fast as possible. */
async function drain(ch: Duplex, bytes: number): Promise<void> {
  request(ch as unknown as net.Socket, bytes);
  await new Promise<void>((resolve, reject) => {
    ch.on('data', () => {});
    ch.once('end', resolve).once('error', reject);
  });
}

describe('ssh2 receive-window patch', () => {
  it('is applied: the options are validated and a fast reader on a delayed link grows the window toward the ceiling', async () => {
    expect(() => new Client().connect({ host: '127.0.0.1', port: 1, username: 'x', channelWindowMax: 1024 } as ConnectConfig)).toThrow(/Invalid channelWindowMax/);

    const c = await rawClient({ channelWindow: 2 * MiB, channelWindowMax: 24 * MiB });
    try {
      const ch = await forward(c);
      expect(win(ch)).toMatchObject({ target: 2 * MiB, max: 24 * MiB });
      await drain(ch, 96 * MiB);
      const w = win(ch)!;
      expect(w.target).toBeGreaterThan(2 * MiB);
      expect(w.target).toBeLessThanOrEqual(24 * MiB);
      // The round trip it measured includes the proxy's 2 × DELAY_MS.
      expect(w.rtt).toBeGreaterThanOrEqual(2 * DELAY_MS - 1);
      // Per-channel ceiling: lowering it caps the target at once; nonsense is refused.
      const setMax = (n: number) => (ch as unknown as { setWindowMax(n: number): void }).setWindowMax(n);
      setMax(3 * MiB);
      expect(win(ch)).toMatchObject({ max: 3 * MiB });
      expect(win(ch)!.target).toBeLessThanOrEqual(3 * MiB);
      expect(() => setMax(100)).toThrow(/Invalid window size/);
    } finally {
      c.end();
    }
  });

  it('keeps the historical fixed 2 MiB window when the options are absent', async () => {
    const c = await rawClient({});
    try {
      const ch = await forward(c);
      await drain(ch, 32 * MiB);
      expect(win(ch)).toMatchObject({ target: 2 * MiB, max: 2 * MiB });
    } finally {
      c.end();
    }
  });

  it('reaches the product: connectSsh channels carry sshTransportOptions() window settings', async () => {
    expect(sshTransportOptions()).toMatchObject({ channelWindow: CHANNEL_WINDOW, channelWindowMax: CHANNEL_WINDOW_MAX });
    const conn = await connectSsh(bedOptions(bed, { port: proxy.port }));
    try {
      const ch = await conn.forwardOut('127.0.0.1', svc.port);
      expect(win(ch)).toMatchObject({ target: CHANNEL_WINDOW, max: CHANNEL_WINDOW_MAX });
      ch.destroy();
    } finally {
      await conn.close();
    }
  });
});

describe('backpressure: a slow reader keeps the tunnel process bounded', () => {
  it('after a fast start, a stalled then 1 MiB/s reader holds at most the window in the app and stops the sender', async () => {
    const conn = await connectSsh(bedOptions(bed, { port: proxy.port }));
    const server = net.createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      const ch = await conn.forwardOut('127.0.0.1', svc.port);
      const accepted = new Promise<net.Socket>((r) => server.once('connection', r));
      const reader = net.connect({ host: '127.0.0.1', port: (server.address() as net.AddressInfo).port });
      const local = await accepted;
      // The product's hot path between a viewer's socket and its channel.
      joinStreams(local, ch, { bytesIn: 0, bytesOut: 0 }, () => {});
      const sentAtStart = svc.sent;
      request(reader, 2 ** 40);

      let consumed = 0;
      let worstHeld = 0;
      let worstOutstanding = 0;
      let ceiling = 0;
      const sample = () => {
        const w = win(ch)!;
        ceiling = w.max;
        // Bytes this process holds for the stream: unread channel data + what the sink (the
        // socket's writer) has not handed to the kernel yet.
        const sink = (ch as unknown as { _sink?: { buffered(): number } })._sink;
        worstHeld = Math.max(worstHeld, ch.readableLength + (sink ? sink.buffered() : local.writableLength));
        // The patch's invariant: granted-but-unreceived + buffered never exceeds the ceiling.
        worstOutstanding = Math.max(worstOutstanding, incoming(ch) + ch.readableLength - w.max);
      };
      const sampler = setInterval(sample, 10);

      // Fast start: the window grows (a viewer's first full frames).
      await new Promise<void>((resolve) => {
        const onData = (d: Buffer) => {
          consumed += d.length;
          if (consumed >= 64 * MiB) { reader.pause(); reader.off('data', onData); resolve(); }
        };
        reader.on('data', onData);
      });
      const grown = win(ch)!.target;

      // Stalled reader: what is in flight lands and the kernel queues on both sides fill (up to
      // 32 + 4 MiB each way here, slower on a loaded machine), then nothing moves. A scheduler pause
      // can make a filling queue look still for a moment, so no single quiet spell is trusted: the
      // sender must, within 20 s, go one whole second sending less than 1 MiB (a sender the tunnel
      // does not hold back keeps sending all the while). The last such second is what is judged.
      const stallStart = Date.now();
      let sentDuringStall = Number.POSITIVE_INFINITY;
      while (Date.now() - stallStart < 20_000) {
        const sentBefore = svc.sent;
        await new Promise((r) => setTimeout(r, 1000));
        sentDuringStall = svc.sent - sentBefore;
        if (Date.now() - stallStart >= 1500 && sentDuringStall < 1 * MiB) break;
      }

      // 1 MiB/s reader for 3 s.
      const consumedBeforeSlow = consumed;
      // Bytes that arrived on the channel, at the SSH level (sshd's own buffers hide it from svc.sent).
      const received = () => win(ch)!.granted - incoming(ch);
      const receivedBeforeSlow = received();
      reader.on('data', (d: Buffer) => {
        consumed += d.length;
        reader.pause();
        setTimeout(() => reader.resume(), (d.length / MiB) * 1000);
      });
      reader.resume();
      await new Promise((r) => setTimeout(r, 3000));
      // The sender resumes once the reader has drained what the app holds below the (shrunk) target:
      // at 1 MiB/s up to the ceiling's worth of seconds, longer on a loaded machine. So wait while
      // the reader still makes progress; a sender that never resumes leaves the reader with
      // nothing to read, and the wait ends 2 s later.
      let lastConsumed = consumed;
      let lastProgress = Date.now();
      while (received() === receivedBeforeSlow && Date.now() - lastProgress < 2000 && consumed - consumedBeforeSlow < 4 * CHANNEL_WINDOW_MAX) {
        await new Promise((r) => setTimeout(r, 250));
        if (consumed !== lastConsumed) {
          lastConsumed = consumed;
          lastProgress = Date.now();
        }
      }
      clearInterval(sampler);
      sample();

      expect(ceiling).toBe(CHANNEL_WINDOW_MAX);
      expect(grown).toBeGreaterThan(CHANNEL_WINDOW);
      expect(worstOutstanding).toBeLessThanOrEqual(0);
      expect(worstHeld).toBeLessThanOrEqual(CHANNEL_WINDOW_MAX + 64 * 1024);
      expect(sentDuringStall).toBeLessThan(1 * MiB);
      // …and sends again once the reader reads: window is re-granted as buffered data is consumed.
      expect(consumed - consumedBeforeSlow).toBeGreaterThan(MiB);
      expect(received() - receivedBeforeSlow).toBeGreaterThan(0);
      // Sent but not consumed: the window plus what sits in kernel socket queues outside it, never the
      // stream. The queues (service → sshd, tunnel socket → reader) are the kernel's autotuning (up to
      // tcp_rmem/tcp_wmem max, 32 + 4 MiB each way here), so they are read with ss, not guessed.
      const notConsumed = svc.sent - sentAtStart - consumed;
      const queued = kernelQueued([svc.port, (server.address() as net.AddressInfo).port]);
      expect(notConsumed - queued).toBeLessThan(CHANNEL_WINDOW_MAX + 4 * MiB);
      reader.destroy();
    } finally {
      server.close();
      await conn.close();
    }
  }, 180_000);
});
