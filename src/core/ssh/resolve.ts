import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GpuDeskError } from '../errors';
import { defaultIdentityFiles } from './auth';
import { parseDestination } from './destination';
import { defaultGlobalKnownHostsFiles, defaultUserKnownHostsFiles } from './knownHosts';
import { expandHostName, expandTokens, finishIdentityFiles, finishKnownHostsFiles, hostConfig, loadSshConfig, type HostConfig, type SshConfig, type StrictHostKeyChecking } from './sshConfig';
import type { ConnectOptions, SshEndpoint } from './types';
import { INVALID_HOST_MESSAGE, INVALID_NAME_FIX, INVALID_USER_MESSAGE, validRemoteHost, validRemoteUser } from '../../shared/loginNames';

/** One hop of the chain (jump hosts first, target last), fully resolved. */
export interface ResolvedHop {
  endpoint: SshEndpoint;
  /** Names looked up in known_hosts: HostKeyAlias, else `[HostName]:port`. */
  knownHostsNames: string[];
  /** Every known-hosts file OpenSSH would read for this hop, user files first. */
  knownHostsFiles: { user: string[]; global: string[] };
  /** From the options, else the config; undefined = the caller's default (ask where someone can answer). */
  strictHostKeyChecking?: StrictHostKeyChecking;
  hostConfig: HostConfig;
  /** RevokedHostKeys files (tokens and ~ expanded), checked before known_hosts. */
  revokedHostKeys: string[];
  /** Only ever on the first hop: the shell command (tokens expanded) whose stdin/stdout carry the connection. */
  proxyCommand?: string;
}

export interface ResolvedTarget {
  hops: ResolvedHop[];
  keepaliveIntervalMs: number;
  keepaliveCountMax: number;
  readyTimeoutMs: number;
  identityAgent?: string;
}

/** More hops than this is a mistake, not a network (OpenSSH would spawn ssh inside ssh without end). */
const MAX_HOPS = 16;

export function loadConfig(opts: Pick<ConnectOptions, 'sshConfigPath' | 'log'>): SshConfig | null {
  return loadSshConfig(opts.sshConfigPath, opts.log);
}

type KnownHostsOverrides = Pick<ConnectOptions, 'userKnownHostsFiles' | 'globalKnownHostsFiles' | 'strictHostKeyChecking'>;

interface HopOverrides extends KnownHostsOverrides {
  user?: string;
  port?: number;
  identityFiles?: string[];
  onlyGivenKeys?: boolean;
  /** -J: replaces the host's own ProxyJump and ProxyCommand (ssh sets ProxyCommand none for it). */
  jump?: string[];
  proxyCommand?: string;
}

function resolveHop(spec: string, config: SshConfig | null, overrides: HopOverrides): ResolvedHop {
  const d = parseDestination(spec, { allowPort: true });
  // The user given with the destination (or -l) is known before the config is read, as in ssh: `Match user` sees it.
  const hc = hostConfig(config, d.host, d.user ?? overrides.user);
  // The name dialled is lower-cased, as ssh does (ssh -G prints it so): known_hosts and %h see it so too.
  const hostName = expandHostName(hc.hostName ?? d.host, d.host).toLowerCase();
  const port = d.port ?? overrides.port ?? hc.port ?? 22;
  // Names from the command line, a profile or a jump spec may reach a shell through %r/%h (ProxyCommand): refuse shell syntax, as OpenSSH does.
  const given = d.user ?? overrides.user;
  if (given !== undefined && !validRemoteUser(given)) throw new GpuDeskError('BAD_ARGUMENT', INVALID_USER_MESSAGE, INVALID_NAME_FIX);
  if (!validRemoteHost(d.host)) throw new GpuDeskError('BAD_ARGUMENT', INVALID_HOST_MESSAGE, INVALID_NAME_FIX);
  const user = given ?? hc.user ?? os.userInfo().username;
  const ctx = { host: d.host, hostName, port, user };
  const explicit = overrides.identityFiles ?? [];
  // An empty list given is "no key files" (ssh's IdentityFile none), not "none given": no defaults either.
  const noFiles = overrides.identityFiles !== undefined && overrides.identityFiles.length === 0;
  let identityFiles = noFiles ? [] : [...explicit.map((f) => path.resolve(f)), ...(overrides.onlyGivenKeys ? [] : finishIdentityFiles(hc.identityFiles, ctx))];
  if (!noFiles && !hc.identitiesOnly && !overrides.onlyGivenKeys && !identityFiles.length) identityFiles = defaultIdentityFiles();
  identityFiles = [...new Set(identityFiles)];
  for (const f of explicit) {
    if (!fs.existsSync(f)) {
      throw new GpuDeskError('KEY_FILE', `Identity file ${f} does not exist`, 'check the path given with -i');
    }
  }
  const keyName = hc.hostKeyAlias ?? (port === 22 ? hostName : `[${hostName}]:${port}`);
  const command = overrides.jump ? undefined : (overrides.proxyCommand ?? hc.proxyCommand);
  return {
    endpoint: { host: d.host, hostName, port, user, identityFiles, ...(hc.certificateFiles ? { certificateFiles: finishIdentityFiles(hc.certificateFiles, ctx).map((f) => path.resolve(f)) } : {}) },
    knownHostsNames: [keyName],
    knownHostsFiles: {
      user: overrides.userKnownHostsFiles ?? (hc.userKnownHostsFiles ? finishKnownHostsFiles(hc.userKnownHostsFiles, ctx) : defaultUserKnownHostsFiles()),
      global: overrides.globalKnownHostsFiles ?? (hc.globalKnownHostsFiles ? finishKnownHostsFiles(hc.globalKnownHostsFiles, ctx) : defaultGlobalKnownHostsFiles()),
    },
    strictHostKeyChecking: overrides.strictHostKeyChecking ?? hc.strictHostKeyChecking,
    revokedHostKeys: hc.revokedHostKeys ? finishKnownHostsFiles(hc.revokedHostKeys, ctx) : [],
    hostConfig: hc,
    ...(command && command.toLowerCase() !== 'none' ? { proxyCommand: expandTokens(command, ctx, `ProxyCommand for ${d.host}`) } : {}),
  };
}

