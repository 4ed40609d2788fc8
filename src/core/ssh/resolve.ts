import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type SSHConfig from 'ssh-config';
import { GpuDeskError } from '../errors';
import { defaultIdentityFiles } from './auth';
import { parseDestination } from './destination';
import { defaultGlobalKnownHostsFiles, defaultUserKnownHostsFiles } from './knownHosts';
import { finishIdentityFiles, finishKnownHostsFiles, hostConfig, loadSshConfigText, parseSshConfig, type HostConfig, type StrictHostKeyChecking } from './sshConfig';
import type { ConnectOptions, SshEndpoint } from './types';

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
}

type HopOverrides = Pick<ConnectOptions, 'user' | 'port' | 'identityFiles' | 'onlyGivenKeys' | 'userKnownHostsFiles' | 'globalKnownHostsFiles' | 'strictHostKeyChecking'>;

export interface ResolvedTarget {
  hops: ResolvedHop[];
  keepaliveIntervalMs: number;
  keepaliveCountMax: number;
  readyTimeoutMs: number;
  identityAgent?: string;
}

export function loadConfig(opts: Pick<ConnectOptions, 'sshConfigPath'>): SSHConfig | null {
  const loaded = loadSshConfigText(opts.sshConfigPath);
  return loaded ? parseSshConfig(loaded.text, loaded.file) : null;
}

function resolveHop(
  spec: string,
  config: SSHConfig | null,
  overrides: HopOverrides,
  allowPort: boolean,
): ResolvedHop {
  const d = parseDestination(spec, { allowPort });
  const hc = hostConfig(config, d.host);
  const hostName = (hc.hostName ?? d.host).replace(/%h/g, d.host);
  const port = d.port ?? overrides.port ?? hc.port ?? 22;
  const user = d.user ?? overrides.user ?? hc.user ?? os.userInfo().username;
  const ctx = { host: d.host, hostName, port, user };
  const explicit = overrides.identityFiles ?? [];
  let identityFiles = [...explicit.map((f) => path.resolve(f)), ...(overrides.onlyGivenKeys ? [] : finishIdentityFiles(hc.identityFiles, ctx))];
  if (!hc.identitiesOnly && !overrides.onlyGivenKeys && !identityFiles.length) identityFiles = defaultIdentityFiles();
  identityFiles = [...new Set(identityFiles)];
  for (const f of explicit) {
    if (!fs.existsSync(f)) {
      throw new GpuDeskError('KEY_FILE', `Identity file ${f} does not exist`, 'check the path given with -i');
    }
  }
  const keyName = hc.hostKeyAlias ?? (port === 22 ? hostName : `[${hostName}]:${port}`);
  return {
    endpoint: { host: d.host, hostName, port, user, identityFiles },
    knownHostsNames: [keyName],
    knownHostsFiles: {
      user: overrides.userKnownHostsFiles ?? (hc.userKnownHostsFiles ? finishKnownHostsFiles(hc.userKnownHostsFiles, ctx) : defaultUserKnownHostsFiles()),
      global: overrides.globalKnownHostsFiles ?? (hc.globalKnownHostsFiles ? finishKnownHostsFiles(hc.globalKnownHostsFiles, ctx) : defaultGlobalKnownHostsFiles()),
    },
    strictHostKeyChecking: overrides.strictHostKeyChecking ?? hc.strictHostKeyChecking,
    hostConfig: hc,
  };
}

/** Destination + options + ~/.ssh/config → the chain of hops to dial. */
export function resolveTarget(opts: ConnectOptions, config: SSHConfig | null = loadConfig(opts)): ResolvedTarget {
  const knownHosts = { userKnownHostsFiles: opts.userKnownHostsFiles, globalKnownHostsFiles: opts.globalKnownHostsFiles, strictHostKeyChecking: opts.strictHostKeyChecking };
  const target = resolveHop(opts.destination, config, { user: opts.user, port: opts.port, identityFiles: opts.identityFiles, onlyGivenKeys: opts.onlyGivenKeys, ...knownHosts }, true);
  const jumpSpecs = opts.jump ?? target.hostConfig.proxyJump ?? [];
  const hops = jumpSpecs.map((j) => resolveHop(j, config, knownHosts, true));
  const hc = target.hostConfig;
  return {
    hops: [...hops, target],
    keepaliveIntervalMs: opts.keepaliveIntervalMs ?? (hc.serverAliveIntervalS ? hc.serverAliveIntervalS * 1000 : 15_000),
    keepaliveCountMax: opts.keepaliveCountMax ?? hc.serverAliveCountMax ?? 3,
    readyTimeoutMs: opts.readyTimeoutMs ?? (hc.connectTimeoutS ? hc.connectTimeoutS * 1000 : 20_000),
    identityAgent: hc.identityAgent,
  };
}
