import { createHash } from 'node:crypto';

/** OpenSSH's `SHA256:<base64 without padding>` of a public key blob (the wire format). */
export function sha256Fingerprint(keyBlob: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(keyBlob).digest('base64').replace(/=+$/, '');
}

/** The key type named inside an SSH public key blob ("ssh-ed25519", "ecdsa-sha2-nistp256", …). */
export function keyTypeOfBlob(keyBlob: Buffer): string {
  if (keyBlob.length < 4) return 'unknown';
  const len = keyBlob.readUInt32BE(0);
  if (len <= 0 || len > 64 || 4 + len > keyBlob.length) return 'unknown';
  return keyBlob.subarray(4, 4 + len).toString('latin1');
}
