import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCode } from './expectCode';
import { cleanupAll, makeTempDir, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh } from '../../../src/core/ssh/connection';

/**
 * Issue 34, low 9: host-key and public-key algorithms default as OpenSSH ≥ 8.8 (no ssh-rsa SHA-1
 * signatures), and ssh_config's HostKeyAlgorithms / PubkeyAcceptedAlgorithms (+, -, ^) are honoured.
 * Real OpenSSH 9.2 sshd: one with an RSA host key (offers rsa-sha2-512/256 and ssh-rsa), and one
 * restricted to ssh-rsa signatures (`HostKeyAlgorithms ssh-rsa` in its sshd_config), as a legacy server.
 */
let rsaBed: SshdBed;
let sha1Bed: SshdBed;
let bed: SshdBed;

beforeAll(async () => {
  [rsaBed, sha1Bed, bed] = await Promise.all([
    startSshd({ hostKeyType: 'rsa' }),
    startSshd({ hostKeyType: 'rsa', extraConfig: ['HostKeyAlgorithms ssh-rsa'] }),
    startSshd(),
  ]);
});
afterAll(cleanupAll);

function config(lines: string[]): string {
  const f = path.join(makeTempDir('gd-algcfg-'), 'config');
  fs.writeFileSync(f, lines.join('\n') + '\n', { mode: 0o600 });
  return f;
}

/** The real ssh client: proves the beds are what the tests say. */
function opensshLogin(b: SshdBed, extra: string[] = []): number {
  try {
    execFileSync('ssh', [
      '-F', 'none', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'GlobalKnownHostsFile=/dev/null',
      '-o', 'IdentitiesOnly=yes', '-i', b.userKeyPath, '-p', String(b.port), ...extra, `${b.user}@127.0.0.1`, 'true',
    ], { stdio: 'ignore', timeout: 30_000 });
    return 0;
  } catch (e) {
    return (e as { status: number }).status ?? -1;
  }
}

describe('host-key algorithms as OpenSSH ≥ 8.8 (issue 34 low 9)', () => {
  it('the beds: OpenSSH refuses the ssh-rsa-only server by default and lets it in with HostKeyAlgorithms=+ssh-rsa', () => {
    expect(opensshLogin(sha1Bed)).not.toBe(0);
    expect(opensshLogin(sha1Bed, ['-o', 'HostKeyAlgorithms=+ssh-rsa'])).toBe(0);
    expect(opensshLogin(rsaBed)).toBe(0);
  });

  it('an RSA host key is accepted through rsa-sha2-* (ssh-rsa is not even offered)', async () => {
    const c = await connectSsh(bedOptions(rsaBed));
    expect((await c.exec('echo ok')).stdout.trim()).toBe('ok');
    c.close();
  });

  it('a server offering only ssh-rsa (SHA-1) signatures is refused by default, in one line naming the fix', async () => {
    const e = await expectCode(connectSsh(bedOptions(sha1Bed)), 'HOST_KEY_REJECTED');
    expect(e.message).toMatch(/offers only ssh-rsa host-key signatures \(RSA with SHA-1\)/);
    expect(e.fix).toContain('HostKeyAlgorithms +ssh-rsa');
    // A "-" list that keeps ssh-rsa out, or a plain list without it, refuses it as well.
    await expectCode(connectSsh(bedOptions(sha1Bed, { sshConfigPath: config(['Host 127.0.0.1', '  HostKeyAlgorithms -ecdsa-*']) })), 'HOST_KEY_REJECTED');
  });

  it('HostKeyAlgorithms +ssh-rsa (or ^ssh-rsa, or a list naming it) in ssh_config lets the legacy server in', async () => {
    for (const v of ['+ssh-rsa', '^ssh-rsa', 'ssh-ed25519,ssh-rsa', '+ssh-r*']) {
      const c = await connectSsh(bedOptions(sha1Bed, { sshConfigPath: config(['Host 127.0.0.1', `  HostKeyAlgorithms ${v}`]) }));
      expect((await c.exec('echo ok')).stdout.trim(), v).toBe('ok');
      c.close();
    }
  });

  it('HostKeyAlgorithms that leaves out the server\'s key type fails the handshake; one that names nothing usable is a config error', async () => {
    await expect(connectSsh(bedOptions(bed, { sshConfigPath: config(['Host 127.0.0.1', '  HostKeyAlgorithms -ssh-ed25519']) }))).rejects.toThrow(/handshake|host key/i);
    const e = await expectCode(connectSsh(bedOptions(bed, { sshConfigPath: config(['Host 127.0.0.1', '  HostKeyAlgorithms ssh-ed25519-cert-v01@openssh.com']) })), 'BAD_SSH_CONFIG');
    expect(e.message).toMatch(/HostKeyAlgorithms for 127\.0\.0\.1 .* leaves no algorithm/);
  });

  it('PubkeyAcceptedAlgorithms: a key of a type it leaves out is not offered (and the failure says why)', async () => {
    const e = await expectCode(connectSsh(bedOptions(bed, { sshConfigPath: config(['Host 127.0.0.1', '  PubkeyAcceptedAlgorithms -ssh-ed25519']) })), 'AUTH_FAILED');
    expect(e.message).toMatch(/ssh-ed25519 key, not offered \(not in PubkeyAcceptedAlgorithms\)/);
    const c = await connectSsh(bedOptions(bed, { sshConfigPath: config(['Host 127.0.0.1', '  PubkeyAcceptedAlgorithms ^ssh-ed25519']) }));
    c.close();
  });
});
