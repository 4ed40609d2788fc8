import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCertificateFile } from '../../../src/core/ssh/certificate';
import { revokedBy, type RevocationSubject } from '../../../src/core/ssh/revokedKeys';

/** RevokedHostKeys files as ssh-keygen writes them (`ssh-keygen -k`), read the way ssh does (issue 40 §2). */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-krl-unit-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const keygen = (args: string[]) => execFileSync('ssh-keygen', ['-q', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
keygen(['-t', 'ed25519', '-N', '', '-f', path.join(dir, 'ca')]);
let n = 0;

function key(): { pub: string; blob: Buffer } {
  const f = path.join(dir, `k${n++}`);
  keygen(['-t', 'ed25519', '-N', '', '-f', f]);
  return { pub: `${f}.pub`, blob: Buffer.from(fs.readFileSync(`${f}.pub`, 'utf8').split(/\s+/)[1], 'base64') };
}

/** A host certificate ssh-keygen -s made (its file in `.file`), as revocation sees it. */
function cert(serial: number, id: string): RevocationSubject & { file: string } {
  const k = key();
  keygen(['-s', path.join(dir, 'ca'), '-I', id, '-h', '-n', 'h', '-z', String(serial), k.pub]);
  const c = readCertificateFile(k.pub.replace(/\.pub$/, '-cert.pub'))!;
  return { file: c.file, publicKey: c.publicKey, cert: { caKey: c.caKey, serial: c.serial, keyId: c.keyId } };
}

function writeList(text: string): string {
  const f = path.join(dir, `list${n++}`);
  fs.writeFileSync(f, text);
  return f;
}

function krl(spec: string[], ca = true): string {
  const f = path.join(dir, `krl${n++}`);
  fs.writeFileSync(`${f}.spec`, spec.join('\n') + '\n');
  keygen(['-k', '-f', f, ...(ca ? ['-s', path.join(dir, 'ca.pub')] : []), `${f}.spec`]);
  return f;
}

/** The certificate subsection types of a KRL, walked by PROTOCOL.krl's layout (independent of the parser under test). */
function certSubsections(b: Buffer): number[] {
  let p = 8 + 4 + 8 + 8 + 8;
  const str = () => {
    const len = b.readUInt32BE(p);
    const v = b.subarray(p + 4, p + 4 + len);
    p += 4 + len;
    return v;
  };
  str();
  str();
  const out: number[] = [];
  while (p < b.length) {
    const type = b[p++];
    const data = str();
    if (type !== 1) continue;
    let q = 0;
    const skip = () => (q += 4 + data.readUInt32BE(q));
    skip();
    skip();
    while (q < data.length) {
      out.push(data[q++]);
      skip();
    }
  }
  return out;
}

describe('RevokedHostKeys: KRL sections and plain lists', () => {
  it('serial lists, ranges and bitmaps revoke exactly their serials; serial 0 never; key ids', () => {
    const sparse = krl(['serial: 3', 'serial: 5', 'serial: 9', 'serial: 10', 'serial: 12', 'serial: 14', 'serial: 15', 'serial: 20', 'serial: 100-200', 'id: lost-host']);
    // ssh-keygen encoded the small serials as a bitmap (0x22), the range as a range (0x21), the id as 0x23.
    expect(certSubsections(fs.readFileSync(sparse))).toEqual(expect.arrayContaining([0x21, 0x22, 0x23]));
    for (const s of [3, 5, 9, 10, 12, 14, 15, 20, 100, 150, 200]) expect(revokedBy(sparse, cert(s, 'x')), `serial ${s}`).toBe('its certificate is revoked');
    for (const s of [0, 1, 2, 4, 11, 13, 16, 21, 99, 201]) expect(revokedBy(sparse, cert(s, 'x')), `serial ${s}`).toBeNull();
    expect(revokedBy(sparse, cert(0, 'lost-host'))).toBe('its certificate is revoked');
  });

  it('another CA\'s serials and key ids do not apply', () => {
    const otherCa = path.join(dir, 'other-ca');
    keygen(['-t', 'ed25519', '-N', '', '-f', otherCa]);
    const f = path.join(dir, 'other.krl');
    fs.writeFileSync(`${f}.spec`, 'serial: 7\nid: lost-host\n');
    keygen(['-k', '-f', f, '-s', `${otherCa}.pub`, `${f}.spec`]);
    expect(revokedBy(f, cert(7, 'lost-host'))).toBeNull();
  });

  it('explicit keys, SHA1 and SHA256 hashes revoke a plain key; a list of key lines too', () => {
    const k = key();
    const line = fs.readFileSync(k.pub, 'utf8').trim();
    for (const spec of [[`key: ${line}`], [`sha1: ${line}`], [`hash: SHA256:${createHash('sha256').update(k.blob).digest('base64').replace(/=+$/, '')}`]]) {
      const f = krl(spec, false);
      expect(revokedBy(f, { publicKey: k.blob }), spec[0]).toBe('its key is revoked');
      expect(revokedBy(f, { publicKey: key().blob }), spec[0]).toBeNull();
    }
    const list = path.join(dir, 'list');
    fs.writeFileSync(list, `# comment\n\n${line}\n`);
    expect(revokedBy(list, { publicKey: k.blob })).toBe('its key is listed');
    expect(revokedBy(list, { publicKey: key().blob })).toBeNull();
    // A listed certificate revokes the key it certifies, as ssh compares public parts.
    const c = cert(3, 'listed');
    expect(revokedBy(writeList(fs.readFileSync(c.file, 'utf8')), c)).toBe('its key is listed');
    expect(revokedBy(writeList(fs.readFileSync(c.file, 'utf8')), cert(3, 'listed'))).toBeNull();
    // An empty file is an empty list (not a KRL): nothing revoked, as for ssh.
    fs.writeFileSync(list, '');
    expect(revokedBy(list, { publicKey: k.blob })).toBeNull();
  });

  it('unreadable, cut or foreign files: one line naming the file and the fix', () => {
    const k = key();
    const cut = path.join(dir, 'cut.krl');
    fs.writeFileSync(cut, fs.readFileSync(krl(['serial: 1-5'])).subarray(0, 50));
    const junk = path.join(dir, 'junk');
    fs.writeFileSync(junk, 'ssh-ed25519 not-base64!\n');
    for (const [f, why] of [[path.join(dir, 'missing'), /cannot be read \(ENOENT\)/], [dir, /is not a regular file/], [cut, /valid KRL.*ends in the middle/], [junk, /line 1 is not a public key/]] as const) {
      expect(() => revokedBy(f, { publicKey: k.blob })).toThrow(why);
      expect(() => revokedBy(f, { publicKey: k.blob })).toThrow(`The revoked host keys file ${f} (RevokedHostKeys)`);
    }
  });
});
