import { z } from 'zod';
import { JUMP_SPEC_RE, LOGIN_NAME_MESSAGE, LOGIN_NAME_RE } from '../../shared/loginNames';

/**
 * The profiles file: servers and key metadata. It never holds a secret: private keys, passwords and
 * passphrases live in the OS keychain; only names, public keys and fingerprints are written here.
 */
export const SCHEMA_VERSION = 3;

// Names double as CLI destinations, so they must never look like user@host:port or an option.
export const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const nameMsg = 'must be 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit';
export const profileName = z.string().regex(NAME_RE, nameMsg);
export const keyName = z.string().regex(NAME_RE, `key name ${nameMsg}`);

// A leading "-" would be read as an option if the value ever reaches OpenSSH's command line.
const hostField = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `${what} is empty`)
    .max(255, `${what} is longer than 255 characters`)
    .refine((s) => !/\s/.test(s), `${what} must not contain spaces`)
    .refine((s) => !s.startsWith('-'), `${what} must not start with "-"`);

const port = (what: string) =>
  z
    .number({ error: `${what} must be a number` })
    .int(`${what} must be a whole number`)
    .min(1, `${what} must be between 1 and 65535`)
    .max(65535, `${what} must be between 1 and 65535`);

const userField = z
  .string()
  .min(1, 'user is empty')
  .max(64, 'user is longer than 64 characters')
  .regex(LOGIN_NAME_RE, LOGIN_NAME_MESSAGE);

/** "[user@]host[:port]" as OpenSSH's ProxyJump writes each hop. */
export const JUMP_RE = JUMP_SPEC_RE;
const jumpHost = z.string().regex(JUMP_RE, 'jump host must look like [user@]host[:port]');

export const AUTH_KINDS = ['auto', 'agent', 'keychain-key', 'key-file', 'password'] as const;

export const authSchema = z.discriminatedUnion(
  'kind',
  [
    /** Like ssh: agent, default identity files, then ask for a password. */
    z.object({ kind: z.literal('auto') }),
    z.object({ kind: z.literal('agent'), socket: z.string().min(1).optional() }),
    /** A key pair gpu-desk keeps in the OS keychain (see keys[]). */
    z.object({ kind: z.literal('keychain-key'), key: keyName }),
    z.object({ kind: z.literal('key-file'), path: z.string().min(1, 'key file path is empty') }),
    /** remember=true: the password sits in the keychain under this profile's id, never here. */
    z.object({ kind: z.literal('password'), remember: z.boolean().default(false) }),
  ],
  { error: (iss) => (iss.code === 'invalid_union' ? `auth kind must be one of ${AUTH_KINDS.join(', ')}` : undefined) },
);
export type ProfileAuth = z.infer<typeof authSchema>;

export const VIEWER_ENCODINGS = ['tight', 'zrle', 'hextile', 'copyrect', 'rre', 'zlib', 'raw', 'h264', 'jpeg'] as const;

export const viewerSchema = z.object({
  /** RFB JPEG quality level 0–9 (TurboVNC maps it to JPEG quality and subsampling). */
  quality: z.number().int().min(0, 'quality must be 0–9').max(9, 'quality must be 0–9').default(6),
  compression: z.number().int().min(0, 'compression must be 0–9').max(9, 'compression must be 0–9').default(2),
  /** Preferred encodings in order; empty = the viewer's default order. */
  encodings: z.array(z.enum(VIEWER_ENCODINGS)).default([]),
  scaling: z.enum(['off', 'fit', 'remote-resize']).default('fit'),
  /** Lower quality automatically when the link is slow. */
  adaptive: z.boolean().default(true),
});
export type ViewerPrefs = z.infer<typeof viewerSchema>;

export const forwardSchema = z.object({
  kind: z.literal('local'),
  /** 0 = any free port; always bound on 127.0.0.1. */
  localPort: z.number().int().min(0, 'local port must be 0–65535').max(65535, 'local port must be 0–65535'),
  remoteHost: hostField('forward remote host'),
  remotePort: port('forward remote port'),
});
export type ForwardSpec = z.infer<typeof forwardSchema>;

export const GEOMETRY_RE = /^\d{2,5}x\d{2,5}$/;

/**
 * A value that becomes one sbatch word (`--partition=VALUE`, quoted by shellQuote at submit): any
 * text but a line break or control character, which would split the word in the shown script.
 */
