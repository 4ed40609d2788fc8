import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { GpuDeskError } from '../errors';
import { isCertificateType, parseCertificateBlob } from './certificate';
import { WireReader } from './wireReader';

/**
 * RevokedHostKeys (ssh_config): a file of revoked host keys that ssh checks before known_hosts, so a
 * revoked key is refused even where it is known. As OpenSSH's sshkey_check_revoked, the file is
 * either a binary KRL (`ssh-keygen -k`, format in OpenSSH's PROTOCOL.krl) or, when it does not start
 * with the KRL magic, a plain list of public-key lines. A file that cannot be read or parsed refuses
 * the connection (ssh: "Error checking host key … in revoked keys file …").
 */

/** What revocation looks at in a presented host key. */
export interface RevocationSubject {
  /** The plain public key blob (for a certificate: the key it certifies). */
  publicKey: Buffer;
  /** Present when the host presented a certificate. */
  cert?: { caKey: Buffer; serial: bigint; keyId: string };
}

interface CertRevocations {
  /** Empty buffer: the section applies to certificates of every CA. */
  caKey: Buffer;
  serials: { lo: bigint; hi: bigint }[];
  keyIds: Set<string>;
}

interface Krl {
  keys: Buffer[];
  sha1: Set<string>;
  sha256: Set<string>;
  certs: CertRevocations[];
}

const KRL_MAGIC = Buffer.from('SSHKRL\n\0', 'latin1');
const SECTION = { certificates: 1, explicitKey: 2, sha1: 3, signature: 4, sha256: 5, extension: 255 } as const;
const CERT_SECTION = { list: 0x20, range: 0x21, bitmap: 0x22, keyId: 0x23, extension: 0x39 } as const;
/** A KRL of a whole site is a few MB at most; a larger file is not one. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

class KrlError extends Error {}

/** The KRL's own reader: a field cut short is a KrlError, which names the file in the caller's error. */
const reader = (b: Buffer) => new WireReader(b, () => new KrlError('it ends in the middle of a field'));

function parseCertSection(data: Buffer): CertRevocations {
  const r = reader(data);
  const out: CertRevocations = { caKey: r.bytes(), serials: [], keyIds: new Set() };
  r.bytes(); // reserved
  while (!r.done()) {
    const type = r.u8();
    const sub = reader(r.bytes());
    switch (type) {
      case CERT_SECTION.list:
        while (!sub.done()) {
          const s = sub.u64();
          out.serials.push({ lo: s, hi: s });
        }
        break;
      case CERT_SECTION.range: {
        const lo = sub.u64();
        const hi = sub.u64();
        if (lo > hi) throw new KrlError('a serial range ends before it starts');
        out.serials.push({ lo, hi });
        break;
      }
      case CERT_SECTION.bitmap: {
        const offset = sub.u64();
        // An mpint: big-endian; bit N (from the least significant end) revokes serial offset + N.
        const bits = sub.bytes();
        for (let i = 0; i < bits.length; i++) {
          const byte = bits[bits.length - 1 - i];
          for (let b = 0; b < 8; b++) {
            if (!(byte & (1 << b))) continue;
            const s = offset + BigInt(i * 8 + b);
            if (s > 0xffffffffffffffffn) throw new KrlError('a serial bitmap runs past the largest serial');
            out.serials.push({ lo: s, hi: s });
          }
        }
        break;
      }
      case CERT_SECTION.keyId:
        while (!sub.done()) out.keyIds.add(sub.bytes().toString('utf8'));
        break;
      case CERT_SECTION.extension:
        extension(sub);
        break;
      default:
        throw new KrlError(`it has a certificate section of unknown type ${type}`);
    }
  }
  return out;
}

/** An extension: a critical one gpu-desk cannot know refuses the file, as OpenSSH does. */
function extension(r: WireReader): void {
  const name = r.bytes().toString('utf8');
  const critical = r.u8() !== 0;
  r.bytes();
  if (critical) throw new KrlError(`it has a critical extension (${name.slice(0, 64)}) gpu-desk does not know`);
}

