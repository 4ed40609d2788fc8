import { createPublicKey, verify } from 'node:crypto';
import fs from 'node:fs';
import { utils } from 'ssh2';
import { WireReader } from './wireReader';
import { GpuDeskError } from '../errors';

/**
 * OpenSSH user certificates (PROTOCOL.certkeys): a site's CA signs a user's public key for some
 * principals and a validity window, and sshd (TrustedUserCAKeys) accepts the key with it and no
 * authorized_keys line. ssh2 1.17 knows nothing of them; gpu-desk offers one by wrapping the private
 * key it belongs to (certifiedKey): the key signs as always, the certificate is what is offered, and
 * the ssh2 patch (patches/) names the signature by the plain key's algorithm, as OpenSSH does.
 */
export interface UserCertificate {
  /** Where it was read from (a -cert.pub file beside the key, or a CertificateFile). */
  file: string;
  /** "ssh-ed25519-cert-v01@openssh.com", … */
  type: string;
  /** The algorithm of the key it certifies: "ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256". */
  baseType: string;
  /** The whole certificate blob: what the client offers in place of the public key. */
  blob: Buffer;
  /** The certified key's own public blob (what the private key's getPublicSSH() gives). */
  publicKey: Buffer;
  serial: bigint;
  kind: 'user' | 'host';
  keyId: string;
  /** Empty: valid for any principal (OpenSSH's rule). */
  principals: string[];
  /** Names of its critical options (force-command, source-address, …): a host certificate must have none. */
  criticalOptions: string[];
  /** Milliseconds since the epoch; null: no bound. */
  validAfter: number | null;
  validBefore: number | null;
  /** The CA key's algorithm. */
  caType: string;
  /** The CA's public key blob (what a @cert-authority line holds). */
  caKey: Buffer;
  /** What the CA signed (the certificate up to its signature) and the signature (an SSH signature blob). */
  signedData: Buffer;
  signature: Buffer;
}

/** Key algorithms with a certificate form, and how many SSH strings their public part has. */
const PUBLIC_FIELDS: Record<string, number> = {
  'ssh-ed25519': 1,
  'ssh-rsa': 2,
  'ssh-dss': 4,
  'ecdsa-sha2-nistp256': 2,
  'ecdsa-sha2-nistp384': 2,
  'ecdsa-sha2-nistp521': 2,
};
const CERT_SUFFIX = '-cert-v01@openssh.com';
const FOREVER = 0xffffffffffffffffn;

function bad(what: string, why: string): GpuDeskError {
  return new GpuDeskError('KEY_FILE', `${what} is not an OpenSSH certificate gpu-desk can read: ${why}`, 'give the -cert.pub file ssh-keygen -s or your site wrote');
}

const reader = (b: Buffer, what: string) => new WireReader(b, () => bad(what, 'it ends early'));

function sshString(b: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(b.length);
  return Buffer.concat([len, b]);
}

/** Parses a certificate as ssh-keygen writes it: "ssh-ed25519-cert-v01@openssh.com AAAA… comment". */
export function parseCertificate(text: string, file: string): UserCertificate {
  const [type, b64] = text.trim().split(/\s+/);
  if (!type?.endsWith(CERT_SUFFIX) || !b64) throw bad(file, 'its first word is not a *-cert-v01@openssh.com key type');
  const c = parseCertificateBlob(Buffer.from(b64, 'base64'), file);
  if (c.type !== type) throw bad(file, 'its blob names another key type than its first word');
  return c;
}

export function isCertificateType(type: string): boolean {
  return type.endsWith(CERT_SUFFIX);
}

/** Parses a certificate blob (from a file, or the host key a server presented); `file` names it in errors. */
export function parseCertificateBlob(blob: Buffer, file: string): UserCertificate {
  const r = reader(blob, file);
  const type = r.text();
  if (!type.endsWith(CERT_SUFFIX)) throw bad(file, `${type} is not a certificate type`);
  const baseType = type.slice(0, -CERT_SUFFIX.length);
  const fields = PUBLIC_FIELDS[baseType];
  if (fields === undefined) throw bad(file, `${type} certificates are not supported`);
  r.bytes(); // nonce
  const parts: Buffer[] = [];
  for (let i = 0; i < fields; i++) parts.push(r.bytes());
  const serial = r.u64();
  const kindNo = r.u32();
  if (kindNo !== 1 && kindNo !== 2) throw bad(file, `certificate type ${kindNo} is neither user (1) nor host (2)`);
  const keyId = r.text();
  const principals = r.strings();
  const after = r.u64();
  const before = r.u64();
  // Name/data pairs: the names are kept (a host certificate with any is refused, as OpenSSH does).
  const criticalOptions = r.strings().filter((_, i) => i % 2 === 0);
  r.bytes(); // extensions
  r.bytes(); // reserved
  const caKey = r.bytes();
  const caType = reader(caKey, file).text();
  const signedData = blob.subarray(0, r.pos);
  const signature = r.bytes();
  // OpenSSH refuses a blob with anything after the signature: nothing unsigned may ride along.
  if (!r.done()) throw bad(file, `it has ${blob.length - r.pos} bytes after its signature`);
  return {
    file,
    type,
    baseType,
    blob,
    publicKey: Buffer.concat([sshString(Buffer.from(baseType)), ...parts.map(sshString)]),
    serial,
    kind: kindNo === 1 ? 'user' : 'host',
    keyId,
    principals,
    criticalOptions,
    validAfter: after === 0n ? null : Number(after) * 1000,
    validBefore: before === FOREVER ? null : Number(before) * 1000,
    caType,
    caKey,
    signedData,
    signature,
  };
}

