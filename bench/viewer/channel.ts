import net from 'node:net';
import WebSocket from 'ws';
import { ChannelHub } from '../../src/core/vnc/channelHub';

/**
 * The viewer's byte channel measured on its own (no SSH): an echo service reached directly over TCP
 * and through the token-guarded loopback WebSocket, 64-byte round trips and bulk throughput.
 */
export async function measureChannel(): Promise<{ directRttUs: number; channelRttUs: number; directMiBs: number; channelMiBs: number }> {
  const BULK = 256 << 20;
  const echo = net.createServer((s) => {
    s.setNoDelay(true);
    s.on('data', (d) => {
      if (d.length === 4 && d.toString() === 'bulk') {
        const chunk = Buffer.alloc(64 << 10, 7);
        let sent = 0;
        const pump = () => {
          while (sent < BULK) {
            sent += chunk.length;
            if (!s.write(chunk)) return void s.once('drain', pump);
          }
        };
        pump();
      } else s.write(d);
    });
  });
  await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
  const port = (echo.address() as net.AddressInfo).port;
  const origin = 'http://127.0.0.1:1';
  const hub = new ChannelHub({ allowedOrigins: () => [origin] });
  const hubPort = await hub.listen();
  const open = () => new Promise<net.Socket>((resolve) => { const s = net.connect(port, '127.0.0.1', () => resolve(s)); s.setNoDelay(true); });

  const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1];
  const ping = Buffer.alloc(64, 1);

  // Direct TCP.
  const tcp = await open();
  const tcpRtt: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t = process.hrtime.bigint();
    await new Promise<void>((r) => { tcp.once('data', () => r()); tcp.write(ping); });
    tcpRtt.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  let got = 0;
  let t0 = process.hrtime.bigint();
  await new Promise<void>((r) => { tcp.on('data', (d) => { got += d.length; if (got >= BULK) r(); }); tcp.write('bulk'); });
  const directMiBs = BULK / 2 ** 20 / (Number(process.hrtime.bigint() - t0) / 1e9);
  tcp.destroy();

  // Through the channel.
  const ticket = hub.register(open);
  const ws = new WebSocket(`ws://127.0.0.1:${hubPort}${ticket.path}`, { origin });
  await new Promise((r) => ws.once('open', r));
  const wsRtt: number[] = [];
  for (let i = 0; i < 2000; i++) {
    const t = process.hrtime.bigint();
    await new Promise<void>((r) => { ws.once('message', () => r()); ws.send(ping); });
    wsRtt.push(Number(process.hrtime.bigint() - t) / 1000);
  }
  got = 0;
  t0 = process.hrtime.bigint();
  await new Promise<void>((r) => { ws.on('message', (d: Buffer) => { got += d.length; if (got >= BULK) r(); }); ws.send(Buffer.from('bulk')); });
  const channelMiBs = BULK / 2 ** 20 / (Number(process.hrtime.bigint() - t0) / 1e9);
  ws.terminate();
  await hub.close();
  echo.close();
  return { directRttUs: median(tcpRtt), channelRttUs: median(wsRtt), directMiBs, channelMiBs };
}
