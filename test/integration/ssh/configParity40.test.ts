import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCode } from './expectCode';
import { cleanupAll, makeTempDir, startSshd, type SshdBed } from '../../bed';
import { connectSsh } from '../../../src/core/ssh/connection';
import { resolveTarget } from '../../../src/core/ssh/resolve';
import { loadSshConfig } from '../../../src/core/ssh/sshConfig';
import type { ConnectOptions } from '../../../src/core/ssh/types';

/**
 * Issue 40 §3: ssh_config as OpenSSH 9.2 reads it, each case beside the real `ssh` (-G, or a login
 * with BatchMode) on the same file: `Match` with the user given on the command line, and what
 * gpu-desk does not apply (Match exec, CanonicalizeHostname, LocalForward) said where it matters.
 */
let bed: SshdBed;
beforeAll(async () => {
  bed = await startSshd();
});
afterAll(cleanupAll);

function config(lines: string[]): string {
  const dir = makeTempDir('gd-cfg40-');
  const kh = path.join(dir, 'known_hosts');
  fs.writeFileSync(kh, bed.knownHostsLine + '\n');
  const f = path.join(dir, 'config');
  const body = lines.map((l) => l.replace('@KH@', kh).replace('@KEY@', bed.userKeyPath).replace('@PORT@', String(bed.port)));
  fs.writeFileSync(f, [...body, 'Host *', `  UserKnownHostsFile ${kh}`, '  GlobalKnownHostsFile none', '  IdentitiesOnly yes', `  IdentityFile ${bed.userKeyPath}`, ''].join('\n'), { mode: 0o600 });
  return f;
}

function options(cfg: string, destination: string, extra: Partial<ConnectOptions> = {}): ConnectOptions {
  return { destination, sshConfigPath: cfg, appKnownHostsFile: path.join(makeTempDir('gd-cfg40-app-'), 'kh'), agent: false, reconnect: { enabled: false }, strictHostKeyChecking: 'yes', callbacks: {}, ...extra };
}

function opensshLogin(cfg: string, destination: string): { code: number; stderr: string } {
  try {
    execFileSync('ssh', ['-F', cfg, '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=yes', destination, 'true'], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000 });
    return { code: 0, stderr: '' };
  } catch (e) {
    return { code: (e as { status: number }).status ?? -1, stderr: String((e as { stderr: Buffer }).stderr ?? '') };
  }
}

function sshG(cfg: string, destination: string): Record<string, string> {
  const out = execFileSync('ssh', ['-G', '-F', cfg, destination], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const r: Record<string, string> = {};
  for (const l of out.split('\n')) {
    const i = l.indexOf(' ');
    if (i > 0 && !(l.slice(0, i) in r)) r[l.slice(0, i)] = l.slice(i + 1);
  }
  return r;
}

describe('Match criteria as ssh -G evaluates them (issue 40 §3)', () => {
  it('Match user sees the user given as user@host, before any User line; ssh -G and a real login agree', async () => {
    const cfg = config(['Host gpu', '  HostName 127.0.0.1', '  User someone-else', `Match user ${bed.user}`, '  Port @PORT@', 'Host gpu', '  Port 1']);
    expect(sshG(cfg, `${bed.user}@gpu`)).toMatchObject({ user: bed.user, port: String(bed.port) });
    expect(opensshLogin(cfg, `${bed.user}@gpu`), 'OpenSSH logs in').toMatchObject({ code: 0 });
    const c = await connectSsh(options(cfg, `${bed.user}@gpu`));
    expect(c.endpoint).toMatchObject({ user: bed.user, port: bed.port });
    expect((await c.exec('echo ok')).stdout).toBe('ok\n');
    await c.close();
  });

  const MATCHES = `
Host alias
  HostName Real.Example.Org
Match originalhost alias user alice
  Port 2001
Match host real.example.org !user bob
  User from-host
Match localuser ${os.userInfo().username} originalhost other
  Port 2002
Match canonical
  Port 2003
Match user carol final
  Port 2004
Match !localuser ${os.userInfo().username}
  Port 2005
Match all
  User fallback
`;
  const DESTINATIONS = ['alias', 'alice@alias', 'bob@alias', 'carol@alias', 'other', 'dave@other', 'carol@elsewhere', 'elsewhere'];
  for (const dest of DESTINATIONS) {
    it(`user, localuser, host, originalhost, canonical, final, all: ${dest}`, () => {
      const file = path.join(makeTempDir('gd-match-'), 'config');
      fs.writeFileSync(file, MATCHES, { mode: 0o600 });
      const want = sshG(file, dest);
      const hop = resolveTarget({ destination: dest, sshConfigPath: file, appKnownHostsFile: '/dev/null' }, loadSshConfig(file, () => {}, '/dev/null')).hops.at(-1)!;
      expect({ hostname: hop.endpoint.hostName, user: hop.endpoint.user, port: hop.endpoint.port }).toEqual({ hostname: want.hostname, user: want.user, port: Number(want.port) });
    });
  }
});

describe('what gpu-desk does not apply is said (issue 40 §3)', () => {
  it('Match exec: its block is not applied, and the failed connection says so in its one-line error', async () => {
    const cfg = config(['Match exec "true"', '  Port @PORT@', 'Host gpu', '  HostName 127.0.0.1', `  User ${bed.user}`, '  Port 1']);
    // OpenSSH runs the command, so its block applies there.
    expect(opensshLogin(cfg, 'gpu'), 'OpenSSH logs in').toMatchObject({ code: 0 });
    const e = await expectCode(connectSsh(options(cfg, 'gpu')), 'HOST_UNREACHABLE');
    expect(e.message).toContain(`the "Match exec" blocks of ${cfg} were not applied`);
  });

  it('CanonicalizeHostname: named in the error of a name that then does not resolve', async () => {
    const cfg = config(['CanonicalizeHostname yes', 'CanonicalDomains example.invalid', 'Host *.example.invalid', '  HostName 127.0.0.1', '  Port @PORT@']);
    expect(sshG(cfg, 'gpu-desk-no-such-host')).toMatchObject({ canonicalizehostname: 'true', canonicaldomains: 'example.invalid' });
    expect(opensshLogin(cfg, `${bed.user}@gpu-desk-no-such-host`).code).not.toBe(0);
    const e = await expectCode(connectSsh(options(cfg, `${bed.user}@gpu-desk-no-such-host`)), 'DNS_FAILED');
    expect(e.message).toContain('CanonicalizeHostname yes is not applied by gpu-desk');
  });

  it('LocalForward lines: one notice that they are not used (ssh -G shows ssh would open them)', async () => {
    const cfg = config(['Host gpu', '  HostName 127.0.0.1', '  Port @PORT@', `  User ${bed.user}`, '  LocalForward 18888 localhost:8888']);
    expect(sshG(cfg, 'gpu').localforward).toBe('18888 [localhost]:8888');
    const notices: string[] = [];
    const c = await connectSsh(options(cfg, 'gpu', { callbacks: { notice: (l) => notices.push(l) } }));
    await c.close();
    expect(notices.filter((l) => /LocalForward/.test(l))).toEqual(['gpu: the LocalForward lines of your ssh config are not used by gpu-desk; give such forwards to "gpu-desk tunnel" with -L']);
  });
});
