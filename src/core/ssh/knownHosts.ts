import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sha256Fingerprint } from './fingerprint';

/** One usable line of a known_hosts file. */
export interface KnownHostEntry {
  marker: '@revoked' | '@cert-authority' | null;
  /** Comma-separated patterns, or a hashed `|1|salt|hash` entry. */
  hostField: string;
  keyType: string;
  keyBlob: Buffer;
  file: string;
  line: number;
}

export type KnownHostStatus =
  | { status: 'known'; entry: KnownHostEntry }
  | { status: 'revoked'; entry: KnownHostEntry }
  | { status: 'changed'; expected: KnownKeyRef[] }
  /**
   * `otherKeys`: keys of other types known for this host (then the host is not new: OpenSSH only
   * offers those types). `certAuthorities`: @cert-authority lines that name this host.
   */
  | { status: 'unknown'; otherKeys: KnownKeyRef[]; certAuthorities: KnownKeyRef[] };

export interface KnownKeyRef {
  keyType: string;
  fingerprint: string;
  file: string;
  line: number;
}

function ref(e: KnownHostEntry): KnownKeyRef {
  return { keyType: e.keyType, fingerprint: sha256Fingerprint(e.keyBlob), file: e.file, line: e.line };
}

/** OpenSSH's UserKnownHostsFile default. */
export function defaultUserKnownHostsFiles(): string[] {
  const dir = path.join(os.homedir(), '.ssh');
  return [path.join(dir, 'known_hosts'), path.join(dir, 'known_hosts2')];
}

/** OpenSSH's GlobalKnownHostsFile default (administrators pin cluster keys here). */
export function defaultGlobalKnownHostsFiles(): string[] {
  return ['/etc/ssh/ssh_known_hosts', '/etc/ssh/ssh_known_hosts2'];
}

/** The name OpenSSH looks up: `host` on port 22, `[host]:port` otherwise. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

export function parseKnownHosts(text: string, file = '(memory)'): KnownHostEntry[] {
  const out: KnownHostEntry[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const parts = line.split(/\s+/);
    let marker: KnownHostEntry['marker'] = null;
    if (parts[0] === '@revoked' || parts[0] === '@cert-authority') marker = parts.shift() as KnownHostEntry['marker'];
    else if (parts[0].startsWith('@')) return; // unknown marker: OpenSSH ignores the line
    if (parts.length < 3) return;
    const [hostField, keyType, b64] = parts;
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return;
    out.push({ marker, hostField, keyType, keyBlob: Buffer.from(b64, 'base64'), file, line: i + 1 });
  });
  return out;
}

/** OpenSSH glob: `*` and `?`, case-insensitive host names. */
function globMatch(pattern: string, name: string): boolean {
  const re = new RegExp(
    '^' + pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$',
    'i',
  );
  return re.test(name);
}

function hashedMatch(field: string, name: string): boolean {
  const m = /^\|1\|([^|]+)\|([^|]+)$/.exec(field);
  if (!m) return false;
  const salt = Buffer.from(m[1], 'base64');
  // OpenSSH lower-cases the host name before hashing it, so `ssh GPU01.lab` and `ssh gpu01.lab` share a line.
  const digest = createHmac('sha1', salt).update(name.toLowerCase()).digest('base64');
  return digest === m[2];
}

export function entryMatchesHost(entry: KnownHostEntry, name: string): boolean {
  if (entry.hostField.startsWith('|')) return hashedMatch(entry.hostField, name);
  let matched = false;
  for (const pat of entry.hostField.split(',')) {
    if (pat.startsWith('!')) {
      if (globMatch(pat.slice(1), name)) return false; // a negated match vetoes the line
    } else if (globMatch(pat, name)) {
      matched = true;
    }
  }
  return matched;
}

/** Key types are compared by family: an RSA key is stored as ssh-rsa whatever signature algorithm is used. */
function sameFamily(a: string, b: string): boolean {
  const fam = (t: string) => (t.startsWith('rsa-sha2-') ? 'ssh-rsa' : t);
  return fam(a) === fam(b);
}

/**
 * Decide about a presented host key the way OpenSSH does: a revoked key is refused, a matching key
 * is known, a different key of the same type for this name is a change, otherwise unknown.
 */
export function checkHostKey(entries: KnownHostEntry[], names: string[], keyType: string, keyBlob: Buffer): KnownHostStatus {
  const forHost = entries.filter((e) => names.some((n) => entryMatchesHost(e, n)));
  const revoked = entries.find((e) => e.marker === '@revoked' && e.keyBlob.equals(keyBlob));
  if (revoked) return { status: 'revoked', entry: revoked };
  const plain = forHost.filter((e) => e.marker === null);
  const exact = plain.find((e) => e.keyBlob.equals(keyBlob));
  if (exact) return { status: 'known', entry: exact };
  const sameType = plain.filter((e) => sameFamily(e.keyType, keyType));
  if (sameType.length) return { status: 'changed', expected: sameType.map(ref) };
  return { status: 'unknown', otherKeys: plain.map(ref), certAuthorities: forHost.filter((e) => e.marker === '@cert-authority').map(ref) };
}

export function readKnownHostsFiles(files: string[]): KnownHostEntry[] {
  const all: KnownHostEntry[] = [];
  for (const f of files) {
    let text: string;
    try {
      text = fs.readFileSync(f, 'utf8');
    } catch {
      continue; // a missing known_hosts file is normal
    }
    all.push(...parseKnownHosts(text, f));
  }
  return all;
}

/** Plain keys pinned for this host (no @revoked or @cert-authority lines). */
export function knownKeysFor(entries: KnownHostEntry[], names: string[]): KnownKeyRef[] {
  return entries.filter((e) => e.marker === null && names.some((n) => entryMatchesHost(e, n))).map(ref);
}

/** Append `name keytype base64` to the app's known-hosts file (created 0600, directory 0700). */
export function appendKnownHost(file: string, name: string, keyType: string, keyBlob: Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  let prefix = '';
  try {
    const cur = fs.readFileSync(file, 'utf8');
    if (cur.length && !cur.endsWith('\n')) prefix = '\n';
  } catch { /* new file */ }
  // Lower case, as OpenSSH writes host names.
  fs.appendFileSync(file, `${prefix}${name.toLowerCase()} ${keyType} ${keyBlob.toString('base64')}\n`, { mode: 0o600 });
}
