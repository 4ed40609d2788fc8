import fs from 'node:fs';
import path from 'node:path';

/**
 * Needles for a secret: the value itself, and for a PEM/OpenSSH private key each line of its
 * base64 body after the first two (those carry only the fixed header and the public key).
 */
export function needlesFor(secret: string): string[] {
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(secret)) return [secret];
  const body = secret.split('\n').filter((l) => l && !l.startsWith('-----') && !l.includes(':'));
  return [secret, ...body.slice(2).filter((l) => l.length >= 20)];
}

export interface SecretHit {
  where: string;
  needle: string;
}

/** Every file under `roots` (and every extra text) searched for every needle of every secret. */
export function scanForSecrets(secrets: string[], roots: string[], texts: { where: string; text: string }[] = []): SecretHit[] {
  const needles = secrets.filter((s) => s && s.length >= 4).flatMap(needlesFor);
  const hits: SecretHit[] = [];
  const check = (where: string, text: string) => {
    for (const n of needles) if (text.includes(n)) hits.push({ where, needle: n.slice(0, 12) + '…' });
    if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) hits.push({ where, needle: 'PRIVATE KEY armour' });
  };
  const walk = (p: string) => {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      return;
    }
    if (st.isDirectory()) for (const n of fs.readdirSync(p)) walk(path.join(p, n));
    else if (st.isFile()) check(p, fs.readFileSync(p).toString('latin1'));
  };
  roots.forEach(walk);
  for (const t of texts) check(t.where, t.text);
  return hits;
}
