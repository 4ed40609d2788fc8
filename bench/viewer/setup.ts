/** What bench:viewer and bench/viewer/profile.ts share: the app's set-up against the bed, and the profile they connect with. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanupAll, startSshd, type SshdBed, type SshdOptions } from '../../test/bed';
import { startHarness } from '../../src/harness/server';
import type { ProfileInput } from '../../src/shared/contract';

export const QUALITY = 6;
export const COMPRESSION = 2;

export interface ViewerBed {
  /** The app's private GPU_DESK_HOME; its known_hosts already names the bed's sshd. */
  home: string;
  bed: SshdBed;
  harness: Awaited<ReturnType<typeof startHarness>>;
  /** Closes the harness, the bed and the home. */
  close(): Promise<void>;
}

export async function startViewerBed(prefix: string, sshd: SshdOptions = {}): Promise<ViewerBed> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  process.env.GPU_DESK_HOME = home;
  const bed = await startSshd(sshd);
  fs.writeFileSync(path.join(home, 'known_hosts'), `${bed.knownHostsLine}\n`);
  const harness = await startHarness({ log: process.env.GD_BENCH_LOG === '1' ? (s: string) => process.stderr.write(`harness: ${s}\n`) : () => {}, deps: { sshConfigPath: null, userKnownHostsFiles: [] } });
  return {
    home,
    bed,
    harness,
    close: async () => {
      await harness.close();
      await cleanupAll();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

/** A key-file profile for display `display` via 127.0.0.1:`port`, Tight at the bench's quality and compression. */
export function benchProfile(name: string, port: number, user: string, keyPath: string, display: number, viewer: Partial<ProfileInput['viewer']> = {}): Omit<ProfileInput, 'id'> {
  return {
    name, host: '127.0.0.1', port, user, jumpHosts: [], auth: { kind: 'key-file', path: keyPath },
    display: { number: display },
    viewer: { quality: QUALITY, compression: COMPRESSION, encodings: ['tight'], scaling: 'off', adaptive: false, ...viewer },
    forwards: [],
  };
}