function parseKrl(b: Buffer): Krl {
  const r = reader(b.subarray(KRL_MAGIC.length));
  const version = r.u32();
  if (version !== 1) throw new KrlError(`its format version is ${version}, not 1`);
  r.u64(); // krl_version
  r.u64(); // generated_date
  r.u64(); // flags
  r.bytes(); // reserved
  r.bytes(); // comment
  const krl: Krl = { keys: [], sha1: new Set(), sha256: new Set(), certs: [] };
  while (!r.done()) {
    const type = r.u8();
    if (type === SECTION.signature) {
      // Signature sections: a key and a signature. ssh does not verify them for RevokedHostKeys.
      r.bytes();
      r.bytes();
      continue;
    }
    const data = r.bytes();
    const s = reader(data);
    switch (type) {
      case SECTION.certificates:
        krl.certs.push(parseCertSection(data));
        break;
      case SECTION.explicitKey:
        while (!s.done()) krl.keys.push(s.bytes());
        break;
      case SECTION.sha1:
      case SECTION.sha256:
        while (!s.done()) (type === SECTION.sha1 ? krl.sha1 : krl.sha256).add(s.bytes().toString('hex'));
        break;
      case SECTION.extension:
        extension(s);
        break;
      default:
        throw new KrlError(`it has a section of unknown type ${type}`);
    }
  }
  return krl;
}

function keyRevokedByKrl(krl: Krl, key: Buffer): boolean {
  if (krl.sha1.has(createHash('sha1').update(key).digest('hex'))) return true;
  if (krl.sha256.has(createHash('sha256').update(key).digest('hex'))) return true;
  return krl.keys.some((k) => k.equals(key));
}

function certRevokedByKrl(krl: Krl, cert: NonNullable<RevocationSubject['cert']>): boolean {
  return krl.certs.some(
    (c) =>
      (c.caKey.length === 0 || c.caKey.equals(cert.caKey)) &&
      (c.keyIds.has(cert.keyId) || (cert.serial !== 0n && c.serials.some((s) => s.lo <= cert.serial && cert.serial <= s.hi))),
  );
}

/** A plain list: each line "type base64 [comment]" (an authorized_keys-style options prefix is not allowed, as in ssh). */
function parseKeyList(text: string): Buffer[] {
  const out: Buffer[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const [type, b64] = line.split(/\s+/);
    const blob = b64 && /^[A-Za-z0-9+/]+={0,2}$/.test(b64) ? Buffer.from(b64, 'base64') : null;
    const inner = blob && blob.length > 4 ? blob.subarray(4, 4 + blob.readUInt32BE(0)).toString('latin1') : '';
    if (!blob || inner !== type) throw new KrlError(`line ${i + 1} is not a public key ("type base64")`);
    // A listed certificate revokes the key it certifies (ssh compares the public parts).
    out.push(isCertificateType(type) ? parseCertificateBlob(blob, `line ${i + 1}`).publicKey : blob);
  });
  return out;
}

/**
 * Whether `subject` is revoked by `file`: null when not, else how (for the error). Throws a one-line
 * error naming the file when it cannot be read or is neither a KRL nor a list of public keys.
 */
export function revokedBy(file: string, subject: RevocationSubject): string | null {
  const unusable = (why: string) =>
    new GpuDeskError(
      'HOST_KEY_REJECTED',
      `The revoked host keys file ${file} (RevokedHostKeys) ${why}, so the host key cannot be checked against it`,
      `fix or remove the RevokedHostKeys line in your ssh config, or restore ${file} (ssh-keygen -k writes a KRL)`,
    );
  let b: Buffer;
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) throw unusable('is not a regular file');
    if (st.size > MAX_FILE_BYTES) throw unusable(`is larger than ${MAX_FILE_BYTES >> 20} MB`);
    b = fs.readFileSync(file);
  } catch (e) {
    if (e instanceof GpuDeskError) throw e;
    throw unusable(`cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const caKey = subject.cert?.caKey;
  try {
    if (b.length >= KRL_MAGIC.length && b.subarray(0, KRL_MAGIC.length).equals(KRL_MAGIC)) {
      const krl = parseKrl(b);
      if (keyRevokedByKrl(krl, subject.publicKey)) return 'its key is revoked';
      if (subject.cert && certRevokedByKrl(krl, subject.cert)) return 'its certificate is revoked';
      if (caKey && keyRevokedByKrl(krl, caKey)) return 'its CA key is revoked';
      return null;
    }
    const keys = parseKeyList(b.toString('utf8'));
    if (keys.some((k) => k.equals(subject.publicKey))) return 'its key is listed';
    if (caKey && keys.some((k) => k.equals(caKey))) return 'its CA key is listed';
    return null;
  } catch (e) {
    if (e instanceof KrlError) throw unusable(`is neither a valid KRL nor a list of public keys: ${e.message}`);
    if (e instanceof GpuDeskError) throw unusable(`holds a certificate gpu-desk cannot read (${e.message})`);
    throw e;
  }
}
