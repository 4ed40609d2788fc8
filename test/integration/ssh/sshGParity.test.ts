import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveTarget } from '../../../src/core/ssh/resolve';
import { loadSshConfig } from '../../../src/core/ssh/sshConfig';
import { makeTempDir } from '../../bed';

/**
 * ssh_config resolution against OpenSSH's own: each destination resolved by gpu-desk and by `ssh -G`
 * (the installed OpenSSH client, which prints what it would use and connects nowhere). The cases are
 * about the case of names: ssh lower-cases the host name it dials and matches `Host` patterns against
 * the name as typed, while `Match host`/`originalhost` compare without case.
 */
const CONFIG = `
Host MixedCase
  HostName mixed.example
  User fromMixed
Host mixedcase
  Port 2201
Host Web*.Lab
  User upper
Host web*.lab !web9.lab
  User lower
  Port 2202
  IdentityFile ~/.ssh/id_%r_%h
Host alias1
  HostName Real-Host.Example.ORG
  Port 2203
Match host real-host.example.org
  User matched
Match originalhost ALIAS2
  User orig
Host *
  User fallback
`;
const DESTINATIONS = ['MixedCase', 'mixedcase', 'MIXEDCASE', 'web1.lab', 'Web1.Lab', 'WEB9.LAB', 'alias1', 'ALIAS1', 'alias2', 'ALIAS2', 'someone@Web2.LAB'];

function opensshSays(file: string, dest: string): { hostname: string; user: string; port: number; identityfile: string[] } {
  const out = execFileSync('ssh', ['-G', '-F', file, dest], { encoding: 'utf8' });
  const get = (k: string) => out.split('\n').filter((l) => l.startsWith(`${k} `)).map((l) => l.slice(k.length + 1));
  const user = get('user')[0];
  const hostname = get('hostname')[0];
  // ssh -G prints IdentityFile as written; it expands ~, %r and %h when it loads the key.
  const identityfile = get('identityfile').map((f) => f.replace(/^~/, os.homedir()).replace(/%r/g, user).replace(/%h/g, hostname));
  return { hostname, user, port: Number(get('port')[0]), identityfile };
}

describe('ssh_config resolution equals `ssh -G` (the case of names)', () => {
  const dir = makeTempDir('gd-ssh-g-');
  const file = path.join(dir, 'config');
  fs.writeFileSync(file, CONFIG, { mode: 0o600 });
  const config = loadSshConfig(file, () => {}, '/dev/null');

  for (const dest of DESTINATIONS) {
    it(dest, () => {
      const want = opensshSays(file, dest);
      const hop = resolveTarget({ destination: dest, sshConfigPath: file, appKnownHostsFile: '/dev/null' }, config).hops.at(-1)!;
      const got = { hostname: hop.endpoint.hostName, user: hop.endpoint.user, port: hop.endpoint.port };
      expect(got).toEqual({ hostname: want.hostname, user: want.user, port: want.port });
      // A config IdentityFile (not OpenSSH's default list) is the same file.
      const fromConfig = want.identityfile.filter((f) => f.includes('id_') && !/\/id_(rsa|ecdsa|ecdsa_sk|ed25519|ed25519_sk|xmss|dsa)$/.test(f));
      for (const f of fromConfig) expect(hop.endpoint.identityFiles).toContain(f);
    });
  }
});