/**
 * The hops to `spec`, as ssh builds them: ProxyJump "a,b,c" dials c through `ssh -J a,b`, so the
 * last jump is resolved with the others as its -J, and a single jump host's own ProxyJump (and User,
 * Port, IdentityFile, HostKeyAlias, ProxyCommand) come from the config for that host.
 */
function chainTo(spec: string, config: SshConfig | null, overrides: HopOverrides, seen: string[], knownHosts: KnownHostsOverrides): ResolvedHop[] {
  const hop = resolveHop(spec, config, overrides);
  const id = `${hop.endpoint.host}:${hop.endpoint.port}`.toLowerCase();
  if (seen.includes(id)) {
    throw new GpuDeskError('BAD_SSH_CONFIG', `ProxyJump loop: ${[...seen, id].join(' → ')}`, 'fix the ProxyJump lines so that no host is reached through itself');
  }
  if (seen.length >= MAX_HOPS) {
    throw new GpuDeskError('BAD_SSH_CONFIG', `ProxyJump chain to ${spec} is longer than ${MAX_HOPS} hops`, 'shorten the ProxyJump chain');
  }
  const jumps = overrides.jump ?? (hop.proxyCommand ? [] : hop.hostConfig.proxyJump ?? []);
  if (!jumps.length) return [hop];
  const last = jumps[jumps.length - 1];
  const extra = jumps.slice(0, -1);
  // Known-hosts options given to gpu-desk apply to every hop, as -o options given to ssh reach its jump hosts.
  return [...chainTo(last, config, { ...knownHosts, ...(extra.length ? { jump: extra } : {}) }, [...seen, id], knownHosts), hop];
}

/** Destination + options + ~/.ssh/config → the chain of hops to dial. */
export function resolveTarget(opts: ConnectOptions, config: SshConfig | null = loadConfig(opts)): ResolvedTarget {
  const knownHosts: KnownHostsOverrides = { userKnownHostsFiles: opts.userKnownHostsFiles, globalKnownHostsFiles: opts.globalKnownHostsFiles, strictHostKeyChecking: opts.strictHostKeyChecking };
  const hops = chainTo(
    opts.destination,
    config,
    { user: opts.user, port: opts.port, identityFiles: opts.identityFiles, onlyGivenKeys: opts.onlyGivenKeys, jump: opts.jump?.length ? opts.jump : undefined, proxyCommand: opts.proxyCommand, ...knownHosts },
    [],
    knownHosts,
  );
  const hc = hops[hops.length - 1].hostConfig;
  return {
    hops,
    keepaliveIntervalMs: opts.keepaliveIntervalMs ?? (hc.serverAliveIntervalS ? hc.serverAliveIntervalS * 1000 : 15_000),
    keepaliveCountMax: opts.keepaliveCountMax ?? hc.serverAliveCountMax ?? 3,
    readyTimeoutMs: opts.readyTimeoutMs ?? (hc.connectTimeoutS ? hc.connectTimeoutS * 1000 : 20_000),
    identityAgent: hc.identityAgent,
  };
}
