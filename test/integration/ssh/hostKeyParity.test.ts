import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCode } from './expectCode';
import { cleanupAll, makeTempDir, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh } from '../../../src/core/ssh/connection';
import { fingerprintOfPublicKeyLine } from '../../bed/sshd';

/**
 * Issue 40 §2/§4: host keys as OpenSSH 9.2 judges them, each case beside the real `ssh` on the same
 * bed (BatchMode, StrictHostKeyChecking=yes, nothing from ~/.ssh): RevokedHostKeys (plain lists and
 * `ssh-keygen -k` KRLs), host certificates with critical options, known_hosts lines without a port,
 * a known host whose key type changed, and a server that offers only post-quantum key exchange.
 */
let bed: SshdBed;
let certBed: SshdBed;
let ecdsaBed: SshdBed;

beforeAll(async () => {
  [bed, certBed, ecdsaBed] = await Promise.all([
    startSshd(),
    // Serial 7 and key id "bed-host": what the KRL cases revoke.
    startSshd({ hostCertificatePrincipals: ['127.0.0.1'], hostCertificateArgs: ['-z', '7'] }),
    startSshd({ hostKeyType: 'ecdsa' }),
  ]);
});
afterAll(cleanupAll);

const keygen = (args: string[]) => execFileSync('ssh-keygen', ['-q', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });

function write(name: string, text: string): string {
  const f = path.join(makeTempDir('gd-hkp-'), name);
  fs.writeFileSync(f, text);
  return f;
}

/** A fresh ed25519 key pair nobody's server has; returns the public file and its "type base64" line. */
function strangerKey(): { pub: string; line: string } {
  const f = path.join(makeTempDir('gd-stranger-'), 'k');
  keygen(['-t', 'ed25519', '-N', '', '-f', f]);
  return { pub: `${f}.pub`, line: fs.readFileSync(`${f}.pub`, 'utf8').trim().split(/\s+/).slice(0, 2).join(' ') };
}

/** `ssh-keygen -k` from a spec file (PROTOCOL.krl's text form) or key files, as an administrator makes one. */
function krl(o: { spec?: string[]; keys?: string[]; ca?: string }): string {
  const dir = makeTempDir('gd-krl-');
  const out = path.join(dir, 'revoked.krl');
  const inputs = o.keys ?? [write('spec', o.spec!.join('\n') + '\n')];
  keygen(['-k', '-f', out, ...(o.ca ? ['-s', o.ca] : []), ...inputs]);
  return out;
}

/** Real OpenSSH client: its verdict on the same known_hosts and options. */
function openssh(b: SshdBed, knownHosts: string, extra: string[] = []): { code: number; stderr: string } {
  try {
    execFileSync('ssh', [
      '-F', 'none', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=yes', '-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'GlobalKnownHostsFile=/dev/null',
      '-o', 'IdentitiesOnly=yes', '-i', b.userKeyPath, '-p', String(b.port), ...extra, `${b.user}@127.0.0.1`, 'true',
    ], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000 });
    return { code: 0, stderr: '' };
  } catch (e) {
    return { code: (e as { status: number }).status ?? -1, stderr: String((e as { stderr: Buffer }).stderr ?? '') };
  }
}

/** gpu-desk through an ssh config (RevokedHostKeys is a config option), strict, nothing to ask. */
function viaConfig(b: SshdBed, knownHosts: string, lines: string[] = []) {
  const cfg = write('config', ['Host gpu', '  HostName 127.0.0.1', `  Port ${b.port}`, `  User ${b.user}`, `  IdentityFile ${b.userKeyPath}`, `  UserKnownHostsFile ${knownHosts}`, '  GlobalKnownHostsFile none', ...lines.map((l) => `  ${l}`), ''].join('\n'));
  const { userKnownHostsFiles: _u, globalKnownHostsFiles: _g, ...rest } = bedOptions(b, { destination: 'gpu', port: undefined, identityFiles: undefined, sshConfigPath: cfg, callbacks: {}, strictHostKeyChecking: 'yes' });
  return rest;
}

async function connects(b: SshdBed, knownHosts: string, lines: string[] = []): Promise<void> {
  const c = await connectSsh(viaConfig(b, knownHosts, lines));
  expect((await c.exec('echo ok')).stdout).toBe('ok\n');
  await c.close();
}

function caFile(b: SshdBed): string {
  return write('ca.pub', b.hostCaPublicKey! + '\n');
}

