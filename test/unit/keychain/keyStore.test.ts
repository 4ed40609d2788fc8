import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import keytar from 'keytar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GpuDeskError } from '../../../src/core/errors';
import { keychainKeySource } from '../../../src/core/keychain/keySource';
import { KeyStore } from '../../../src/core/keychain/keyStore';
import { forgetPassword, savePassword, savedPassword } from '../../../src/core/keychain/passwords';
import { ProfileStore } from '../../../src/core/profiles/profileStore';
import { clearService, createKeytarStore, requireKeyring, testService } from '../../helpers/profiles/keyring';
import { scanForSecrets } from '../../helpers/profiles/secretScan';

const secrets = createKeytarStore({ service: testService('ks') });
/** Same keychain, with Windows' entry size, so the sealed-file path runs here too. */
const smallSecrets = createKeytarStore({ service: secrets.service, maxSecretBytes: 2560 });
let dir: string;
/** Source key files the user imports from: outside the data dir the scan covers. */
let srcDir: string;
let profiles: ProfileStore;
const known: string[] = [];
const notices: string[] = [];

beforeAll(async () => {
  await requireKeyring(secrets);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-ks-'));
  srcDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-ks-src-'));
  profiles = new ProfileStore({ file: path.join(dir, 'profiles.json'), notice: (l) => notices.push(l) });
});
afterAll(async () => {
  await clearService(secrets);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(srcDir, { recursive: true, force: true });
});

const keys = () => new KeyStore({ secrets, profiles, keysDir: path.join(dir, 'keys') });

function keygen(args: string[]): string {
  const f = path.join(srcDir, `src-${Math.random().toString(36).slice(2)}`);
  execFileSync('ssh-keygen', ['-q', ...args, '-f', f]);
  return f;
}

