import { z } from 'zod';
import { JUMP_SPEC_RE, LOGIN_NAME_MESSAGE, LOGIN_NAME_RE } from './loginNames';

/**
 * A saved server (a profile) and the parts it is made of, each defined once: the profiles store
 * validates its file with these schemas, the IPC contract derives the window's input from them, and
 * every TypeScript type of them (here and in models.ts) is inferred, never written out again.
 * A profile never holds a secret: private keys, passwords and passphrases live in the OS keychain.
 */

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
export const jumpHost = z.string().max(330, 'jump host is longer than 330 characters').regex(JUMP_RE, 'jump host must look like [user@]host[:port]');

/** Longest local path accepted (Linux's PATH_MAX). */
const PATH_MAX = 4096;

export const AUTH_KINDS = ['auto', 'agent', 'keychain-key', 'key-file', 'password'] as const;

/** The message for an unknown sign-in kind (also the window input's, which makes these variants strict). */
export const authKindError = (iss: { code: string }) => (iss.code === 'invalid_union' ? `auth kind must be one of ${AUTH_KINDS.join(', ')}` : undefined);

export const authSchema = z.discriminatedUnion(
  'kind',
  [
    /** Like ssh: agent, default identity files, then ask for a password. */
    z.object({ kind: z.literal('auto') }),
    z.object({ kind: z.literal('agent'), socket: z.string().min(1).max(PATH_MAX).optional() }),
    /** A key pair gpu-desk keeps in the OS keychain (the store's keys[]). */
    z.object({ kind: z.literal('keychain-key'), key: keyName }),
    z.object({ kind: z.literal('key-file'), path: z.string().min(1, 'key file path is empty').max(PATH_MAX, 'key file path is too long') }),
    /** remember=true: the password sits in the keychain under this profile's id, never in the profile. */
    z.object({ kind: z.literal('password'), remember: z.boolean().default(false) }),
  ],
  { error: authKindError },
);
/** How a profile logs in. */
export type ProfileAuth = z.infer<typeof authSchema>;

export const VIEWER_ENCODINGS = ['tight', 'zrle', 'hextile', 'copyrect', 'rre', 'zlib', 'raw', 'h264', 'jpeg'] as const;
export type SavedEncoding = (typeof VIEWER_ENCODINGS)[number];

/** What a profile saves about the viewer (the rest of the viewer's settings is per window). */
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
export type SavedViewerPrefs = z.infer<typeof viewerSchema>;

/** A local forward: listening on 127.0.0.1 only. */
export const forwardSchema = z.object({
  kind: z.literal('local'),
  /** 0 = any free port. */
  localPort: z.number().int().min(0, 'local port must be 0–65535').max(65535, 'local port must be 0–65535'),
  remoteHost: hostField('forward remote host'),
  remotePort: port('forward remote port'),
});
export type ForwardSpec = z.infer<typeof forwardSchema>;

export const GEOMETRY_RE = /^\d{2,5}x\d{2,5}$/;

export const displaySchema = z.object({
  number: z.number().int().min(0, 'display must be 0–99').max(99, 'display must be 0–99').optional(),
  geometry: z.string().regex(GEOMETRY_RE, 'geometry must look like 1920x1080').optional(),
});

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
/** How the viewer reaches a job's node (jobSettingsSchema's nodeAccess, and the route a viewer took). */
export const NODE_ACCESS = ['ssh', 'login-forward'] as const;
export type NodeAccess = (typeof NODE_ACCESS)[number];

export const SLURM_TIME_RE = /^(?:\d+|\d+:\d{1,2}|\d+:\d{1,2}:\d{1,2}|\d+-\d+(?::\d{1,2}(?::\d{1,2})?)?|UNLIMITED|INFINITE)$/i;

/**
 * A cluster profile's job settings. Every field may be left out: the cluster's defaults apply, and
 * the lists default to empty. Saved settings (z.infer) always have the lists; what a job is
 * submitted with (z.input, src/core/cluster/types.ts JobSettings) may omit them.
 */
