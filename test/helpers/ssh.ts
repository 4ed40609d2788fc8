import fs from 'node:fs';
import path from 'node:path';
import type { SshdBed } from '../bed';
import { makeTempDir } from '../bed';
import type { ConnectOptions } from '../../src/core/ssh/types';

/** Options that connect to a bed sshd with its key and isolated known-hosts files (nothing from ~/.ssh). */
export function bedOptions(bed: SshdBed, extra: Partial<ConnectOptions> = {}): ConnectOptions {
  const dir = makeTempDir('gd-client-');
  return {
    destination: `${bed.user}@127.0.0.1`,
    port: bed.port,
    identityFiles: [bed.userKeyPath],
    sshConfigPath: null,
    userKnownHostsFiles: [],
    globalKnownHostsFiles: [],
    appKnownHostsFile: path.join(dir, 'known_hosts'),
    agent: false,
    reconnect: { enabled: false },
    callbacks: { onUnknownHostKey: async () => 'accept-once' },
    ...extra,
  };
}

export function trustedKnownHosts(bed: SshdBed): string {
  const dir = makeTempDir('gd-kh-');
  const f = path.join(dir, 'known_hosts');
  fs.writeFileSync(f, bed.knownHostsLine + '\n');
  return f;
}
