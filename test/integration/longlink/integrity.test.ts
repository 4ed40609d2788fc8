import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, startSshd, type SshdBed } from '../../bed';
import { startDelayProxy, type DelayProxy } from '../../bed/delayProxy';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { TunnelManager } from '../../../src/core/tunnels/tunnelManager';
import { expectedSha256, fetchAndHash, startPatternService, type PatternService } from './service';

// Through the product's path (connectSsh + TunnelManager) over a link delayed 10 ms each way:
// long enough for the window to auto-tune, short enough to stay affordable on 2 cores.
const GiB = 1024 * 1024 * 1024;
const MiB = 1024 * 1024;

let bed: SshdBed;
let proxy: DelayProxy;
let svc: PatternService;
let conn: SshConnection;
let tunnels: TunnelManager;
let port: number;

beforeAll(async () => {
  bed = await startSshd();
  proxy = await startDelayProxy({ targetPort: bed.port, delayMs: 10 });
  svc = await startPatternService();
  conn = await connectSsh(bedOptions(bed, { port: proxy.port }));
  tunnels = new TunnelManager(conn);
  port = (await tunnels.openForward({ localPort: 0, remoteHost: '127.0.0.1', remotePort: svc.port })).localPort;
});
afterAll(async () => {
  await tunnels?.closeAll();
  await conn?.close();
  await proxy?.stop();
  svc?.close();
  await cleanupAll();
});

describe('long link (10 ms each way): integrity', () => {
  it('1 GiB arrives with the SHA-256 of what the server sent', async () => {
    const got = await fetchAndHash(port, GiB);
    expect(got.bytes).toBe(GiB);
    expect(got.sha256).toBe(expectedSha256(GiB));
    expect(svc.done.find((d) => d.bytes === GiB)?.sha256).toBe(got.sha256);
  }, 600_000);

  it('8 concurrent streams on one connection all complete with correct hashes', async () => {
    const sizes = Array.from({ length: 8 }, (_, i) => 24 * MiB + i * 1_234_567);
    const results = await Promise.all(sizes.map((n) => fetchAndHash(port, n)));
    results.forEach((r, i) => {
      expect(r.bytes).toBe(sizes[i]);
      expect(r.sha256).toBe(expectedSha256(sizes[i]));
    });
    expect(tunnels.list()).toHaveLength(1);
  }, 300_000);

  // The patched ssh2 reuses a read slab once every packet in it went out to a tunnel socket at
  // once; data still queued in a socket or unread in a channel stream must keep its slab.
  it('a stalling tunnel reader and a channel left unread beside a fast one: every byte intact', async () => {
    const ch = await conn.forwardOut('127.0.0.1', svc.port);
    const head = Buffer.alloc(8);
    head.writeBigUInt64BE(BigInt(16 * MiB));
    ch.write(head);
    const [fast, stalling] = await Promise.all([
      fetchAndHash(port, 96 * MiB),
      fetchAndHash(port, 48 * MiB, { every: 4 * MiB, ms: 30 }),
    ]);
    // Only now read the plain channel: what it received meanwhile sat in its buffer.
    const h = createHash('sha256');
    let got = 0;
    ch.on('data', (d: Buffer) => { got += d.length; h.update(d); });
    await new Promise((r) => ch.once('end', r));
    ch.destroy();
    expect(fast.sha256).toBe(expectedSha256(96 * MiB));
    expect(stalling.sha256).toBe(expectedSha256(48 * MiB));
    expect(got).toBe(16 * MiB);
    expect(h.digest('hex')).toBe(expectedSha256(16 * MiB));
  }, 300_000);
});
