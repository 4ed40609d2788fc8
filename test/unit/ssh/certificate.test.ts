import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { utils } from 'ssh2';
import { caSignatureValid, certificateProblem, certifies, describeCertificate, parseCertificate, principalHint, readCertificateFile } from '../../../src/core/ssh/certificate';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-cert-unit-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const keygen = (args: string[]) => execFileSync('ssh-keygen', ['-q', ...args], { stdio: 'ignore' });
keygen(['-t', 'ed25519', '-N', '', '-f', path.join(dir, 'ca')]);

/** A key and a certificate ssh-keygen -s made for it. */
function signed(name: string, sign: string[], type = 'ed25519'): { key: string; cert: string } {
  const key = path.join(dir, name);
  keygen(['-t', type, '-N', '', '-f', key]);
  keygen(['-s', path.join(dir, 'ca'), ...sign, `${key}.pub`]);
  return { key, cert: `${key}-cert.pub` };
}

describe('OpenSSH user certificates, as ssh-keygen -s writes them', () => {
  it('reads the key id, serial, principals and validity ssh-keygen -L shows, and matches the key it certifies', () => {
    const { key, cert } = signed('a', ['-I', 'alice@site', '-z', '42', '-n', 'alice,gdtest', '-V', '20260101000000:20270101000000']);
    const c = readCertificateFile(cert)!;
    expect(c).toMatchObject({ type: 'ssh-ed25519-cert-v01@openssh.com', baseType: 'ssh-ed25519', kind: 'user', keyId: 'alice@site', serial: 42n, principals: ['alice', 'gdtest'], caType: 'ssh-ed25519' });
    // ssh-keygen -V reads local time: compare against what ssh-keygen -L itself prints.
    const listed = execFileSync('ssh-keygen', ['-L', '-f', cert]).toString();
    const [, from, to] = /Valid: from (\S+) to (\S+)/.exec(listed)!;
    expect(c.validAfter).toBe(new Date(from).getTime());
    expect(c.validBefore).toBe(new Date(to).getTime());
    const parsed = utils.parseKey(fs.readFileSync(key));
    if (parsed instanceof Error) throw parsed;
    expect(certifies(c, parsed.getPublicSSH())).toBe(true);
    const stranger = utils.parseKey(fs.readFileSync(signed('b', ['-I', 'x', '-n', 'x']).key));
    if (stranger instanceof Error) throw stranger;
    expect(certifies(c, stranger.getPublicSSH())).toBe(false);
    expect(describeCertificate(c)).toContain('principals alice, gdtest');
  });

  it('says when a certificate is out of date, not yet valid, or for other principals', () => {
    const { cert } = signed('c', ['-I', 'x', '-n', 'bob', '-V', '20200101000000:20200102000000']);
    const c = readCertificateFile(cert)!;
    expect(certificateProblem(c)).toMatch(/^the certificate .* expired at 2020-01-0[12] \d\d:\d\d UTC$/);
    expect(certificateProblem(c, c.validAfter! - 1)).toMatch(/is not valid before 20(19|20)-/);
    expect(certificateProblem(c, c.validAfter! + 1)).toBeNull();
    expect(principalHint(c, 'gdtest')).toBe(`the certificate ${cert} is for bob, not for gdtest`);
    expect(principalHint(c, 'bob')).toBeNull();
    const forever = readCertificateFile(signed('d', ['-I', 'x', '-n', 'bob']).cert)!;
    expect([forever.validAfter, forever.validBefore]).toEqual([null, null]);
    expect(certificateProblem(forever)).toBeNull();
  });

  it('RSA and ECDSA certificates too; a host certificate is not a user one; junk is one line naming the file', () => {
    for (const type of ['rsa', 'ecdsa']) {
      const { key, cert } = signed(`e-${type}`, ['-I', 'x', '-n', 'u'], type);
      const parsed = utils.parseKey(fs.readFileSync(key));
      if (parsed instanceof Error) throw parsed;
      expect(certifies(readCertificateFile(cert)!, parsed.getPublicSSH()), type).toBe(true);
    }
    const host = readCertificateFile(signed('h', ['-I', 'x', '-h', '-n', 'example.org']).cert)!;
    expect(host.kind).toBe('host');
    expect(certificateProblem(host)).toMatch(/is a host certificate/);
    expect(() => parseCertificate('ssh-ed25519 AAAA', '/x/y-cert.pub')).toThrow(/^\/x\/y-cert\.pub is not an OpenSSH certificate gpu-desk can read: its first word/);
    expect(() => parseCertificate('ssh-ed25519-cert-v01@openssh.com AAAAC3Nz', '/x/z')).toThrow(/is not an OpenSSH certificate gpu-desk can read/);
    expect(readCertificateFile(path.join(dir, 'none-cert.pub'))).toBeNull();
  });

  it('the CA signature verifies for ed25519, ECDSA and RSA CAs, and not once a signed byte changed', () => {
    for (const caType of ['ed25519', 'ecdsa', 'rsa']) {
      const ca = path.join(dir, `ca-${caType}`);
      keygen(['-t', caType, '-N', '', '-f', ca]);
      const key = path.join(dir, `k-${caType}`);
      keygen(['-t', 'ed25519', '-N', '', '-f', key]);
      keygen(['-s', ca, '-I', 'x', '-h', '-n', 'host.example', `${key}.pub`]);
      const c = readCertificateFile(`${key}-cert.pub`)!;
      expect(caSignatureValid(c), caType).toBe(true);
      const tampered = Buffer.from(c.signedData);
      tampered[tampered.length - 5] ^= 1;
      expect(caSignatureValid({ ...c, signedData: tampered }), `${caType}, tampered`).toBe(false);
    }
  });

  it('issue 40: critical options are read; bytes after the signature are refused; a start of 2^64-1 is a clean refusal', () => {
    const c = readCertificateFile(signed('crit', ['-I', 'x', '-h', '-n', 'h.example', '-O', 'critical:site-policy=strict']).cert)!;
    expect(c.criticalOptions).toEqual(['site-policy']);
    const text = fs.readFileSync(c.file, 'utf8').trim().split(/\s+/);
    const padded = Buffer.concat([c.blob, Buffer.from([0, 0, 0, 0])]).toString('base64');
    expect(() => parseCertificate(`${text[0]} ${padded}`, '/x/padded-cert.pub')).toThrow(/^\/x\/padded-cert\.pub is not an OpenSSH certificate gpu-desk can read: it has 4 bytes after its signature$/);
    // ssh-keygen writes a start of 2^64-2 (2^64-1 is its "forever"); the largest u64 is patched in below.
    const late = readCertificateFile(signed('late', ['-I', 'x', '-n', 'u', '-V', '0xfffffffffffffffe:forever']).cert)!;
    expect(certificateProblem(late)).toMatch(/is not valid before a time past the year 275760$/);
    const blob = Buffer.from(late.blob);
    const at = blob.indexOf(Buffer.from('fffffffffffffffe', 'hex'));
    blob.writeBigUInt64BE(0xffffffffffffffffn, at);
    const max = parseCertificate(`${late.type} ${blob.toString('base64')}`, '/x/max-cert.pub');
    expect(() => certificateProblem(max)).not.toThrow();
    expect(certificateProblem(max)).toMatch(/is not valid before a time past the year 275760$/);
    expect(describeCertificate(max)).toContain('no expiry');
  });
});
