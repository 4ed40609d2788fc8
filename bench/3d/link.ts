import fs from 'node:fs';
import path from 'node:path';
import type { SshdBed } from '../../test/bed';
import { startProxy, type Proc } from '../tunnel/procs';

/** bench:3d's link: a campus network to a machine room (docs/bench-3d.md). */
export const SHAPED_LINK = {
  rateMbit: 100,
  delayMs: 5,
  /** The bottleneck's buffer per direction: about 80 ms at 100 Mbit/s, a switch's order, not a bufferbloated modem's. */
  bufferBytes: 1024 * 1024,
};

/**
 * The delaying, rate-limiting proxy in front of the bed's sshd, its address trusted in the desk's
 * known_hosts under `home` (gpu-desk checks host keys like OpenSSH: the proxy's address is a host of its own).
 */
export async function startShapedLink(bed: SshdBed, home: string, wrap: string[] = []): Promise<Proc> {
  const proc = await startProxy(bed.port, SHAPED_LINK.delayMs, { rateBytesPerSec: (SHAPED_LINK.rateMbit * 1e6) / 8, maxQueuedBytes: SHAPED_LINK.bufferBytes }, wrap);
  fs.appendFileSync(path.join(home, 'known_hosts'), `[127.0.0.1]:${proc.port} ${bed.knownHostsLine.split(' ').slice(1).join(' ')}\n`);
  return proc;
}