describe('KeyStore on a real keychain', () => {
  it('generate: private key only in the keychain; public key and fingerprint in the profiles file', async () => {
    const rec = await keys().generate('work', { comment: 'me@desk' });
    expect(rec).toMatchObject({ name: 'work', type: 'ssh-ed25519', storage: 'keychain', source: 'generated', comment: 'me@desk' });
    const pk = await keytar.getPassword(secrets.service, 'key:work');
    expect(pk).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
    known.push(pk!);
    expect(await keys().privateKey('work')).toBe(pk);
    const file = JSON.parse(fs.readFileSync(profiles.file, 'utf8'));
    expect(file.keys[0]).toMatchObject({ name: 'work', publicKey: rec.publicKey, fingerprint: rec.fingerprint });
    expect(await keys().publicKey('work')).toBe(rec.publicKey);
    const e = await keys().generate('work').catch((x) => x);
    expect(e).toBeInstanceOf(GpuDeskError);
    expect(e.code).toBe('KEY_EXISTS');
    expect((await keys().generate('bad name').catch((x) => x)).code).toBe('BAD_ARGUMENT');
  });

  it('import: asks for the passphrase (again after a wrong one) and stores the key decrypted only in the keychain', async () => {
    const src = keygen(['-t', 'ed25519', '-N', 'open sesame 9', '-C', 'imported']);
    const asked: number[] = [];
    const rec = await keys().importFile('imp', src, {
      askPassphrase: async ({ attempt }) => {
        asked.push(attempt);
        return attempt === 1 ? 'wrong' : 'open sesame 9';
      },
    });
    known.push('open sesame 9');
    expect(asked).toEqual([1, 2]);
    expect(rec).toMatchObject({ type: 'ssh-ed25519', storage: 'keychain', source: 'imported', comment: 'imported' });
    expect(rec.publicKey.split(' ')[1]).toBe(fs.readFileSync(`${src}.pub`, 'utf8').split(' ')[1]);
    const stored = (await keytar.getPassword(secrets.service, 'key:imp'))!;
    known.push(stored);
    expect(stored).not.toContain('aes256-ctr');
    // The same key again (another name) is recognised.
    const dup = await keys().importFile('imp2', src, { askPassphrase: async () => 'open sesame 9' }).catch((x) => x);
    expect(dup.code).toBe('KEY_EXISTS');
    expect(dup.message).toMatch(/already stored as "imp"/);
  });

  it('import: three wrong passphrases, a cancel, no callback, or a non-key file each fail clearly and store nothing', async () => {
    const src = keygen(['-t', 'ed25519', '-N', 'right-pass']);
    const before = await secrets.accounts();
    const wrong = await keys().importFile('w', src, { askPassphrase: async () => 'nope' }).catch((x) => x);
    expect(wrong.code).toBe('KEY_PASSPHRASE');
    expect(wrong.message).toMatch(/wrong passphrase .*3 tries/);
    expect((await keys().importFile('w', src, { askPassphrase: async () => null }).catch((x) => x)).code).toBe('CANCELLED');
    expect((await keys().importFile('w', src).catch((x) => x)).code).toBe('KEY_PASSPHRASE');
    const notKey = await keys().importFile('w', `${src}.pub`).catch((x) => x);
    expect(notKey.code).toBe('KEY_FILE');
    expect(notKey.message).toMatch(/not a usable private key/);
    expect((await keys().importFile('w', path.join(dir, 'missing')).catch((x) => x)).code).toBe('KEY_FILE');
    expect(await secrets.accounts()).toEqual(before);
    expect((await keys().list()).map((k) => k.name)).not.toContain('w');
  });

  it('a key too large for the platform entry is sealed (AES-256-GCM) in the data dir with its data key in the keychain', async () => {
    const src = keygen(['-t', 'rsa', '-b', '4096', '-N', '']);
    const big = new KeyStore({ secrets: smallSecrets, profiles, keysDir: path.join(dir, 'keys') });
    const rec = await big.importFile('rsa4k', src);
    expect(rec.storage).toBe('sealed-file');
    expect(await keytar.getPassword(secrets.service, 'key:rsa4k')).toBeNull();
    const dk = await keytar.getPassword(secrets.service, 'datakey:rsa4k');
    expect(Buffer.from(dk!, 'base64')).toHaveLength(32);
    const sealedFile = path.join(dir, 'keys', 'rsa4k.sealed');
    expect(fs.statSync(sealedFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(sealedFile, 'utf8'))).toMatchObject({ format: 'gpu-desk-sealed', alg: 'aes-256-gcm' });
    const pk = await big.privateKey('rsa4k');
    known.push(pk);
    expect(Buffer.byteLength(pk)).toBeGreaterThan(2560);
    const check = path.join(srcDir, 'check');
    fs.writeFileSync(check, pk, { mode: 0o600 });
    expect(execFileSync('ssh-keygen', ['-y', '-f', check]).toString().split(' ')[1]).toBe(rec.publicKey.split(' ')[1]);
    // The same store reads it whatever the limit: the record says where it is.
    expect(await keys().privateKey('rsa4k')).toBe(pk);
    // GCM would accept the genuine tag cut to 4 (or 8, 12) bytes, making a forgery a 2^32 guess:
    // anything but the full 16 bytes is refused.
    const whole = fs.readFileSync(sealedFile, 'utf8');
    const blob = JSON.parse(whole);
    for (const bytes of [4, 8, 12, 15]) {
      const cut = { ...blob, tag: Buffer.from(blob.tag, 'base64').subarray(0, bytes).toString('base64') };
      fs.writeFileSync(sealedFile, JSON.stringify(cut) + '\n', { mode: 0o600 });
      const err = await keys().privateKey('rsa4k').catch((x) => x);
      expect(err, `a ${bytes}-byte tag`).toBeInstanceOf(GpuDeskError);
      expect(err.code).toBe('KEY_FILE');
    }
    fs.writeFileSync(sealedFile, whole, { mode: 0o600 });
    expect(await keys().privateKey('rsa4k')).toBe(pk);
    // Without its data key the file is useless.
    await keytar.deletePassword(secrets.service, 'datakey:rsa4k');
    expect((await keys().privateKey('rsa4k').catch((x) => x)).code).toBe('KEY_NOT_FOUND');
    await keys().remove('rsa4k');
    expect(fs.existsSync(sealedFile)).toBe(false);
  });

  it('KeySource hands keychain keys to the SSH connection seam', async () => {
    const src = keychainKeySource(keys(), ['work']);
    const loaded = await src.loadKeys({ host: 'h', hostName: 'h', port: 22, user: 'u', identityFiles: [] });
    expect(loaded).toEqual([{ label: 'keychain:work', privateKey: await keys().privateKey('work') }]);
    const all = await keychainKeySource(keys()).loadKeys({ host: 'h', hostName: 'h', port: 22, user: 'u', identityFiles: [] });
    expect(all.map((k) => k.label).sort()).toEqual(['keychain:imp', 'keychain:work']);
    await expect(keychainKeySource(keys(), ['ghost']).loadKeys({ host: 'h', hostName: 'h', port: 22, user: 'u', identityFiles: [] })).rejects.toThrow(/no key named "ghost"/);
  });

  it('remove: refuses a key a profile uses unless forced; deletes the keychain entry', async () => {
    await profiles.add({ name: 'gpu', host: 'g', auth: { kind: 'keychain-key', key: 'work' } });
    const e = await keys().remove('work').catch((x) => x);
    expect(e.message).toMatch(/used by profile\(s\) gpu/);
    expect(await keytar.getPassword(secrets.service, 'key:work')).not.toBeNull();
    const r = await keys().remove('work', { force: true });
    expect(r.profilesChanged).toEqual(['gpu']);
    expect((await profiles.get('gpu')).auth).toEqual({ kind: 'auto' });
    expect(await keytar.getPassword(secrets.service, 'key:work')).toBeNull();
    expect((await keys().remove('work').catch((x) => x)).code).toBe('KEY_NOT_FOUND');
  });

  it('remembered passwords live only in the keychain', async () => {
    const p = await profiles.add({ name: 'pwd', host: 'h', auth: { kind: 'password', remember: true } });
    await savePassword(secrets, p.id, 'hunter2-very-secret');
    known.push('hunter2-very-secret');
    expect(await savedPassword(secrets, p.id)).toBe('hunter2-very-secret');
    expect(await forgetPassword(secrets, p.id)).toBe(true);
    expect(await savedPassword(secrets, p.id)).toBeNull();
  });

  it('secrets scan: no private key, passphrase or password anywhere in the data dir or notices', () => {
    expect(known.length).toBeGreaterThanOrEqual(5);
    expect(scanForSecrets(known, [dir], [{ where: 'notices', text: notices.join('\n') }])).toEqual([]);
  });
});