describe('RevokedHostKeys (issue 40 §2): a host key or certificate ssh refuses as revoked is refused', () => {
  it('plain key lists and KRLs (explicit key, SHA256, SHA1) revoke the host key; another key\'s KRL does not', async () => {
    const kh = write('known_hosts', bed.knownHostsLine + '\n');
    const hostPub = bed.hostKeyPath + '.pub';
    const hostLine = fs.readFileSync(hostPub, 'utf8').trim();
    const stranger = strangerKey();
    const revoking: [string, string][] = [
      ['a list of public keys', write('revoked_keys', `# revoked\n${stranger.line}\n${hostLine}\n`)],
      ['a KRL of the key itself', krl({ keys: [hostPub] })],
      ['a KRL by SHA256 hash', krl({ spec: [`hash: ${bed.hostKeyFingerprint}`] })],
      ['a KRL by SHA1 hash', krl({ spec: [`sha1: ${hostLine}`] })],
    ];
    for (const [what, file] of revoking) {
      const e = await expectCode(connectSsh(viaConfig(bed, kh, [`RevokedHostKeys ${file}`])), 'HOST_KEY_REJECTED');
      expect(e.message, what).toContain(`revoked by ${file}`);
      expect(e.message, what).toContain(bed.hostKeyFingerprint);
      const ssh = openssh(bed, kh, ['-o', `RevokedHostKeys=${file}`]);
      expect(ssh.code, `OpenSSH, ${what}`).not.toBe(0);
      expect(ssh.stderr, `OpenSSH, ${what}`).toMatch(/revoked by file/);
    }
    // A KRL (and a list) that revokes another key lets the host in, for both.
    for (const file of [krl({ keys: [stranger.pub] }), write('others', stranger.line + '\n')]) {
      expect(openssh(bed, kh, ['-o', `RevokedHostKeys=${file}`]).code).toBe(0);
      await connects(bed, kh, [`RevokedHostKeys ${file}`]);
    }
  });

  it('a host certificate revoked by serial, serial range, key id or its CA key is refused; another serial is not', async () => {
    const kh = write('known_hosts', `@cert-authority * ${certBed.hostCaPublicKey}\n`);
    const ca = caFile(certBed);
    const revoking: [string, string][] = [
      ['serial 7', krl({ spec: ['serial: 7'], ca })],
      ['serials 5-9', krl({ spec: ['serial: 5-9'], ca })],
      ['a serial bitmap', krl({ spec: ['serial: 1', 'serial: 3', 'serial: 7', 'serial: 12'], ca })],
      ['key id bed-host', krl({ spec: ['id: bed-host'], ca })],
      ['the CA key', krl({ keys: [ca] })],
      ['the CA key in a list', write('revoked_ca', certBed.hostCaPublicKey + '\n')],
    ];
    for (const [what, file] of revoking) {
      const e = await expectCode(connectSsh(viaConfig(certBed, kh, [`RevokedHostKeys ${file}`])), 'HOST_KEY_REJECTED');
      expect(e.message, what).toContain(`revoked by ${file}`);
      expect(openssh(certBed, kh, ['-o', `RevokedHostKeys=${file}`]).code, `OpenSSH, ${what}`).not.toBe(0);
    }
    const other = krl({ spec: ['serial: 8', 'id: someone-else'], ca });
    expect(openssh(certBed, kh, ['-o', `RevokedHostKeys=${other}`]).code).toBe(0);
    await connects(certBed, kh, [`RevokedHostKeys ${other}`]);
  });

  it('a file that cannot be read or parsed refuses the connection, naming the file', async () => {
    const kh = write('known_hosts', bed.knownHostsLine + '\n');
    const cases: [string, string][] = [
      ['missing', path.join(makeTempDir('gd-krl-missing-'), 'nothing-here.krl')],
      ['not keys', write('garbage', 'this is not a key list\n')],
      ['a cut KRL', write('cut.krl', fs.readFileSync(krl({ keys: [bed.hostKeyPath + '.pub'] })).subarray(0, 60).toString('latin1'))],
    ];
    for (const [what, file] of cases) {
      const e = await expectCode(connectSsh(viaConfig(bed, kh, [`RevokedHostKeys ${file}`])), 'HOST_KEY_REJECTED');
      expect(e.message, what).toContain(`The revoked host keys file ${file}`);
      expect(openssh(bed, kh, ['-o', `RevokedHostKeys=${file}`]).code, `OpenSSH, ${what}`).not.toBe(0);
    }
  });
});