export const jobSettingsSchema = z.object({
  partition: slurmValue('partition').optional(),
  account: slurmValue('account').optional(),
  qos: slurmValue('QoS').optional(),
  /** Slurm time: minutes, HH:MM:SS, D-HH[:MM[:SS]]. */
  time: z.string().trim().max(200, 'time limit is longer than 200 characters').regex(SLURM_TIME_RE, 'time limit must be minutes, MM:SS, HH:MM:SS or D-HH[:MM[:SS]] (e.g. 2:00:00)').optional(),
  /** e.g. gpu:1, gpu:a100:2 */
  gres: slurmValue('GPUs (gres)').optional(),
  cpus: z.number({ error: 'CPUs must be a number' }).int('CPUs must be a whole number').min(1, 'CPUs must be at least 1').max(100000, 'CPUs must be at most 100000').optional(),
  /** e.g. 16G (sbatch --mem). */
  mem: slurmValue('memory').optional(),
  constraint: slurmValue('constraint').optional(),
  /** Further sbatch options, one word each (e.g. --reservation=demo). */
  extraSbatch: z.array(slurmValue('extra sbatch option').refine((s) => s.startsWith('-'), 'extra sbatch options must each start with "-" (e.g. --reservation=demo)')).max(32).default([]),
  /** Shell lines run in the job before the desktop starts (module load …): the user's own code, shown before the first submit. */
  preamble: z.array(z.string().max(1000, 'a line before the desktop is longer than 1000 characters').refine((s) => !/[\r\n\0]/.test(s), 'each line before the desktop must be one line')).max(64).default([]),
  /** Window manager for TurboVNC's -wm; absent: the node's session, else a bare X desktop. */
  windowManager: z.string().regex(/^[A-Za-z0-9_.+-]{1,64}$/, 'window manager must be a session name like xfce or openbox').optional(),
  /**
   * How the viewer reaches the node. ssh: ProxyJump to the node and the session's Unix socket.
   * login-forward: a TCP forward from the login node to the node's VNC port, for clusters that block
   * SSH to nodes; the port then answers only to one-time passwords.
   */
  nodeAccess: z.enum(NODE_ACCESS, { error: 'node access must be ssh or login-forward' }).default('ssh'),
  /** Install prefix of TurboVNC/VirtualGL on the nodes (absent: /opt). */
  optRoot: z.string().max(PATH_MAX, 'install prefix is too long').regex(/^\/[^\s]*$/, 'install prefix must be an absolute path without spaces').optional(),
});
export type ClusterJobSettings = z.infer<typeof jobSettingsSchema>;

export const PROFILE_KINDS = ['server', 'cluster'] as const;

/** The profile's fields without the rule that ties them together (zod cannot derive from a refined object). */
export const profileObject = z.object({
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
  /**
   * ssh's ProxyCommand (tokens %h %p %r %n %% unexpanded), only from an imported ssh config (the
   * window cannot set it); ignored when jumpHosts is set, as ssh -J overrides it.
   */
  proxyCommand: z
    .string()
    .trim()
    .min(1, 'proxy command is empty')
    .max(4096, 'proxy command is longer than 4096 characters')
    .refine((s) => !/[\r\n\0]/.test(s), 'proxy command must be one line')
    .optional(),
  auth: authSchema.default({ kind: 'auto' }),
  display: displaySchema.default({}),
  viewer: viewerSchema.default(viewerSchema.parse({})),
  forwards: z.array(forwardSchema).default([]),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const profileSchema = profileObject.refine((p) => p.kind === 'cluster' || p.job === undefined, {
  message: 'job settings belong to a cluster profile (kind "cluster")',
  path: ['job'],
});
/** A saved server, as the profiles store keeps it and the window lists it. */
export type Profile = z.infer<typeof profileSchema>;