/** Reads a certificate file; null when there is none (a key without one is the usual case). */
export function readCertificateFile(file: string): UserCertificate | null {
  let text: string;
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > 64 * 1024) throw bad(file, 'it is not a small regular file');
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  return parseCertificate(text, file);
}

function when(ms: number): string {
  // A u64 of seconds (up to 2^64-1) is far beyond what a Date holds: say so instead of throwing a RangeError.
  if (!Number.isFinite(new Date(ms).getTime())) return 'a time past the year 275760';
  return new Date(ms).toISOString().replace('T', ' ').replace(/:\d\d\.\d+Z$/, ' UTC');
}

/** Why a user certificate cannot be used now (null: it can), in one line naming the time. */
export function certificateProblem(c: UserCertificate, now = Date.now()): string | null {
  if (c.kind !== 'user') return `${c.file} is a host certificate, not a user certificate`;
  return certificateTimeProblem(c, now);
}

/** Outside its validity window: when it expired, or from when it is valid. */
export function certificateTimeProblem(c: UserCertificate, now = Date.now()): string | null {
  if (c.validBefore !== null && now >= c.validBefore) return `the certificate ${c.file} expired at ${when(c.validBefore)}`;
  if (c.validAfter !== null && now < c.validAfter) return `the certificate ${c.file} is not valid before ${when(c.validAfter)}`;
  return null;
}

/**
 * Why the server may refuse it for `user`: none of its principals is the user. Only a hint: a server's
 * AuthorizedPrincipalsFile may map other principals to the account, so it is still offered, as ssh does.
 */
export function principalHint(c: UserCertificate, user: string): string | null {
  return c.principals.length && !c.principals.includes(user) ? `the certificate ${c.file} is for ${c.principals.join(', ')}, not for ${user}` : null;
}

/** "principals gdtest, valid until 2026-12-04 17:00 UTC", for lists and logs. */
export function describeCertificate(c: UserCertificate): string {
  const who = c.principals.length ? `principals ${c.principals.join(', ')}` : 'any principal';
  const until = c.validBefore === null ? 'no expiry' : `valid until ${when(c.validBefore)}`;
  return `${c.type.replace(CERT_SUFFIX, '')} certificate "${c.keyId}" (${who}, ${until})`;
}

/** Does the certificate certify this key (its public blob, as ssh2's getPublicSSH() gives it)? */
export function certifies(c: UserCertificate, publicSsh: Buffer): boolean {
  return c.publicKey.equals(publicSsh);
}

interface PublicSshKey {
  type: string;
  getPublicSSH(): Buffer;
}

/**
 * The parsed private key, offered as its certificate: ssh2 reads the type and the public blob from
 * the object it is given, and signs with the private key it inherits from `key`.
 */
export function certifiedKey<K extends PublicSshKey>(key: K, c: UserCertificate): K {
  return Object.create(key, {
    type: { value: c.type, enumerable: true },
    getPublicSSH: { value: () => c.blob },
  }) as K;
}

function derInteger(mpint: Buffer): Buffer {
  let v = mpint;
  while (v.length > 1 && v[0] === 0 && !(v[1] & 0x80)) v = v.subarray(1);
  if (v[0] & 0x80) v = Buffer.concat([Buffer.from([0]), v]);
  return Buffer.concat([Buffer.from([0x02]), derLength(v.length), v]);
}

function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let x = n; x > 0; x >>= 8) bytes.unshift(x & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const ECDSA_HASH: Record<string, string> = { 'ecdsa-sha2-nistp256': 'sha256', 'ecdsa-sha2-nistp384': 'sha384', 'ecdsa-sha2-nistp521': 'sha512' };
const RSA_HASH: Record<string, string> = { 'rsa-sha2-256': 'sha256', 'rsa-sha2-512': 'sha512' };

/**
 * Whether the certificate's CA signature is good. ssh-rsa (SHA-1) CA signatures are refused, as
 * OpenSSH >= 8.2's default CASignatureAlgorithms does.
 */
export function caSignatureValid(c: UserCertificate): boolean {
  const ca = utils.parseKey(`${c.caType} ${c.caKey.toString('base64')}`);
  if (ca instanceof Error || Array.isArray(ca)) return false;
  const key = createPublicKey(ca.getPublicPEM());
  const r = reader(c.signature, c.file);
  const algo = r.text();
  const sig = r.bytes();
  try {
    if (algo === 'ssh-ed25519' && c.caType === 'ssh-ed25519') return verify(null, c.signedData, key, sig);
    if (RSA_HASH[algo] && c.caType === 'ssh-rsa') return verify(RSA_HASH[algo], c.signedData, key, sig);
    if (ECDSA_HASH[algo] && c.caType === algo) {
      const rs = reader(sig, c.file);
      const body = Buffer.concat([derInteger(rs.bytes()), derInteger(rs.bytes())]);
      const der = Buffer.concat([Buffer.from([0x30]), derLength(body.length), body]);
      return verify(ECDSA_HASH[algo], c.signedData, { key, dsaEncoding: 'der' }, der);
    }
  } catch {
    return false;
  }
  return false;
}
