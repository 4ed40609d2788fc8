import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { viewerCommands } from '../../../src/core/app/tunnelInfo';
import { speaksHttp } from '../../../src/core/tunnels/httpCheck';

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
    // A forward's local port stands in for the listener → SSH channel → service path.
    expect(await speaksHttp((web.address() as net.AddressInfo).port)).toBe(true);
    expect(await speaksHttp((raw.address() as net.AddressInfo).port, 1500)).toBe(false);
    const closed = net.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as net.AddressInfo).port;
    closed.close();
    expect(await speaksHttp(port)).toBe(false);
  });

  it('gives each native viewer the host::port form for a raw TCP port', () => {
    expect(viewerCommands('127.0.0.1', 5901)).toEqual({
      turbovnc: '/opt/TurboVNC/bin/vncviewer 127.0.0.1::5901',
      tigervnc: 'vncviewer 127.0.0.1::5901',
      realvnc: 'vncviewer 127.0.0.1::5901',
    });
  });
});
