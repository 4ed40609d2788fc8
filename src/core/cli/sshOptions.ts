import path from 'node:path';
import type { JobSettings } from '../cluster/types';
import { GpuDeskError } from '../errors';
import { appPaths } from '../profiles/appPaths';
import type { ConnectOptions, ConnectCallbacks } from '../ssh/types';
import type { CliIo } from './io';
import { writeLine } from './io';
import { UsageError } from './parse';
import { ask } from './prompts';

/** Options every command that takes <destination> accepts (the same meaning as OpenSSH's). */
export const sshOptionSpec = {
  port: { type: 'string', short: 'p' },
  identity: { type: 'string', short: 'i', multiple: true },
  jump: { type: 'string', short: 'J' },
  user: { type: 'string', short: 'l' },
  'ssh-config': { type: 'string', short: 'F' },
  'known-hosts': { type: 'string' },
  'accept-new-host-key': { type: 'boolean' },
  'no-agent': { type: 'boolean' },
  verbose: { type: 'boolean', short: 'v' },
} as const;

export const sshOptionHelp = [
  '  -p PORT                  SSH port (default 22, or Port from ~/.ssh/config)',
  '  -i FILE                  private key file (repeatable)',
  '  -J [user@]host[:port]    jump host(s), comma-separated (like ssh -J)',
  '  -l USER                  remote user',
  '  -F FILE|none             ssh config file (default ~/.ssh/config)',
  '  --known-hosts FILE       use FILE as gpu-desk\'s own known-hosts file',
  '  --accept-new-host-key    save a new host\'s key without asking (StrictHostKeyChecking=accept-new;',
  '                           changed keys, and hosts known by a key of another type, are still refused)',
  '  --no-agent               do not use ssh-agent',
  '  -v, --verbose            connection details on stderr (a ProxyCommand\'s own messages included)',
];

export type SshOptionValues = {
  port?: string;
  identity?: string[];
  jump?: string;
  user?: string;
  'ssh-config'?: string;
  'known-hosts'?: string;
  'accept-new-host-key'?: boolean;
  'no-agent'?: boolean;
  verbose?: boolean;
};

/**
 * Turns a profile name into connection options. Installed by the profiles module so every command
 * that takes <destination> also takes a saved profile's name.
 */
export type DestinationResolver = (destination: string, io: CliIo) => Promise<(Partial<ConnectOptions> & { defaults?: DestinationDefaults }) | null>;

/** What a saved profile suggests when the command line is silent. */
export interface DestinationDefaults {
  display?: number;
  forwards?: { localPort: number; remoteHost: string; remotePort: number }[];
  geometry?: string;
  /** A cluster profile's job settings. */
  job?: JobSettings;
}
let resolver: DestinationResolver | null = null;
/** Bare names looked up as saved profiles in this process and not found (for a clearer DNS error). */
const notProfiles = new Set<string>();
export function notAProfile(name: string): boolean {
  return notProfiles.has(name);
}
export function setDestinationResolver(r: DestinationResolver | null): void {
  resolver = r;
}

/** Host-key questions and secret prompts on a terminal; without one, only what flags allow. */
export function terminalCallbacks(io: CliIo): ConnectCallbacks {
  // Without a terminal there is nobody to ask: the connection layer then refuses unknown keys with
  // an error that names the fingerprint and --accept-new-host-key.
  return {
    onUnknownHostKey: !io.interactive ? undefined : async (p) => {
      const hop = p.hop > 0 ? ` (hop ${p.hop + 1})` : '';
      writeLine(io.stderr, `The authenticity of host '${p.host}'${hop} can't be established.`);
      writeLine(io.stderr, `${p.keyType} key fingerprint is ${p.fingerprint}.`);
      for (;;) {
        const a = (await ask(io, 'Accept it? [y]es and save / [o]nce / [n]o: '))?.trim().toLowerCase();
        if (a === null || a === undefined || a === 'n' || a === 'no') return 'reject';
        if (a === 'y' || a === 'yes') return 'accept-save';
        if (a === 'o' || a === 'once') return 'accept-once';
      }
    },
    notice: (line) => writeLine(io.stderr, line),
    banner: (text) => writeLine(io.stderr, text.replace(/\r?\n$/, '')),
    askPassphrase: io.interactive ? (p) => ask(io, `Enter passphrase for key '${p.keyLabel}': `, { hidden: true }) : undefined,
    askPassword: io.interactive ? (p) => ask(io, `${p.user}@${p.host}'s password: `, { hidden: true }) : undefined,
    keyboardInteractive: io.interactive
      ? async (p) => {
          // As OpenSSH: the name and the instructions first, when the server sends them.
          if (p.name) writeLine(io.stderr, p.name);
          if (p.instructions) writeLine(io.stderr, p.instructions);
          const answers: string[] = [];
          for (const q of p.prompts) {
            const a = await ask(io, q.prompt, { hidden: !q.echo });
            if (a === null) return null;
            answers.push(a);
          }
          return answers;
        }
      : undefined,
  };
}

export async function connectOptionsFromFlags(destination: string, v: SshOptionValues, io: CliIo): Promise<ConnectOptions> {
  return (await resolveDestination(destination, v, io)).options;
}

/** The <destination> positional every remote command starts with. */
export function destinationOf(positionals: string[], command: string): string {
  if (positionals.length === 0) throw new UsageError('The destination is missing', command);
  return positionals[0];
}

/** Flags + profile (if the destination names one) → connection options, and the profile's defaults. */
export async function resolveDestination(
  destination: string,
  v: SshOptionValues,
  io: CliIo,
): Promise<{ options: ConnectOptions; defaults: DestinationDefaults }> {
  let port: number | undefined;
  if (v.port !== undefined) {
    port = Number(v.port);
    if (!/^\d+$/.test(v.port) || port < 1 || port > 65535) {
      throw new GpuDeskError('BAD_ARGUMENT', `-p ${v.port} is not a port number`, 'use a number between 1 and 65535');
    }
  }
  const resolved = resolver ? await resolver(destination, io) : null;
  if (resolver && !resolved && /^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(destination)) notProfiles.add(destination);
  const { defaults = {}, ...fromProfile } = resolved ?? {};
  const sshConfig = v['ssh-config'];
  const base: ConnectOptions = {
    destination,
    appKnownHostsFile: path.resolve(v['known-hosts'] ?? io.env.GPU_DESK_KNOWN_HOSTS ?? appPaths({ env: io.env }).knownHostsFile),
    ...fromProfile,
  };
  const options: ConnectOptions = {
    ...base,
    ...(port !== undefined ? { port } : {}),
    ...(v.user ? { user: v.user } : {}),
    ...(v.identity?.length ? { identityFiles: v.identity.map((f) => path.resolve(f)) } : {}),
    ...(v.jump ? { jump: v.jump.split(',').map((s) => s.trim()).filter(Boolean) } : {}),
    ...(sshConfig ? { sshConfigPath: sshConfig === 'none' ? null : path.resolve(sshConfig) } : {}),
    ...(v['known-hosts'] ? { appKnownHostsFile: path.resolve(v['known-hosts']) } : {}),
    ...(v['no-agent'] ? { agent: false } : {}),
    ...(v['accept-new-host-key'] ? { strictHostKeyChecking: 'accept-new' as const } : {}),
    // Like ssh -v: what the connection (and a ProxyCommand) says reaches the terminal only when asked.
    ...(v.verbose ? { log: (line: string) => writeLine(io.stderr, `debug: ${line}`) } : {}),
    callbacks: terminalCallbacks(io),
  };
  return { options, defaults };
}
