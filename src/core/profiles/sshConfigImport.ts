import fs from 'node:fs';
import os from 'node:os';
import { GpuDeskError } from '../errors';
import { defaultSshConfigPath, expandHostName, finishIdentityFiles, hostConfig, loadSshConfig, type SshConfig } from '../ssh/sshConfig';
import type { ImportResult, NewProfile, ProfileStore } from './profileStore';
import { makeProfile, mergeImported, validateProfile } from './profileStore';
import { JUMP_RE, NAME_RE, type Profile } from '../../shared/profileSchema';

export interface SshConfigCandidate {
  alias: string;
  profile: NewProfile;
  /** Settings gpu-desk cannot honour (LocalForward…), one line each. */
  warnings: string[];
}

export type { ImportResult };

/**
 * Concrete Host aliases (no wildcard or negation) from ~/.ssh/config, each resolved the way ssh
 * would (Host * defaults included) into a profile. A malformed file is refused as a whole, like
 * ssh itself does, so nothing half-read is imported.
 */
export function readSshConfigCandidates(file = defaultSshConfigPath(), log?: (line: string) => void): SshConfigCandidate[] {
  if (!fs.existsSync(file)) {
    throw new GpuDeskError('BAD_SSH_CONFIG', `${file} does not exist`, 'pass the path of your ssh config with --file');
  }
  const config = loadSshConfig(file, log);
  return config ? hostAliases(config).map((alias) => candidate(config, alias)) : [];
}

/** Concrete Host names (no wildcard or negation) from the file and every file it includes. */
export function hostAliases(config: SshConfig): string[] {
  const out: string[] = [];
  for (const p of config.hostPatterns()) if (p && !/[*?!]/.test(p) && !out.includes(p)) out.push(p);
  return out;
}

function candidate(config: SshConfig, alias: string): SshConfigCandidate {
  const hc = hostConfig(config, alias);
  const warnings: string[] = [];
  const raw = config.compute(alias);
  if (raw.has('localforward')) warnings.push(`${alias}: LocalForward lines were not imported; add them as profile forwards`);
  const port = hc.port ?? 22;
  const hostName = expandHostName(hc.hostName ?? alias, alias);
  const user = hc.user && !hc.user.includes('%') ? hc.user : undefined;
  const identity = finishIdentityFiles(hc.identityFiles, { host: alias, hostName, port, user: user ?? os.userInfo().username })[0];
  const jumpHosts = (hc.proxyJump ?? []).map((h) => h.replace(/^ssh:\/\//, ''));
  const bad = jumpHosts.find((h) => !JUMP_RE.test(h));
  if (bad) warnings.push(`${alias}: ProxyJump "${bad}" is not [user@]host[:port]`);
  return {
    alias,
    warnings,
    profile: {
      name: profileNameFor(alias),
      host: hostName,
      port,
      ...(user ? { user } : {}),
      jumpHosts,
      // Kept as written: its %n must still be the alias once the profile (named after it) connects.
      ...(hc.proxyCommand ? { proxyCommand: hc.proxyCommand.replace(/%(.)/g, (w, t: string) => (t === 'n' ? alias.replace(/%/g, '%%') : w)) } : {}),
      auth: identity ? { kind: 'key-file', path: identity } : { kind: 'auto' },
    },
  };
}

/** Aliases may hold characters a profile name may not ("gpu/a100"): replace them. */
export function profileNameFor(alias: string): string {
  if (NAME_RE.test(alias)) return alias;
  const s = alias.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '').slice(0, 64);
  return s || 'host';
}

/** Add every candidate as a profile in one locked update; existing names are kept unless replace. */
export async function importSshConfig(store: ProfileStore, opts: { file?: string; replace?: boolean; only?: string[] } = {}): Promise<ImportResult> {
  let candidates = readSshConfigCandidates(opts.file);
  if (opts.only?.length) {
    const unknown = opts.only.filter((a) => !candidates.some((c) => c.alias === a));
    if (unknown.length) throw new GpuDeskError('BAD_ARGUMENT', `no Host "${unknown[0]}" in the ssh config`, 'see the Host lines of your ssh config');
    candidates = candidates.filter((c) => opts.only!.includes(c.alias));
  }
  const result: ImportResult = { added: [], replaced: [], skipped: [], warnings: [] };
  const valid: { c: SshConfigCandidate; p: Profile }[] = [];
  for (const c of candidates) {
    try {
      valid.push({ c, p: validateProfile({ ...c.profile, id: 'pending-id', createdAt: '', updatedAt: '' }) });
      result.warnings.push(...c.warnings);
    } catch (e) {
      result.skipped.push({ name: c.alias, reason: (e as Error).message });
    }
  }
  await store.update((doc) => {
    for (const { c } of valid) {
      mergeImported(doc, makeProfile(c.profile), opts.replace, result);
    }
  });
  return result;
}
