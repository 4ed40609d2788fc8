import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GpuDeskError, registerSecret } from '../errors';
import { appPaths, ensureDir } from '../profiles/appPaths';
import type { ProfileStore } from '../profiles/profileStore';
import type { KeyRecord } from '../profiles/schema';
import { keyName as keyNameSchema } from '../../shared/profileSchema';
import { readKeyFile } from '../ssh/keyFile';
import { readCertificateFile } from '../ssh/certificate';
import { expandHome as expandHomePath } from '../ssh/sshConfig';
import { generateEd25519, parsePrivateKey, type KeyPair } from './opensshKey';
import { newDataKey, readSealed, seal, unseal, writeSealed } from './sealedFile';
import { account, type SecretStore } from './secretStore';

export interface KeyStoreDeps {
  secrets: SecretStore;
  profiles: ProfileStore;
  /** Where sealed (too large for the keychain) keys go. Default: appPaths().keysDir. */
  keysDir?: string;
}

export interface ImportOptions {
  /** Asked when the file is encrypted; null cancels. Called again after a wrong answer (3 tries). */
  askPassphrase?: (p: { keyLabel: string; attempt: number }) => Promise<string | null>;
  comment?: string;
}

/**
 * Key pairs whose private half lives only in the OS keychain (or sealed in the data directory under
 * a keychain-held data key, when the platform's entry is too small). The profiles file keeps the
 * public half, fingerprint and where the private half is.
 */
export class KeyStore {
  readonly secrets: SecretStore;
  readonly profiles: ProfileStore;
  readonly keysDir: string;

  constructor(deps: KeyStoreDeps) {
    this.secrets = deps.secrets;
    this.profiles = deps.profiles;
    this.keysDir = deps.keysDir ?? appPaths().keysDir;
  }

  sealedPath(name: string): string {
    return path.join(this.keysDir, `${name}.sealed`);
  }

  async generate(name: string, opts: { comment?: string } = {}): Promise<KeyRecord> {
    checkName(name);
    const pair = generateEd25519(opts.comment ?? `gpu-desk:${name}@${os.hostname()}`);
    return this.store(name, pair, 'generated');
  }

