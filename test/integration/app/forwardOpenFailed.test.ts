/**
 * Issue 43: in tunnel-only mode an extra forward whose far end refuses closed the program that
 * connected and told nobody why. Now the app says what `ssh -L` and `gpu-desk tunnel` print ("open
 * failed: … Connection refused"), on the tunnel's screen and in the Forwards panel, and drops it once
 * a connection through the forward opens (the app's own HTTP check of a forward is such a connection
 * too). Through the app's handlers against the real sshd and a real
 * TurboVNC desktop: a port on the server's side with nothing listening, then a service started there.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, registerCleanup, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import type { AppCore } from '../../../src/core/app/createAppCore';
import { appCoreOnBed } from '../../helpers/appCore';
import { connectSsh } from '../../../src/core/ssh/connection';
import { killSession, startSession } from '../../../src/core/remote/vncSessions';
import type { Handlers } from '../../../src/shared/contract';
import type { ForwardView, TunnelView } from '../../../src/shared/models';
import { until } from '../../helpers/until';

let bed: SshdBed;
let display: number;
let core: AppCore;
let h: Handlers;
let cid: string;
const tunnelEvents: TunnelView[][] = [];
const forwardEvents: ForwardView[][] = [];

beforeAll(async () => {
  bed = await startSshd();
  const shell = await connectSsh(bedOptions(bed));
  display = (await startSession(shell, { geometry: '640x480', windowManager: '/usr/bin/xterm' })).display;
  await shell.close();
  registerCleanup(async () => {
    const s = await connectSsh(bedOptions(bed));
    await killSession(s, display).catch(() => {});
    await s.close();
  });
  ({ core } = appCoreOnBed({
    prefix: 'gd-app-fwd-refused-',
    emit: (event, payload) => {
      if (event === 'tunnels.changed') tunnelEvents.push(payload as TunnelView[]);
      if (event === 'forwards.changed') forwardEvents.push(payload as ForwardView[]);
    },
  }));
  h = core.handlers();
  const p = await h['profiles.save']({
    profile: {
      name: 'refused', host: '127.0.0.1', port: bed.port, user: bed.user, jumpHosts: [], auth: { kind: 'key-file', path: bed.userKeyPath },
      display: {}, viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'fit', adaptive: false }, forwards: [],
    },
  });
  cid = (await h['connections.open']({ profileId: p.id })).id;
}, 120_000);
afterAll(cleanupAll);

/** A port on the server's side (this machine) that nothing listens on; `serve` starts a service on it. */
async function quietPort(): Promise<{ port: number; serve: () => Promise<void> }> {
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  return {
    port,
    serve: async () => {
      const svc = net.createServer((s) => s.end('hello\n'));
      await new Promise<void>((resolve, reject) => svc.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
      registerCleanup(() => new Promise<void>((r) => svc.close(() => r())));
    },
  };
}

/** Connects to the forward on the desk and reads until it closes: what the program got. */
function connectThrough(localPort: number): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const s = net.connect({ host: '127.0.0.1', port: localPort });
    s.on('data', (d) => (got += d));
    s.on('error', () => {});
    s.on('close', () => resolve(got));
  });
}

const refusedLine = (port: number) => new RegExp(`^The server could not open 127\\.0\\.0\\.1:${port} \\(.*refused.*\\)$`, 'i');

describe('an extra forward whose far end refuses', () => {
  it('tunnel-only mode: the tunnel\'s view says the open failed and why, until a connection opens', async () => {
    const { port, serve } = await quietPort();
    const tunnel = await h['tunnels.open']({ connectionId: cid, display, forwards: [{ kind: 'local', localPort: 0, remoteHost: '127.0.0.1', remotePort: port }] });
    const local = tunnel.forwards[0].localPort;

    expect(await connectThrough(local)).toBe('');
    const failed = await until(() => tunnelEvents.at(-1)?.find((t) => t.id === tunnel.id)?.forwards[0].openFailed, (f) => f !== undefined, 'a tunnels.changed event with the refusal');
    expect(failed).toMatchObject({ code: 'FORWARD_FAILED', message: expect.stringMatching(refusedLine(port)), fix: expect.stringMatching(/a program listens/) });
    expect((await h['tunnels.list']({})).find((t) => t.id === tunnel.id)?.forwards[0].openFailed).toEqual(failed);

    await serve();
    expect(await connectThrough(local)).toBe('hello\n');
    await until(() => tunnelEvents.at(-1)?.find((t) => t.id === tunnel.id)?.forwards[0], (f) => f !== undefined && f.openFailed === undefined, 'the refusal gone once a connection opened');
    await h['tunnels.close']({ tunnelId: tunnel.id });
  });

  it('the Forwards panel\'s forward says the same', async () => {
    const { port } = await quietPort();
    const [fw] = await h['forwards.open']({ connectionId: cid, forwards: [{ kind: 'local', localPort: 0, remoteHost: '127.0.0.1', remotePort: port }] });
    // The panel's own HTTP check may be the first to be refused: either way the line is there.
    expect(await connectThrough(fw.localPort)).toBe('');
    const failed = await until(() => forwardEvents.at(-1)?.find((f) => f.id === fw.id)?.openFailed, (f) => f !== undefined, 'a forwards.changed event with the refusal');
    expect(failed).toMatchObject({ code: 'FORWARD_FAILED', message: expect.stringMatching(refusedLine(port)) });
    await h['forwards.close']({ forwardId: fw.id });
  });
});
