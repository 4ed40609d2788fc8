import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeHttp, viewerCommands } from '../../../src/core/app/tunnelInfo';

// forwardOut is the SSH seam; a plain TCP stream to a real local service stands in for the channel.
const direct = { forwardOut: (host: string, port: number) => new Promise<Duplex>((resolve, reject) => {
  const s = net.connect(port, host, () => resolve(s));
  s.once('error', reject);
}) };

let web: http.Server;
let raw: net.Server;
beforeAll(async () => {
  web = http.createServer((_q, r) => r.end('jupyter'));
  raw = net.createServer((s) => s.write('RFB 003.008\n'));
  await Promise.all([new Promise<void>((r) => web.listen(0, '127.0.0.1', () => r())), new Promise<void>((r) => raw.listen(0, '127.0.0.1', () => r()))]);
});
afterAll(() => { web.close(); raw.close(); });

describe('tunnel-only helpers', () => {
  it('tells a web service (open in browser) from a VNC port and from nothing at all', async () => {
    expect(await probeHttp(direct, '127.0.0.1', (web.address() as net.AddressInfo).port)).toBe(true);
    expect(await probeHttp(direct, '127.0.0.1', (raw.address() as net.AddressInfo).port)).toBe(false);
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as net.AddressInfo).port;
    closed.close();
    expect(await probeHttp(direct, '127.0.0.1', port)).toBe(false);
  });

  it('gives each native viewer the host::port form for a raw TCP port', () => {
    expect(viewerCommands('127.0.0.1', 5901)).toEqual({
      turbovnc: '/opt/TurboVNC/bin/vncviewer 127.0.0.1::5901',
      tigervnc: 'vncviewer 127.0.0.1::5901',
      realvnc: 'vncviewer 127.0.0.1::5901',
    });
  });
});
