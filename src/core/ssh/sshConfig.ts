import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SSHConfig from 'ssh-config';
import { GpuDeskError } from '../errors';

/** The ~/.ssh/config settings gpu-desk honours, for one host. */
export interface HostConfig {
  hostName?: string;
  user?: string;
  port?: number;
  identityFiles: string[];
  identitiesOnly?: boolean;
  proxyJump?: string[];
  hostKeyAlias?: string;
  serverAliveIntervalS?: number;
  serverAliveCountMax?: number;
  connectTimeoutS?: number;
  identityAgent?: string;
  /** UserKnownHostsFile, raw (tokens and ~ expanded by finishKnownHostsFiles); [] for `none`. */
  userKnownHostsFiles?: string[];
  /** GlobalKnownHostsFile, raw; [] for `none`. */
  globalKnownHostsFiles?: string[];
  /** StrictHostKeyChecking; OpenSSH's `off` is `no`. */
  strictHostKeyChecking?: StrictHostKeyChecking;
}

export type StrictHostKeyChecking = 'yes' | 'no' | 'ask' | 'accept-new';
const STRICT_VALUES: Record<string, StrictHostKeyChecking> = { yes: 'yes', true: 'yes', no: 'no', false: 'no', off: 'no', ask: 'ask', 'accept-new': 'accept-new' };

export function defaultSshConfigPath(): string {
  return path.join(os.homedir(), '.ssh', 'config');
}

export function loadSshConfigText(file: string | null | undefined): { text: string; file: string } | null {
  if (file === null) return null;
  const f = file ?? defaultSshConfigPath();
  try {
    return { text: fs.readFileSync(f, 'utf8'), file: f };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && file === undefined) return null;
    throw new GpuDeskError('BAD_SSH_CONFIG', `Cannot read SSH config ${f}: ${(e as Error).message}`, 'check the path and its permissions');
  }
}

/** Parse once; throws a one-line error naming the file and line on malformed input. */
export function parseSshConfig(text: string, file = '~/.ssh/config'): SSHConfig {
  validateLines(text, file);
  try {
    return SSHConfig.parse(text);
  } catch (e) {
    throw new GpuDeskError('BAD_SSH_CONFIG', `${file} could not be parsed: ${(e as Error).message}`, `fix the line in ${file} or pass --ssh-config none`);
  }
}

const NUMERIC = new Set(['port', 'serveraliveinterval', 'serveralivecountmax', 'connecttimeout']);

function validateLines(text: string, file: string): void {
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const m = /^([A-Za-z][A-Za-z0-9]*)(?:\s*=\s*|\s+)(.*)$/.exec(line);
    if (!m) {
      throw new GpuDeskError('BAD_SSH_CONFIG', `${file} line ${i + 1}: "${line.slice(0, 60)}" is not "Keyword value"`, `fix or remove line ${i + 1} of ${file}`);
    }
    const key = m[1].toLowerCase();
    const value = m[2].trim();
    if ((key === 'host' || key === 'match') && !value) {
      throw new GpuDeskError('BAD_SSH_CONFIG', `${file} line ${i + 1}: ${m[1]} needs a pattern`, `fix line ${i + 1} of ${file}`);
    }
    if (key === 'stricthostkeychecking' && !(value.replace(/^"|"$/g, '').toLowerCase() in STRICT_VALUES)) {
      throw new GpuDeskError('BAD_SSH_CONFIG', `${file} line ${i + 1}: StrictHostKeyChecking "${value.slice(0, 30)}" is not yes, no, ask or accept-new`, `fix line ${i + 1} of ${file}`);
    }
    if (NUMERIC.has(key) && !/^\d+$/.test(value.replace(/^"|"$/g, ''))) {
      throw new GpuDeskError('BAD_SSH_CONFIG', `${file} line ${i + 1}: ${m[1]} "${value}" is not a number`, `fix line ${i + 1} of ${file}`);
    }
  });
}

function expandTokens(value: string, ctx: { host: string; hostName: string; port: number; user: string }): string {
  return value.replace(/%([%hprun])/g, (_, t: string) => {
    switch (t) {
      case '%': return '%';
      case 'h': return ctx.hostName;
      case 'p': return String(ctx.port);
      case 'r': return ctx.user;
      case 'u': return os.userInfo().username;
      case 'n': return ctx.host;
      default: return '';
    }
  });
}

export function expandHome(p: string): string {
  if (p === '~') return os.homedir();
  if (p.startsWith('~/')) return path.join(os.homedir(), p.slice(2));
  return p;
}

/** First value wins in OpenSSH, except IdentityFile which accumulates. */
export function hostConfig(config: SSHConfig | null, host: string): HostConfig {
  if (!config) return { identityFiles: [] };
  const raw = config.compute(host) as Record<string, string | string[]>;
  const get = (k: string): string | string[] | undefined => {
    for (const [key, v] of Object.entries(raw)) if (key.toLowerCase() === k) return v;
    return undefined;
  };
  const one = (k: string): string | undefined => {
    const v = get(k);
    const s = Array.isArray(v) ? v[0] : v;
    return s === undefined ? undefined : String(s).replace(/^"(.*)"$/, '$1');
  };
  const many = (k: string): string[] => {
    const v = get(k);
    return v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((s) => String(s).replace(/^"(.*)"$/, '$1'));
  };
  const num = (k: string) => (one(k) === undefined ? undefined : Number(one(k)));
  const jump = one('proxyjump');
  const files = (k: string): string[] | undefined => {
    const v = many(k).filter(Boolean);
    if (!v.length) return undefined;
    return v.length === 1 && v[0].toLowerCase() === 'none' ? [] : v;
  };
  const strict = one('stricthostkeychecking')?.toLowerCase();
  const hc: HostConfig = {
    hostName: one('hostname'),
    user: one('user'),
    port: num('port'),
    identityFiles: many('identityfile'),
    identitiesOnly: one('identitiesonly')?.toLowerCase() === 'yes' ? true : undefined,
    proxyJump: jump && jump.toLowerCase() !== 'none' ? jump.split(',').map((s) => s.trim()).filter(Boolean) : undefined,
    hostKeyAlias: one('hostkeyalias'),
    serverAliveIntervalS: num('serveraliveinterval'),
    serverAliveCountMax: num('serveralivecountmax'),
    connectTimeoutS: num('connecttimeout'),
    identityAgent: one('identityagent'),
    userKnownHostsFiles: files('userknownhostsfile'),
    globalKnownHostsFiles: files('globalknownhostsfile'),
    strictHostKeyChecking: strict === undefined ? undefined : STRICT_VALUES[strict],
  };
  return hc;
}

/** Resolve tokens and ~ in UserKnownHostsFile / GlobalKnownHostsFile, as OpenSSH does. */
export function finishKnownHostsFiles(files: string[], ctx: { host: string; hostName: string; port: number; user: string }): string[] {
  return files.map((f) => path.resolve(expandHome(expandTokens(f, ctx))));
}

/** Resolve tokens and ~ in IdentityFile once the final user/host/port are known. */
export function finishIdentityFiles(files: string[], ctx: { host: string; hostName: string; port: number; user: string }): string[] {
  return files.map((f) => expandHome(expandTokens(f, ctx)));
}
