/**
 * Issue 41 §3: a connection owns what the services open for it. Through the app's handlers against
 * the real sshd and a real TurboVNC desktop: a display tunnel, a viewer, a video stream (ffmpeg on
 * the server), an SFTP session with an upload in flight and a forward are opened; the connection is
 * closed (and, in the second test, closed while its link is down), and nothing is left: no listener
 * on the desk, no hub channel, no process the app started on the server, nothing a handler still
 * knows. The cluster's job-node link is closed with its login connection in the cluster app test
 * (test/integration/cluster/app.test.ts), where the Slurm bed already runs.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, registerCleanup, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import type { AppCore } from '../../../src/core/app/createAppCore';
import { appCoreOnBed } from '../../helpers/appCore';
import { connectSsh } from '../../../src/core/ssh/connection';
import { killSession, startSession } from '../../../src/core/remote/vncSessions';
import { ChannelHub, type ChannelOpenOptions, type ChannelTicket } from '../../../src/core/vnc/channelHub';
import type { Handlers } from '../../../src/shared/contract';
import { until } from '../../helpers/until';
import { processesUnderSshd } from '../../helpers/sshdProcesses';

/** The hub, counting the channels the app registers and revokes. */
class CountingHub extends ChannelHub {
  readonly registered = new Set<string>();
  readonly revoked = new Set<string>();
  override register(open: () => Promise<Duplex>, opts?: ChannelOpenOptions): ChannelTicket {
    const t = super.register(open, opts);
    this.registered.add(t.id);
    return t;
  }
  override revoke(id: string): void {
    this.revoked.add(id);
    super.revoke(id);
  }
  /** Registered and never revoked. */
  left(): string[] {
    return [...this.registered].filter((id) => !this.revoked.has(id));
  }
}

let bed: SshdBed;
let display: number;
let hub: CountingHub;
let core: AppCore;
let h: Handlers;
let webPort: number;

beforeAll(async () => {
  bed = await startSshd();
  const shell = await connectSsh(bedOptions(bed));
  // The desktop is started beside the app (not through it): it is the server's, and stays when the app's connection goes.
  display = (await startSession(shell, { geometry: '640x480', windowManager: '/usr/bin/xterm' })).display;
  // Closed at once: only the app's connection is left under this sshd to count.
  await shell.close();
  registerCleanup(async () => {
    const s = await connectSsh(bedOptions(bed));
    await killSession(s, display).catch(() => {});
    await s.close();
  });
  const web = http.createServer((_q, r) => r.end('jupyter-ish'));
  await new Promise<void>((r) => web.listen(0, '127.0.0.1', () => r()));
  webPort = (web.address() as net.AddressInfo).port;
  registerCleanup(() => new Promise<void>((r) => web.close(() => r())));
  hub = new CountingHub({ allowedOrigins: () => [] });
  await hub.listen();
  ({ core } = appCoreOnBed({ prefix: 'gd-app-scope-', hub }));
  h = core.handlers();
}, 120_000);
afterAll(cleanupAll);

/** What the app's connection runs on the server (see processesUnderSshd). */
const serverProcesses = () => processesUnderSshd(bed);

/** Encoders of this test's display, wherever they run (one orphaned by a dropped link is not under sshd any more). */
function encoders(): Promise<string[]> {
  return new Promise((resolve) => {
    execFile('pgrep', ['-u', bed.user, '-a', 'ffmpeg'], (_err, stdout) => resolve(stdout.split('\n').filter((l) => l.includes('x11grab') && l.includes(`:${display}`))));
  });
}

/** Whether something listens on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });
}

interface Opened { cid: string; ports: number[]; viewerId: string; uploadId: string }

/** One of each per-connection resource, each checked to be really open. */
async function openEverything(name: string): Promise<Opened> {
  const p = await h['profiles.save']({
    profile: {
      name, host: '127.0.0.1', port: bed.port, user: bed.user, jumpHosts: [], auth: { kind: 'key-file', path: bed.userKeyPath },
      display: {}, viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'fit', adaptive: false }, forwards: [],
    },
  });
  const cid = (await h['connections.open']({ profileId: p.id })).id;
  const tunnel = await h['tunnels.open']({ connectionId: cid, display, forwards: [{ kind: 'local', localPort: 0, remoteHost: '127.0.0.1', remotePort: webPort }] });
  const [forward] = await h['forwards.open']({ connectionId: cid, forwards: [{ kind: 'local', localPort: 0, remoteHost: '127.0.0.1', remotePort: webPort }] });
  expect(forward.http).toBe('yes');
  const viewer = await h['viewer.open']({ connectionId: cid, display });
  await h['viewer.videoStart']({ viewerId: viewer.viewerId, width: 640, height: 480, fps: 10, bitrateKbps: 500 });
  const listing = await h['files.list']({ connectionId: cid });
  const upload = await h['files.uploadStart']({ connectionId: cid, folder: listing.path, name: `gd-scope-${process.pid}-${name}.bin`, size: 1024, overwrite: true });
  await h['files.uploadChunk']({ uploadId: upload.uploadId, offset: 0, data: Buffer.alloc(512).toString('base64') });
  const ports = [tunnel.localPort, ...tunnel.forwards.map((f) => f.localPort), forward.localPort];
  for (const port of ports) expect(await listening(port)).toBe(true);
  expect((await h['tunnels.list']({})).map((t) => t.connectionId)).toEqual([cid]);
  // The bed's sshd serves SFTP in-process (internal-sftp); a server's sftp-server would show the same way.
  await until(serverProcesses, (ps) => ps.some((a) => a.includes('sftp')), 'the SFTP session on the server');
  await until(encoders, (e) => e.length === 1, 'the video encoder on the server');
  expect(hub.left().length).toBeGreaterThanOrEqual(2);
  return { cid, ports, viewerId: viewer.viewerId, uploadId: upload.uploadId };
}

/** Nothing left of the connection, on the desk or on the server. */
async function nothingLeft(o: Opened): Promise<void> {
  for (const port of o.ports) expect(await listening(port), `127.0.0.1:${port} is closed`).toBe(false);
  expect(hub.left()).toEqual([]);
  await until(serverProcesses, (ps) => ps.length === 0, 'no process of the app\'s connection left on the server');
  await until(encoders, (e) => e.length === 0, 'no video encoder of the display left on the server');
  expect(await h['connections.list']({})).toEqual([]);
  expect(await h['tunnels.list']({})).toEqual([]);
  expect(await h['forwards.list']({})).toEqual([]);
  await expect(h['viewer.password']({ viewerId: o.viewerId })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
  await expect(h['files.uploadChunk']({ uploadId: o.uploadId, offset: 512, data: 'AA==' })).rejects.toMatchObject({ code: 'BAD_ARGUMENT' });
  await expect(h['files.list']({ connectionId: o.cid })).rejects.toMatchObject({ code: 'NOT_CONNECTED' });
}

describe('a connection owns what the services open for it', () => {
  it('closing it leaves no tunnel, forward, viewer, video stream, SFTP session or upload, on the desk or on the server', async () => {
    const o = await openEverything('closed');
    await h['connections.close']({ connectionId: o.cid });
    await nothingLeft(o);
  });

  it('closing it while its link is down (sshd killed, reconnecting) leaves nothing either', async () => {
    const o = await openEverything('dropped');
    await bed.kill();
    await until(() => h['connections.list']({}), (cs) => cs.find((c) => c.id === o.cid)?.state === 'reconnecting', 'reconnecting');
    await h['connections.close']({ connectionId: o.cid });
    await bed.restart();
    await nothingLeft(o);
  });
});
