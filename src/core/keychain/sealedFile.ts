import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { GpuDeskError } from '../errors';
import { writeFileAtomic } from '../profiles/atomicFile';

/**
 * A secret too large for one keychain entry, sealed with AES-256-GCM under a random 32-byte data
 * key that lives in the keychain. The file alone reveals nothing; the AAD binds it to its key name
 * so two sealed files cannot be swapped unnoticed.
 */
interface SealedBlob {
  format: 'gpu-desk-sealed';
  v: 1;
  alg: 'aes-256-gcm';
  iv: string;
  tag: string;
  data: string;
}

const GCM_TAG_BYTES = 16;

export function newDataKey(): Buffer {
  return randomBytes(32);
}

export function seal(plaintext: string, dataKey: Buffer, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', dataKey, iv);
  cipher.setAAD(Buffer.from(aad));
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const blob: SealedBlob = { format: 'gpu-desk-sealed', v: 1, alg: 'aes-256-gcm', iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), data: data.toString('base64') };
  return JSON.stringify(blob) + '\n';
}

export function unseal(text: string, dataKey: Buffer, aad: string, label: string): string {
  let blob: SealedBlob;
  try {
    blob = JSON.parse(text) as SealedBlob;
    if (blob.format !== 'gpu-desk-sealed' || blob.v !== 1 || blob.alg !== 'aes-256-gcm') throw new Error('unknown format');
  } catch {
    throw new GpuDeskError('KEY_FILE', `the sealed key file for ${label} is damaged`, `remove the key ("gpu-desk keys remove ${label}") and import it again`);
  }
  try {
    const tag = Buffer.from(blob.tag, 'base64');
    // GCM accepts tags cut down to 4 bytes unless told the length: a forger would then need to
    // guess 32 bits, not 128. seal() always writes the full 16.
    if (tag.length !== GCM_TAG_BYTES) throw new Error('short tag');
    const d = createDecipheriv('aes-256-gcm', dataKey, Buffer.from(blob.iv, 'base64'), { authTagLength: GCM_TAG_BYTES });
    d.setAAD(Buffer.from(aad));
    d.setAuthTag(tag);
    return Buffer.concat([d.update(Buffer.from(blob.data, 'base64')), d.final()]).toString('utf8');
  } catch {
    throw new GpuDeskError('KEY_FILE', `the sealed key file for ${label} does not match its keychain data key (tampered or from another machine)`, `remove the key ("gpu-desk keys remove ${label}") and import it again`);
  }
}

export function writeSealed(file: string, text: string): void {
  writeFileAtomic(file, text, { mode: 0o600 });
}

export function readSealed(file: string, label: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    throw new GpuDeskError('KEY_FILE', `the sealed key file for ${label} is missing (${file})`, `remove the key ("gpu-desk keys remove ${label}") and import it again`);
  }
}