const slurmValue = (what: string) =>
  z
    .string()
    .trim()
    .min(1, `${what} is empty`)
    .max(200, `${what} is longer than 200 characters`)
    .refine((s) => ![...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f), `${what} must be one line without control characters`);

// Slurm's own time formats; anything else sbatch refuses only at submit, so say it at save time.
export const SLURM_TIME_RE = /^(?:\d+|\d+:\d{1,2}|\d+:\d{1,2}:\d{1,2}|\d+-\d+(?::\d{1,2}(?::\d{1,2})?)?|UNLIMITED|INFINITE)$/i;

/** A cluster profile's job settings (every field optional: the cluster's defaults apply). */
export const jobSettingsSchema = z.object({
  partition: slurmValue('partition').optional(),
  account: slurmValue('account').optional(),
  qos: slurmValue('QoS').optional(),
  time: z.string().trim().regex(SLURM_TIME_RE, 'time limit must be minutes, MM:SS, HH:MM:SS or D-HH[:MM[:SS]] (e.g. 2:00:00)').optional(),
  gres: slurmValue('GPUs (gres)').optional(),
  cpus: z.number({ error: 'CPUs must be a number' }).int('CPUs must be a whole number').min(1, 'CPUs must be at least 1').max(100000, 'CPUs must be at most 100000').optional(),
  mem: slurmValue('memory').optional(),
  constraint: slurmValue('constraint').optional(),
  extraSbatch: z.array(slurmValue('extra sbatch option').refine((s) => s.startsWith('-'), 'extra sbatch options must each start with "-" (e.g. --reservation=demo)')).max(32).default([]),
  /** Shell lines run in the job before the desktop starts (module load …): the user's own code, shown before the first submit. */
  preamble: z.array(z.string().max(1000, 'a line before the desktop is longer than 1000 characters').refine((s) => !/[\r\n\0]/.test(s), 'each line before the desktop must be one line')).max(64).default([]),
  windowManager: z.string().regex(/^[A-Za-z0-9_.+-]{1,64}$/, 'window manager must be a session name like xfce or openbox').optional(),
  nodeAccess: z.enum(['ssh', 'login-forward'], { error: 'node access must be ssh or login-forward' }).default('ssh'),
  /** Install prefix of TurboVNC/VirtualGL on the nodes. */
  optRoot: z.string().regex(/^\/[^\s]*$/, 'install prefix must be an absolute path without spaces').optional(),
});
export type ProfileJobSettings = z.infer<typeof jobSettingsSchema>;
export const PROFILE_KINDS = ['server', 'cluster'] as const;

export const profileSchema = z.object({
  id: z.string().min(8),
  name: profileName,
  /** server: a machine to run desktops on; cluster: a Slurm login node, desktops run as jobs on its nodes. */
  kind: z.enum(PROFILE_KINDS, { error: `kind must be ${PROFILE_KINDS.join(' or ')}` }).default('server'),
  /** Only for kind "cluster"; absent there means the cluster's defaults for everything. */
  job: jobSettingsSchema.optional(),
  host: hostField('host'),
  port: port('port').default(22),
  user: userField.optional(),
  jumpHosts: z.array(jumpHost).default([]),
  /** ssh's ProxyCommand (tokens %h %p %r %n %% unexpanded), from an imported ssh config; ignored when jumpHosts is set, as ssh -J overrides it. */
  proxyCommand: z
    .string()
    .trim()
    .min(1, 'proxy command is empty')
    .max(4096, 'proxy command is longer than 4096 characters')
    .refine((s) => !/[\r\n\0]/.test(s), 'proxy command must be one line')
    .optional(),
  auth: authSchema.default({ kind: 'auto' }),
  display: z
    .object({
      number: z.number().int().min(0, 'display must be 0–99').max(99, 'display must be 0–99').optional(),
      geometry: z.string().regex(GEOMETRY_RE, 'geometry must look like 1920x1080').optional(),
    })
    .default({}),
  viewer: viewerSchema.default(viewerSchema.parse({})),
  forwards: z.array(forwardSchema).default([]),
  createdAt: z.string(),
  updatedAt: z.string(),
}).refine((p) => p.kind === 'cluster' || p.job === undefined, { message: 'job settings belong to a cluster profile (kind "cluster")', path: ['job'] });
export type Profile = z.infer<typeof profileSchema>;
/** What a caller supplies; id, timestamps and defaults are filled in. */
export type ProfileInput = z.input<typeof profileSchema>;

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