describe('host certificates OpenSSH refuses (issue 40 §2)', () => {
  it('a host certificate with a critical option: "unsupported critical options", as ssh', async () => {
    const b = await startSshd({ hostCertificatePrincipals: ['127.0.0.1'], hostCertificateArgs: ['-O', 'critical:site-policy=strict'] });
    const kh = write('known_hosts', `@cert-authority * ${b.hostCaPublicKey}\n`);
    const ssh = openssh(b, kh);
    expect(ssh.code).not.toBe(0);
    expect(ssh.stderr).toMatch(/unsupported critical options/i);
    const e = await expectCode(connectSsh(viaConfig(b, kh)), 'HOST_KEY_REJECTED');
    expect(e.message).toMatch(/unsupported critical options \(site-policy\)/);
  });

  it('a validity that starts at the end of u64 time: refused with a date, not a RangeError', async () => {
    const b = await startSshd({ hostCertificatePrincipals: ['127.0.0.1'], hostCertificateValidity: '0xfffffffffffffffe:forever' });
    const kh = write('known_hosts', `@cert-authority * ${b.hostCaPublicKey}\n`);
    expect(openssh(b, kh).code).not.toBe(0);
    const e = await expectCode(connectSsh(viaConfig(b, kh)), 'HOST_KEY_REJECTED');
    expect(e.message).toMatch(/is not valid before a time past the year 275760$/);
  });
});

describe('known_hosts lines without a port (issue 40 §3): OpenSSH\'s "found matching key w/out port"', () => {
  it('"127.0.0.1 KEY" and "@cert-authority 127.0.0.1 CA" cover the host on another port; a different key there is not a match', async () => {
    const key = bed.knownHostsLine.split(' ').slice(1).join(' ');
    const plain = write('known_hosts', `127.0.0.1 ${key}\n`);
    expect(openssh(bed, plain).code).toBe(0);
    await connects(bed, plain);
    const ca = write('known_hosts_ca', `@cert-authority 127.0.0.1 ${certBed.hostCaPublicKey}\n`);
    expect(openssh(certBed, ca).code).toBe(0);
    await connects(certBed, ca);
    // Another key on the port-less line: the host is new to both (not "changed"), and strict checking refuses it.
    const other = write('known_hosts_other', `127.0.0.1 ${strangerKey().line}\n`);
    expect(openssh(bed, other).stderr).toMatch(/No ED25519 host key is known/);
    await expectCode(connectSsh(viaConfig(bed, other)), 'HOST_KEY_UNKNOWN');
  });
});

describe('a known host whose key type changed (issue 40 §4)', () => {
  it('ed25519 known, the server now has only ecdsa: refused as a changed key type, with both fingerprints', async () => {
    const known = strangerKey().line;
    const kh = write('known_hosts', `[127.0.0.1]:${ecdsaBed.port} ${known}\n`);
    const ssh = openssh(ecdsaBed, kh);
    expect(ssh.code).not.toBe(0);
    const e = await expectCode(connectSsh(viaConfig(ecdsaBed, kh)), 'HOST_KEY_CHANGED');
    expect(e.message).toMatch(/host key type of \S+ changed/);
    expect(e.message).toContain(`ecdsa-sha2-nistp256 key (${ecdsaBed.hostKeyFingerprint})`);
    expect(e.message).toContain(fingerprintOfPublicKeyLine(known));
    expect(e.message).not.toMatch(/SHA-1/);
    expect(e.fix).toContain('ssh-keygen -R');
  });
});

describe('a server that offers only post-quantum key exchange (issue 40 §4)', () => {
  it('OpenSSH connects; gpu-desk says its own library lacks the method, not that the server is old', async () => {
    const b = await startSshd({ extraConfig: ['KexAlgorithms sntrup761x25519-sha512@openssh.com'] });
    const kh = write('known_hosts', b.knownHostsLine + '\n');
    expect(openssh(b, kh).code).toBe(0);
    const e = await expectCode(connectSsh(viaConfig(b, kh)), 'HOST_UNREACHABLE');
    expect(e.message).toContain('offers only post-quantum key exchange (sntrup761x25519-sha512@openssh.com)');
    expect(e.message).not.toMatch(/modern/);
    expect(e.fix).toContain('curve25519-sha256');
  });
});
