import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { utils } from 'ssh2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fingerprintOfPublicLine, generateEd25519, parsePrivateKey } from '../../../src/core/keychain/opensshKey';
import { newDataKey, seal, unseal } from '../../../src/core/keychain/sealedFile';

let dir: string;
beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-okey-'))));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** What OpenSSH itself derives from a private key file: "type base64". */
function opensshPublic(privateKey: string): string {
  const f = path.join(dir, `k-${Math.random().toString(36).slice(2)}`);
  fs.writeFileSync(f, privateKey, { mode: 0o600 });
  return execFileSync('ssh-keygen', ['-y', '-f', f]).toString().trim().split(' ').slice(0, 2).join(' ');
}
function opensshFingerprint(pubLine: string): string {
  const f = path.join(dir, `p-${Math.random().toString(36).slice(2)}.pub`);
  fs.writeFileSync(f, pubLine + '\n');
  return execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', f]).toString().split(' ')[1];
}
function keygen(args: string[]): string {
  const f = path.join(dir, `id-${Math.random().toString(36).slice(2)}`);
  execFileSync('ssh-keygen', ['-q', ...args, '-f', f]);
  return f;
}

describe('OpenSSH key encoding', () => {
  it('generates ed25519 keys that OpenSSH and ssh2 read, with OpenSSH\'s fingerprint', () => {
    const k = generateEd25519('me@laptop');
    expect(k.type).toBe('ssh-ed25519');
    expect(k.privateKey).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----\n[\s\S]+\n-----END OPENSSH PRIVATE KEY-----\n$/);
    expect(k.publicKey).toMatch(/^ssh-ed25519 AAAAC3NzaC1lZDI1NTE5\S+ me@laptop$/);
    expect(opensshPublic(k.privateKey)).toBe(k.publicKey.split(' ').slice(0, 2).join(' '));
    expect(k.fingerprint).toBe(opensshFingerprint(k.publicKey));
    expect(fingerprintOfPublicLine(k.publicKey)).toBe(k.fingerprint);
    expect(utils.parseKey(k.privateKey)).not.toBeInstanceOf(Error);
    expect(generateEd25519('x').privateKey).not.toBe(k.privateKey);
  });

  it('re-encodes every key type OpenSSH makes, encrypted or not, into an unencrypted key of the same identity', () => {
    const cases: { args: string[]; pass?: string; type: string }[] = [
      { args: ['-t', 'ed25519', '-N', 'secret phrase', '-C', 'enc ed'], pass: 'secret phrase', type: 'ssh-ed25519' },
      { args: ['-t', 'rsa', '-b', '3072', '-N', ''], type: 'ssh-rsa' },
      { args: ['-t', 'rsa', '-b', '2048', '-m', 'PEM', '-N', 'pem-pass'], pass: 'pem-pass', type: 'ssh-rsa' },
      { args: ['-t', 'ecdsa', '-b', '256', '-N', ''], type: 'ecdsa-sha2-nistp256' },
      { args: ['-t', 'ecdsa', '-b', '384', '-N', 'x-pass'], pass: 'x-pass', type: 'ecdsa-sha2-nistp384' },
      { args: ['-t', 'ecdsa', '-b', '521', '-N', ''], type: 'ecdsa-sha2-nistp521' },
    ];
    for (const c of cases) {
      const f = keygen(c.args);
      const data = fs.readFileSync(f);
      const orig = fs.readFileSync(`${f}.pub`, 'utf8').trim().split(' ').slice(0, 2).join(' ');
      if (c.pass) {
        const first = parsePrivateKey(data);
        expect(first).toMatchObject({ ok: false, needsPassphrase: true });
        expect(parsePrivateKey(data, 'wrong one')).toMatchObject({ ok: false, needsPassphrase: true, message: 'wrong passphrase' });
      }
      const r = parsePrivateKey(data, c.pass);
      if (!r.ok) throw new Error(`${c.args.join(' ')}: ${r.message}`);
      expect(r.pair.type).toBe(c.type);
      expect(r.pair.publicKey.split(' ').slice(0, 2).join(' ')).toBe(orig);
      // Unencrypted: no PEM encryption header, and the openssh-key-v1 blob names cipher and KDF "none"
      // (matching words in the base64 text could neither see those names nor avoid chance hits).
      expect(r.pair.privateKey).not.toContain('ENCRYPTED');
      expect(keyCipherAndKdf(r.pair.privateKey)).toEqual(['none', 'none']);
      // OpenSSH opens our re-encoding without any passphrase.
      expect(opensshPublic(r.pair.privateKey)).toBe(orig);
      if (c.pass) expect(r.pair.privateKey).not.toContain(c.pass);
    }
  });

  it('says clearly what is wrong with a file that is not a usable private key', () => {
    expect(parsePrivateKey('hello')).toMatchObject({ ok: false, needsPassphrase: false });
    const f = keygen(['-t', 'ed25519', '-N', '']);
    expect(parsePrivateKey(fs.readFileSync(`${f}.pub`))).toMatchObject({ ok: false, needsPassphrase: false });
  });
});

describe('sealed files (AES-256-GCM)', () => {
  it('round-trips, and refuses a wrong data key, another name or a flipped byte', () => {
    const dk = newDataKey();
    const text = 'private key text '.repeat(300);
    const sealed = seal(text, dk, 'gpu-desk sealed key a');
    expect(sealed).not.toContain('private key text');
    expect(unseal(sealed, dk, 'gpu-desk sealed key a', 'a')).toBe(text);
    expect(() => unseal(sealed, newDataKey(), 'gpu-desk sealed key a', 'a')).toThrow(/does not match its keychain data key/);
    expect(() => unseal(sealed, dk, 'gpu-desk sealed key b', 'a')).toThrow(/does not match/);
    const blob = JSON.parse(sealed);
    const data = Buffer.from(blob.data, 'base64');
    data[5] ^= 1;
    expect(() => unseal(JSON.stringify({ ...blob, data: data.toString('base64') }), dk, 'gpu-desk sealed key a', 'a')).toThrow(/tampered/);
    expect(() => unseal('garbage', dk, 'x', 'a')).toThrow(/damaged/);
  });
});

/** Cipher and KDF names from an "OPENSSH PRIVATE KEY" (openssh-key-v1: magic, string cipher, string kdf, …). */
function keyCipherAndKdf(pem: string): [string, string] {
  const blob = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  const magic = 'openssh-key-v1\0';
  expect(blob.subarray(0, magic.length).toString('latin1')).toBe(magic);
  let off = magic.length;
  const str = () => {
    const n = blob.readUInt32BE(off);
    const v = blob.subarray(off + 4, off + 4 + n).toString('latin1');
    off += 4 + n;
    return v;
  };
  return [str(), str()];
}
