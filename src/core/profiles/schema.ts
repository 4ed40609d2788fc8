import { z } from 'zod';
import { keyName, profileSchema } from '../../shared/profileSchema';

/**
 * The profiles file: servers and key metadata. It never holds a secret: private keys, passwords and
 * passphrases live in the OS keychain; only names, public keys and fingerprints are written here.
 */
export const SCHEMA_VERSION = 3;

// The profile itself is defined once, in src/shared; this file adds what only the file has: its
// version, key records and the document around them. The re-export keeps the CLI's imports working.
export { NAME_RE, VIEWER_ENCODINGS, type Profile, type ProfileAuth } from '../../shared/profileSchema';

/**
 * What the profiles store takes: the saved profile as its schema parses it (id, timestamps and defaults
 * filled in). Not the window's input (src/shared/contract.ts ProfileInput), which is stricter.
 */
export type StoredProfileInput = z.input<typeof profileSchema>;

export const KEY_TYPES = ['ssh-ed25519', 'ssh-rsa', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521'] as const;

export const keyRecordSchema = z.object({
  name: keyName,
  type: z.enum(KEY_TYPES),
  /** "ssh-ed25519 AAAA… comment", the authorized_keys line. */
  publicKey: z.string().regex(/^(ssh-|ecdsa-)\S+ [A-Za-z0-9+/]+=* ?.*$/, 'public key must be an OpenSSH public key line'),
  fingerprint: z.string().regex(/^SHA256:[A-Za-z0-9+/]+$/, 'fingerprint must be SHA256:…'),
  comment: z.string().default(''),
  /** keychain: the private key is the keychain entry; sealed-file: keys/<name>.sealed holds it, the keychain holds the data key. */
  storage: z.enum(['keychain', 'sealed-file']),
  source: z.enum(['generated', 'imported']),
  createdAt: z.string(),
  /** "user@host:port" of each server gpu-desk put this key on (and has not removed it from since): what gpu-desk knows, not what the servers hold. */
  installedOn: z.array(z.string()).default([]),
  /**
   * An OpenSSH certificate for this key, by path (a site's sshproxy rewrites it every day, so it is
   * read at each connect, never copied): offered before the plain key.
   */
  certificateFile: z.string().optional(),
});
export type KeyRecord = z.infer<typeof keyRecordSchema>;

export const storeDocSchema = z
  .object({
    schemaVersion: z.literal(SCHEMA_VERSION),
    profiles: z.array(profileSchema),
    keys: z.array(keyRecordSchema).default([]),
  })
  .superRefine((doc, ctx) => {
    dupes(doc.profiles.map((p) => p.name)).forEach((n) => ctx.addIssue({ code: 'custom', message: `profile name "${n}" appears twice`, path: ['profiles'] }));
    dupes(doc.keys.map((k) => k.name)).forEach((n) => ctx.addIssue({ code: 'custom', message: `key name "${n}" appears twice`, path: ['keys'] }));
  });
export type StoreDoc = z.infer<typeof storeDocSchema>;

function dupes(names: string[]): string[] {
  const seen = new Set<string>();
  const out = new Set<string>();
  for (const n of names) (seen.has(n) ? out : seen).add(n);
  return [...out];
}

export function emptyDoc(): StoreDoc {
  return { schemaVersion: SCHEMA_VERSION, profiles: [], keys: [] };
}

/** One line naming the first problem and where it is, e.g. `profiles[2] "lab" port: port must be between 1 and 65535`. */
export function describeZodError(err: z.ZodError, root?: unknown): string {
  const issue = err.issues[0];
  if (!issue) return 'invalid';
  const where = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
  let label = where;
  // Name the profile too: "profiles[2]" alone is hard to find in a long file.
  if (root && issue.path[0] === 'profiles' && typeof issue.path[1] === 'number') {
    const p = (root as { profiles?: { name?: unknown }[] }).profiles?.[issue.path[1]];
    if (p && typeof p.name === 'string') label = `profile "${p.name}" ${issue.path.slice(2).join('.')}`.trim();
  }
  return label ? `${label}: ${issue.message}` : issue.message;
}