  async importFile(name: string, file: string, opts: ImportOptions = {}): Promise<KeyRecord> {
    checkName(name);
    let data: Buffer;
    try {
      data = readKeyFile(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      const shape = code === 'EKEYFILETYPE' || code === 'EKEYFILESIZE';
      throw new GpuDeskError('KEY_FILE', `cannot read key file ${file}: ${shape ? (e as Error).message : (code ?? (e as Error).message)}`, shape ? 'pass the private key file itself (e.g. ~/.ssh/id_ed25519)' : 'check the path and permissions');
    }
    let outcome = parsePrivateKey(data, undefined, opts.comment);
    for (let attempt = 1; !outcome.ok && outcome.needsPassphrase; attempt++) {
      if (attempt > 3) throw new GpuDeskError('KEY_PASSPHRASE', `wrong passphrase for ${file} (3 tries)`, 'check the passphrase and run the import again');
      if (!opts.askPassphrase) throw new GpuDeskError('KEY_PASSPHRASE', `${file} is encrypted and no passphrase was given`, 'run the import in a terminal, or pass --passphrase-stdin');
      const pass = await opts.askPassphrase({ keyLabel: file, attempt });
      if (pass === null) throw new GpuDeskError('CANCELLED', `import of ${file} cancelled`, 'run it again when you have the passphrase');
      registerSecret(pass);
      outcome = parsePrivateKey(data, pass, opts.comment);
    }
    if (!outcome.ok) throw new GpuDeskError('KEY_FILE', `${file} is not a usable private key: ${outcome.message}`, 'pass an OpenSSH, PEM or PuTTY private key file');
    if (opts.comment !== undefined) outcome.pair.comment = opts.comment;
    return this.store(name, outcome.pair, 'imported');
  }

  async list(): Promise<KeyRecord[]> {
    return this.profiles.listKeys();
  }

  async get(name: string): Promise<KeyRecord> {
    const rec = await this.profiles.findKey(name);
    if (!rec) throw new GpuDeskError('KEY_NOT_FOUND', `no key named "${name}"`, 'see "gpu-desk keys list"');
    return rec;
  }

  async publicKey(name: string): Promise<string> {
    return (await this.get(name)).publicKey;
  }

  /** The unencrypted private key, straight from the keychain; registered so logs redact it. */
  async privateKey(name: string): Promise<string> {
    const rec = await this.get(name);
    if (rec.storage === 'keychain') {
      const pk = await this.secrets.get(account.key(name));
      if (pk === null) throw missingEntry(name, this.secrets.service);
      registerSecret(pk);
      return pk;
    }
    const dk = await this.secrets.get(account.dataKey(name));
    if (dk === null) throw missingEntry(name, this.secrets.service);
    registerSecret(dk);
    const pk = unseal(readSealed(this.sealedPath(name), name), Buffer.from(dk, 'base64'), aadFor(name), name);
    registerSecret(pk);
    return pk;
  }

  /**
   * Delete the keychain entry (and sealed file). A key a profile still uses is kept unless force;
   * with force those profiles fall back to auto authentication.
   */
  async remove(name: string, opts: { force?: boolean } = {}): Promise<{ record: KeyRecord; profilesChanged: string[] }> {
    return this.profiles.update(async (doc) => {
      const i = doc.keys.findIndex((k) => k.name === name);
      if (i < 0) throw new GpuDeskError('KEY_NOT_FOUND', `no key named "${name}"`, 'see "gpu-desk keys list"');
      const users = doc.profiles.filter((p) => p.auth.kind === 'keychain-key' && p.auth.key === name);
      if (users.length && !opts.force) {
        throw new GpuDeskError('BAD_ARGUMENT', `key "${name}" is used by profile(s) ${users.map((p) => p.name).join(', ')}`, 'change those profiles first, or pass --force (they switch to auto authentication)');
      }
      // Keychain first: if it fails the metadata stays, so no secret is orphaned unseen.
      await this.secrets.delete(account.key(name));
      await this.secrets.delete(account.dataKey(name));
      fs.rmSync(this.sealedPath(name), { force: true });
      const [record] = doc.keys.splice(i, 1);
      for (const p of users) {
        p.auth = { kind: 'auto' };
        p.updatedAt = new Date().toISOString();
      }
      return { record, profilesChanged: users.map((p) => p.name) };
    });
  }

  /** Remembers (or forgets) that the key is in `where`'s authorized_keys; a key removed meanwhile is left alone. */
  /**
   * Attaches the certificate file (checked: a user certificate for this very key) or, with null,
   * detaches it. Only the path is kept: a daily-renewed certificate keeps working.
   */
  async setCertificateFile(name: string, file: string | null): Promise<KeyRecord> {
    const rec = await this.get(name);
    if (file !== null) {
      const abs = path.resolve(expandHomePath(file));
      const c = readCertificateFile(abs);
      if (!c) throw new GpuDeskError('KEY_FILE', `no certificate file at ${abs}`, 'give the KEY-cert.pub file your site issued');
      if (c.kind !== 'user') throw new GpuDeskError('KEY_FILE', `${abs} is a host certificate`, 'give the user certificate your site issued for this key');
      const blob = Buffer.from(rec.publicKey.split(/\s+/)[1] ?? '', 'base64');
      if (!c.publicKey.equals(blob)) throw new GpuDeskError('KEY_FILE', `${abs} certifies another key than "${name}" (${rec.fingerprint})`, 'give the certificate issued for this key, or import the key it belongs to');
      file = abs;
    }
    let out: KeyRecord = rec;
    await this.profiles.update(async (doc) => {
      const r = doc.keys.find((k) => k.name === name);
      if (!r) return;
      if (file === null) delete r.certificateFile;
      else r.certificateFile = file;
      out = { ...r };
    });
    return out;
  }

  async noteInstalled(name: string, where: string, installed: boolean): Promise<void> {
    await this.profiles.update(async (doc) => {
      const rec = doc.keys.find((k) => k.name === name);
      if (!rec) return;
      const rest = (rec.installedOn ?? []).filter((w) => w !== where);
      rec.installedOn = installed ? [...rest, where] : rest;
    });
  }

  private async store(name: string, pair: KeyPair, source: KeyRecord['source']): Promise<KeyRecord> {
    registerSecret(pair.privateKey);
    const record: KeyRecord = {
      name,
      type: pair.type,
      publicKey: pair.publicKey,
      fingerprint: pair.fingerprint,
      comment: pair.comment,
      storage: Buffer.byteLength(pair.privateKey, 'utf8') > this.secrets.maxSecretBytes ? 'sealed-file' : 'keychain',
      source,
      createdAt: new Date().toISOString(),
      installedOn: [],
    };
    // Inside the profiles lock: two processes creating the same name cannot overwrite each other's secret.
    return this.profiles.update(async (doc) => {
      if (doc.keys.some((k) => k.name === name)) {
        throw new GpuDeskError('KEY_EXISTS', `a key named "${name}" already exists`, `pick another name or remove it first ("gpu-desk keys remove ${name}")`);
      }
      const dup = doc.keys.find((k) => k.fingerprint === record.fingerprint);
      if (dup) throw new GpuDeskError('KEY_EXISTS', `this key is already stored as "${dup.name}"`, `use "${dup.name}"`);
      if (record.storage === 'keychain') {
        await this.secrets.set(account.key(name), pair.privateKey);
      } else {
        const dk = newDataKey();
        ensureDir(this.keysDir);
        await this.secrets.set(account.dataKey(name), dk.toString('base64'));
        try {
          writeSealed(this.sealedPath(name), seal(pair.privateKey, dk, aadFor(name)));
        } catch (e) {
          await this.secrets.delete(account.dataKey(name)).catch(() => false);
          throw e;
        }
      }
      doc.keys.push(record);
      return record;
    });
  }
}

function aadFor(name: string): string {
  return `gpu-desk sealed key ${name}`;
}

function checkName(name: string): void {
  const r = keyNameSchema.safeParse(name);
  if (!r.success) throw new GpuDeskError('BAD_ARGUMENT', `"${name}": ${r.error.issues[0].message}`, 'choose another key name');
}

function missingEntry(name: string, service: string): GpuDeskError {
  return new GpuDeskError('KEY_NOT_FOUND', `the keychain has no entry for key "${name}" (service "${service}"); it was deleted outside gpu-desk or belongs to another keychain`, `remove it ("gpu-desk keys remove ${name}") and generate or import it again`);
}
