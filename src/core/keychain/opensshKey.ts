import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, type JsonWebKey, type KeyObject } from 'node:crypto';
import { utils } from 'ssh2';
import { GpuDeskError } from '../errors';

/**
 * OpenSSH key handling without OpenSSH: any key ssh2 can read (OpenSSH new format, PEM, PuTTY,
 * encrypted or not) is turned into an unencrypted "openssh-key-v1" private key plus its public
 * line, so what goes into the keychain is one canonical format ssh2 and OpenSSH both accept.
 */
export interface KeyPair {
  type: 'ssh-ed25519' | 'ssh-rsa' | 'ecdsa-sha2-nistp256' | 'ecdsa-sha2-nistp384' | 'ecdsa-sha2-nistp521';
  /** Unencrypted OpenSSH private key (PEM-armoured "OPENSSH PRIVATE KEY"). */
  privateKey: string;
  /** "type base64 comment" — one authorized_keys line. */
  publicKey: string;
  fingerprint: string;
  comment: string;
}

export function generateEd25519(comment: string): KeyPair {
  const { privateKey } = generateKeyPairSync('ed25519');
  return fromKeyObject(privateKey, comment);
}

export function fingerprintOfBlob(blob: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
}

export function fingerprintOfPublicLine(line: string): string {
  const b64 = line.trim().split(/\s+/)[1] ?? '';
  return fingerprintOfBlob(Buffer.from(b64, 'base64'));
}

export type ParseOutcome = { ok: true; pair: KeyPair } | { ok: false; needsPassphrase: boolean; message: string };

/** Parse a private key file's content; tells "needs a passphrase" apart from "wrong" and "not a key". */
export function parsePrivateKey(data: Buffer | string, passphrase?: string, fallbackComment = ''): ParseOutcome {
  let parsed = utils.parseKey(data, passphrase);
  if (Array.isArray(parsed)) parsed = parsed[0];
  if (parsed instanceof Error) {
    const m = parsed.message;
    if (/no passphrase given/i.test(m)) return { ok: false, needsPassphrase: true, message: 'the key is encrypted' };
    if (/passphrase|integrity check failed|bad decrypt/i.test(m)) return { ok: false, needsPassphrase: true, message: 'wrong passphrase' };
    return { ok: false, needsPassphrase: false, message: m.replace(/\n.*/s, '') };
  }
  if (!parsed || !parsed.isPrivateKey()) return { ok: false, needsPassphrase: false, message: 'this is a public key, not a private key' };
  if (parsed.type === 'ssh-dss') return { ok: false, needsPassphrase: false, message: 'DSA keys are not supported (OpenSSH dropped them); generate an ed25519 key' };
  const pem = parsed.getPrivatePEM();
  let ko: KeyObject;
  try {
    ko = createPrivateKey(pem);
  } catch (e) {
    return { ok: false, needsPassphrase: false, message: `unsupported key (${(e as Error).message})` };
  }
  const pair = fromKeyObject(ko, parsed.comment || fallbackComment);
  // Our re-encoding must describe the very key that was read.
  if (!pair.publicKey.split(' ')[1] || Buffer.compare(Buffer.from(pair.publicKey.split(' ')[1], 'base64'), parsed.getPublicSSH()) !== 0) {
    return { ok: false, needsPassphrase: false, message: 'the key could not be converted faithfully' };
  }
  return { ok: true, pair };
}

// --- OpenSSH wire encoding -------------------------------------------------------------------

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}
function str(b: Buffer | string): Buffer {
  const buf = typeof b === 'string' ? Buffer.from(b) : b;
  return Buffer.concat([u32(buf.length), buf]);
}
/** SSH mpint: big-endian, minimal, with a 0x00 in front when the top bit is set. */
function mpint(b: Buffer): Buffer {
  let i = 0;
  while (i < b.length - 1 && b[i] === 0) i++;
  let v = b.subarray(i);
  if (v.length && v[0] & 0x80) v = Buffer.concat([Buffer.from([0]), v]);
  return str(v);
}
const b64u = (s: string | undefined): Buffer => Buffer.from(s ?? '', 'base64url');

const CURVES: Record<string, { name: string; type: KeyPair['type'] }> = {
  'P-256': { name: 'nistp256', type: 'ecdsa-sha2-nistp256' },
  'P-384': { name: 'nistp384', type: 'ecdsa-sha2-nistp384' },
  'P-521': { name: 'nistp521', type: 'ecdsa-sha2-nistp521' },
};

function fromKeyObject(key: KeyObject, rawComment: string): KeyPair {
  // A newline in the comment would split the authorized_keys line.
  const comment = [...rawComment].map((c) => (c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f ? ' ' : c)).join('').trim();
  const jwk = key.export({ format: 'jwk' }) as JsonWebKey;
  let type: KeyPair['type'];
  let pub: Buffer;
  let priv: Buffer;
  if (key.asymmetricKeyType === 'ed25519') {
    type = 'ssh-ed25519';
    const x = b64u(jwk.x);
    pub = Buffer.concat([str(type), str(x)]);
    // OpenSSH keeps the 32-byte seed followed by the public key.
    priv = Buffer.concat([str(x), str(Buffer.concat([b64u(jwk.d), x]))]);
  } else if (key.asymmetricKeyType === 'rsa') {
    type = 'ssh-rsa';
    const [n, e, d, p, q, qi] = [jwk.n, jwk.e, jwk.d, jwk.p, jwk.q, jwk.qi].map(b64u);
    pub = Buffer.concat([str(type), mpint(e), mpint(n)]);
    // OpenSSH's iqmp is q⁻¹ mod p, which is JWK's "qi".
    priv = Buffer.concat([mpint(n), mpint(e), mpint(d), mpint(qi), mpint(p), mpint(q)]);
  } else if (key.asymmetricKeyType === 'ec' && jwk.crv && CURVES[jwk.crv]) {
    const c = CURVES[jwk.crv];
    type = c.type;
    const q = Buffer.concat([Buffer.from([4]), b64u(jwk.x), b64u(jwk.y)]);
    pub = Buffer.concat([str(type), str(c.name), str(q)]);
    priv = Buffer.concat([str(c.name), str(q), mpint(b64u(jwk.d))]);
  } else {
    throw new GpuDeskError('KEY_FILE', `unsupported key type ${key.asymmetricKeyType}`, 'use an ed25519, RSA or ECDSA key');
  }
  const check = randomBytes(4);
  let section = Buffer.concat([check, check, str(type), priv, str(comment)]);
  const pad = (8 - (section.length % 8)) % 8;
  section = Buffer.concat([section, Buffer.from(Array.from({ length: pad }, (_, i) => i + 1))]);
  const body = Buffer.concat([Buffer.from('openssh-key-v1\0'), str('none'), str('none'), str(''), u32(1), str(pub), str(section)]);
  const lines = body.toString('base64').match(/.{1,70}/g) ?? [];
  const privateKey = `-----BEGIN OPENSSH PRIVATE KEY-----\n${lines.join('\n')}\n-----END OPENSSH PRIVATE KEY-----\n`;
  const publicKey = `${type} ${pub.toString('base64')}${comment ? ` ${comment}` : ''}`;
  return { type, privateKey, publicKey, fingerprint: fingerprintOfBlob(pub), comment };
}
