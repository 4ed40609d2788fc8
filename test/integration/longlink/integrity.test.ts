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
});
