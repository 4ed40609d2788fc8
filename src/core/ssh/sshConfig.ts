import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SSHConfigParser from 'ssh-config';
import { GpuDeskError } from '../errors';
import { globFiles, matchPatternList } from './sshConfigPatterns';

/** The ~/.ssh/config settings gpu-desk honours, for one host. */
export interface HostConfig {
  hostName?: string;
  user?: string;
  port?: number;
  identityFiles: string[];
  /** CertificateFile, accumulating like IdentityFile (tokens not yet expanded). */
  certificateFiles?: string[];
  identitiesOnly?: boolean;
  proxyJump?: string[];
  /** As written (tokens not yet expanded); absent for `none` or when ProxyJump came first. */
  proxyCommand?: string;
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
  /** HostKeyAlgorithms as written (`+`, `-`, `^` prefixes; see algorithms.ts assembleAlgorithms). */
  hostKeyAlgorithms?: string;
  /** PubkeyAcceptedAlgorithms (or its old name PubkeyAcceptedKeyTypes) as written. */
  pubkeyAcceptedAlgorithms?: string;
  /** RevokedHostKeys files, raw (tokens and ~ expanded by finishKnownHostsFiles); [] for `none`. */
  revokedHostKeys?: string[];
  /** A `Match exec` line was met for this host (and treated as not matching): the file it is in. */
  matchExecSkipped?: string;
  /** CanonicalizeHostname yes/always: not applied by gpu-desk, named where it matters. */
  canonicalizeHostname?: string;
  /** LocalForward lines: not used by gpu-desk (a tunnel's forwards are given to it), said once. */
  localForwards?: string[];
}

export type StrictHostKeyChecking = 'yes' | 'no' | 'ask' | 'accept-new';
const STRICT_VALUES: Record<string, StrictHostKeyChecking> = { yes: 'yes', true: 'yes', no: 'no', false: 'no', off: 'no', ask: 'ask', 'accept-new': 'accept-new' };

export function defaultSshConfigPath(): string {
  return path.join(os.homedir(), '.ssh', 'config');
}

export const SYSTEM_SSH_CONFIG = '/etc/ssh/ssh_config';
/** OpenSSH's READCONF_MAX_DEPTH. */
export const MAX_INCLUDE_DEPTH = 16;

interface Line {
  type: number;
  param?: string;
  value?: string | { val: string; separator: string; quoted?: boolean }[];
  config?: Line[];
}

/** One config file as ssh reads it: user files may Include `~/…` and resolve relative paths in ~/.ssh, system files in /etc/ssh. */
interface ConfigRoot {
  file: string;
  text: string;
  userConf: boolean;
  /** ssh checks owner and mode of ~/.ssh/config and of every included file (not of a -F file). */
  checkPerm: boolean;
}

/** Settings whose every occurrence counts (OpenSSH appends them); all others keep their first value. */
const ACCUMULATE = new Set(['identityfile', 'certificatefile', 'localforward', 'remoteforward', 'dynamicforward', 'sendenv', 'setenv']);

/**
 * An ssh_config as OpenSSH reads it (readconf.c): one pass over the files with an "active" flag that
 * Host and Match lines switch; `Include` read where it stands (so inside a Host block it applies only
 * when that block does), globbed, nested up to 16 deep; `Match final` triggers a second pass.
 * `Match exec` is never run: reading a config must not execute commands from it.
 */
export class SshConfig {
  private readonly parsed = new Map<string, Line[]>();
  private execNoted = false;

  constructor(
    private readonly roots: ConfigRoot[],
    private readonly log: (line: string) => void = () => {},
  ) {
    for (const r of roots) this.parsed.set(r.file, parseText(r.text, r.file));
  }

  /**
   * The options that apply to `host` (lower-case keys, each with the arguments of the occurrence that
   * won). `user`: the one given on the command line (`user@host`, -l), which ssh sets before reading
   * the config, so `Match user` sees it and no `User` line replaces it.
   */
  compute(host: string, user?: string): Map<string, string[]> {
    const st: EvalState = { host: host.toLowerCase(), hostForHostLines: host, originalHost: host, options: new Map(), finalPass: false, wantFinal: false, ...(user !== undefined ? { cliUser: user } : {}) };
    this.pass(st);
    if (st.wantFinal) {
      const hn = st.options.get('hostname')?.[0];
      if (hn) st.host = st.hostForHostLines = expandHostName(hn, host).toLowerCase();
      st.finalPass = true;
      this.pass(st);
    }
    if (st.execSkipped) st.options.set(MATCH_EXEC_KEY, [st.execSkipped]);
    return st.options;
  }

  /** Every concrete Host pattern in the files and everything they include, in file order. */
  hostPatterns(): string[] {
    const out: string[] = [];
    const walk = (lines: Line[], root: ConfigRoot, file: string, stack: string[]) => {
      for (const line of lines) {
        if (line.type !== 1 || !line.param) continue;
        const key = line.param.toLowerCase();
        if (key === 'host') out.push(...args(line));
        if (key === 'include') for (const f of this.includeFiles(line, root, file, stack)) walk(this.load(f, stack), root, f, [...stack, f]);
        if (line.config) walk(line.config, root, file, stack);
      }
    };
    for (const r of this.roots) walk(this.parsed.get(r.file)!, r, r.file, [r.file]);
    return out;
  }

  private pass(st: EvalState): void {
    for (const r of this.roots) this.walk(this.parsed.get(r.file)!, r, r.file, st, true, false, [r.file]);
  }

  private walk(lines: Line[], root: ConfigRoot, file: string, st: EvalState, startActive: boolean, neverMatch: boolean, stack: string[]): void {
    let active = startActive;
    const apply = (d: Line) => {
      const key = d.param!.toLowerCase();
      if (key === 'include') {
        for (const f of this.includeFiles(d, root, file, stack)) {
          // An Include in an inactive block is still parsed (errors count) but nothing in it may match.
          this.walk(this.load(f, stack), root, f, st, active, neverMatch || !active, [...stack, f]);
        }
        return;
      }
      if (active) setOption(st.options, key, d);
    };
    for (const line of lines) {
      if (line.type !== 1 || !line.param) continue;
      const key = line.param.toLowerCase();
      if (key === 'host') active = !neverMatch && matchPatternList(st.hostForHostLines, args(line), false);
      else if (key === 'match') active = !neverMatch && this.matchLine(line, st, file);
      else {
        apply(line);
        continue;
      }
      for (const sub of line.config ?? []) if (sub.type === 1 && sub.param) apply(sub);
    }
  }

  private matchLine(line: Line, st: EvalState, file: string): boolean {
    const a = args(line);
    let result = true;
    for (let i = 0; i < a.length; i++) {
      const negate = a[i].startsWith('!');
      const crit = a[i].replace(/^!/, '').toLowerCase();
      if (crit === 'all') continue;
      if (crit === 'canonical' || crit === 'final') {
        if (crit === 'final' && !negate) st.wantFinal = true;
        if (st.finalPass === negate) result = false;
        continue;
      }
      const arg = a[++i];
      if (arg === undefined) throw new GpuDeskError('BAD_SSH_CONFIG', `${file}: Match ${crit} needs an argument`, `fix the Match line in ${file}`);
      if (crit === 'exec') {
        st.execSkipped ??= file;
        if (!this.execNoted) {
          this.execNoted = true;
          this.log(`${file}: "Match exec" blocks are treated as not matching (gpu-desk never runs commands while reading an ssh config)`);
        }
        result = false;
        continue;
      }
      const user = st.cliUser ?? st.options.get('user')?.[0] ?? os.userInfo().username;
      const hostName = st.options.get('hostname')?.[0];
      const subject: Record<string, string> = {
        host: hostName ? expandHostName(hostName, st.originalHost).toLowerCase() : st.host,
        originalhost: st.originalHost,
        user,
        localuser: os.userInfo().username,
        tagged: st.options.get('tag')?.[0] ?? '',
      };
      if (!(crit in subject)) {
        this.log(`${file}: "Match ${crit}" is not supported; that block is treated as not matching`);
        result = false;
        continue;
      }
      if (matchPatternList(subject[crit], [arg], crit !== 'user' && crit !== 'localuser') === negate) result = false;
    }
    return result;
  }

  private includeFiles(d: Line, root: ConfigRoot, file: string, stack: string[]): string[] {
    const out: string[] = [];
    for (const raw of args(d)) {
      const p = expandEnv(raw, file);
      if (p.startsWith('~') && !root.userConf) {
        throw new GpuDeskError('BAD_SSH_CONFIG', `${file}: bad include path ${p} (a system config may not use ~)`, `use an absolute path in ${file}`);
      }
      const anchored = path.isAbsolute(p) ? p : p.startsWith('~') ? expandHome(p) : path.join(root.userConf ? path.join(os.homedir(), '.ssh') : '/etc/ssh', p);
      for (const f of globFiles(anchored)) {
        if (stack.includes(f)) {
          throw new GpuDeskError('BAD_SSH_CONFIG', `${file} includes ${f}, which is already being read (an Include loop)`, `remove the Include of ${f} from ${file}`);
        }
        if (stack.length > MAX_INCLUDE_DEPTH) {
          throw new GpuDeskError('BAD_SSH_CONFIG', `${file}: too many nested Includes (more than ${MAX_INCLUDE_DEPTH}, as in OpenSSH)`, 'flatten the Include chain');
        }
        try {
          if (fs.statSync(f).isFile()) out.push(f);
        } catch {
          /* vanished between glob and stat: as if it had not matched */
        }
      }
    }
    return out;
  }

  private load(f: string, stack: string[]): Line[] {
    let lines = this.parsed.get(f);
    if (!lines) {
      checkPermissions(f);
      let text: string;
      try {
        text = fs.readFileSync(f, 'utf8');
      } catch (e) {
        throw new GpuDeskError('BAD_SSH_CONFIG', `${stack[stack.length - 1]}: cannot read included file ${f}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`, `check the permissions of ${f}`);
      }
      lines = parseText(text, f);
      this.parsed.set(f, lines);
    }
    return lines;
  }
}

interface EvalState {
  /** The host name (lower-cased, as ssh dials it): what `Match host` compares, without case. */
  host: string;
  /**
   * What `Host` lines match, with case, as OpenSSH's match_pattern does: the name as typed, or the
   * HostName in the final pass (checked against `ssh -G`: `Host MixedCase` matches `MixedCase` only).
   */
  hostForHostLines: string;
  originalHost: string;
  options: Map<string, string[]>;
  finalPass: boolean;
  wantFinal: boolean;
  /** The user given on the command line, which `Match user` compares (ssh sets it before the config). */
  cliUser?: string;
  /** The file of the first `Match exec` met (its block is never applied). */
  execSkipped?: string;
}

/** Not an ssh keyword (those have no space): where compute() reports a skipped `Match exec`. */
const MATCH_EXEC_KEY = ' match exec';

function args(d: Line): string[] {
  if (Array.isArray(d.value)) return d.value.map((v) => v.val);
  return d.value === undefined ? [] : [String(d.value).replace(/^"(.*)"$/, '$1')];
}

/** ProxyCommand is one shell command line: keep its words and quotes as written. */
function commandText(d: Line): string {
  if (!Array.isArray(d.value)) return String(d.value ?? '');
  return d.value.map(({ val, separator, quoted }) => `${separator}${quoted ? `"${val.replace(/"/g, '\\"')}"` : val}`).join('').trim();
}

function setOption(options: Map<string, string[]>, key: string, d: Line): void {
  const value = key === 'proxycommand' || key === 'localcommand' || key === 'remotecommand' ? [commandText(d)] : args(d);
  if (ACCUMULATE.has(key)) {
    const list = options.get(key) ?? [];
    for (const v of value) if (!list.includes(v)) list.push(v);
    options.set(key, list);
    return;
  }
  if (options.has(key)) return;
  // readconf.c: ProxyJump sets ProxyCommand to none and is ignored once ProxyCommand is set, so whichever comes first wins.
  const jump = options.get('proxyjump')?.[0];
  if (key === 'proxycommand' && jump !== undefined && jump.toLowerCase() !== 'none') return;
  if (key === 'proxyjump' && value[0]?.toLowerCase() !== 'none' && options.has('proxycommand')) return;
  options.set(key, value);
}

function expandEnv(p: string, file: string): string {
  return p.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const v = process.env[name];
    if (v === undefined) throw new GpuDeskError('BAD_SSH_CONFIG', `${file}: Include path uses \${${name}}, which is not set`, `set ${name} or change the Include line`);
    return v;
  });
}

function checkPermissions(f: string): void {
  if (typeof process.getuid !== 'function') return;
  let st: fs.Stats;
  try {
    st = fs.statSync(f);
  } catch {
    return;
  }
  if ((st.uid !== 0 && st.uid !== process.getuid()) || (st.mode & 0o022) !== 0) {
    throw new GpuDeskError('BAD_SSH_CONFIG', `Bad owner or permissions on ${f} (ssh refuses it too)`, `make it yours and not writable by others: chmod go-w ${f}`);
  }
}

function readRoot(file: string, opts: { userConf: boolean; checkPerm: boolean; optional: boolean }): ConfigRoot | null {
  try {
    const text = fs.readFileSync(file, 'utf8');
    if (opts.checkPerm) checkPermissions(file);
    return { file, text, ...opts };
  } catch (e) {
    if (e instanceof GpuDeskError) throw e;
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && opts.optional) return null;
    throw new GpuDeskError('BAD_SSH_CONFIG', `Cannot read SSH config ${file}: ${(e as Error).message}`, 'check the path and its permissions');
  }
}

/**
 * The config files ssh would read: `file` alone when given (like `ssh -F`), none for null, else
 * ~/.ssh/config then /etc/ssh/ssh_config (first value wins across both, as in ssh).
 */
export function loadSshConfig(file: string | null | undefined, log?: (line: string) => void, systemFile = SYSTEM_SSH_CONFIG): SshConfig | null {
  if (file === null) return null;
  const roots = file !== undefined
    ? [readRoot(file, { userConf: true, checkPerm: false, optional: false })]
    : [readRoot(defaultSshConfigPath(), { userConf: true, checkPerm: true, optional: true }), readRoot(systemFile, { userConf: false, checkPerm: false, optional: true })];
  const present = roots.filter((r): r is ConfigRoot => r !== null);
  return present.length ? new SshConfig(present, log) : null;
}

/** Parse once; throws a one-line error naming the file and line on malformed input. */
export function parseSshConfig(text: string, file = '~/.ssh/config', log?: (line: string) => void): SshConfig {
  return new SshConfig([{ file, text, userConf: true, checkPerm: false }], log);
}

function parseText(text: string, file: string): Line[] {
  validateLines(text, file);
  try {
    return SSHConfigParser.parse(text) as unknown as Line[];
  } catch (e) {
    // The parser's message quotes the offending text: name the kind of fault, never the file's content.
    throw new GpuDeskError('BAD_SSH_CONFIG', `${file} could not be parsed (${/line break/i.test((e as Error).message) ? 'a quote is not closed' : 'a Match line lacks a value'})`, `fix the line in ${file} or pass --ssh-config none`);
  }
}

const NUMERIC = new Set(['port', 'serveraliveinterval', 'serveralivecountmax', 'connecttimeout']);

function validateLines(text: string, file: string): void {
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const m = /^([A-Za-z][A-Za-z0-9]*)(?:\s*=\s*|\s+)(.*)$/.exec(line);
    if (!m) {
      // Never quote the line: the file may not be an ssh config at all, and errors reach logs and windows.
      throw new GpuDeskError('BAD_SSH_CONFIG', `${file} line ${i + 1} is not "Keyword value"`, `fix or remove line ${i + 1} of ${file}`);
    }
    const key = m[1].toLowerCase();
    const value = m[2].trim();
    if ((key === 'host' || key === 'match' || key === 'include') && !value) {
      throw new GpuDeskError('BAD_SSH_CONFIG', `${file} line ${i + 1}: ${m[1]} needs ${key === 'include' ? 'a path' : 'a pattern'}`, `fix line ${i + 1} of ${file}`);
    }
    if (key === 'stricthostkeychecking' && !(value.replace(/^"|"$/g, '').toLowerCase() in STRICT_VALUES)) {
      throw new GpuDeskError('BAD_SSH_CONFIG', `${file} line ${i + 1}: the value of StrictHostKeyChecking is not yes, no, ask or accept-new`, `fix line ${i + 1} of ${file}`);
    }
    if (NUMERIC.has(key) && !/^\d+$/.test(value.replace(/^"|"$/g, ''))) {
      throw new GpuDeskError('BAD_SSH_CONFIG', `${file} line ${i + 1}: the value of ${m[1]} is not a number`, `fix line ${i + 1} of ${file}`);
    }
  });
}

/** HostName may hold %h (the name as typed) and %%. */
export function expandHostName(value: string, host: string): string {
  return value.replace(/%([%h])/g, (_, t: string) => (t === '%' ? '%' : host));
}

export interface TokenContext {
  /** The name as typed (%n). */
  host: string;
  /** The address dialled, after HostName (%h). */
  hostName: string;
  port: number;
  user: string;
}

/**
 * ssh's %-tokens. ProxyCommand is strict like ssh (an unknown token is an error, never passed to the
 * shell); IdentityFile leaves tokens gpu-desk does not know as written.
 */
export function expandTokens(value: string, ctx: TokenContext, what?: string, inPath?: string): string {
  // A name put into a path is one path component: "../x" or ".." would climb out of the directory written around it.
  const part = (v: string, token: string): string => {
    if (inPath !== undefined && (v.includes('/') || v.includes('\\') || v === '.' || v === '..')) {
      throw new GpuDeskError('BAD_SSH_CONFIG', `${inPath} uses %${token}, whose value would leave the directory written around it`, 'use a user and host name without "/" (and not "." or "..")');
    }
    return v;
  };
  return value.replace(/%(.)/g, (whole, t: string) => {
    switch (t) {
      case '%': return '%';
      case 'h': return part(ctx.hostName, t);
      case 'p': return String(ctx.port);
      case 'r': return part(ctx.user, t);
      case 'u': return os.userInfo().username;
      case 'n': return part(ctx.host, t);
      case 'd': return os.homedir();
      case 'L': return os.hostname().split('.')[0];
      case 'l': return os.hostname();
      default:
        if (what === undefined) return whole;
        throw new GpuDeskError('BAD_SSH_CONFIG', `${what} uses the token %${t}, which gpu-desk does not know`, 'use %h, %p, %r, %n, %u, %d, %l, %L or %%');
    }
  });
}

export function expandHome(p: string): string {
  if (p === '~') return os.homedir();
  if (p.startsWith('~/')) return path.join(os.homedir(), p.slice(2));
  return p;
}

/** First value wins in OpenSSH, except IdentityFile which accumulates. `user`: the command line's, as in compute(). */
export function hostConfig(config: SshConfig | null, host: string, user?: string): HostConfig {
  if (!config) return { identityFiles: [] };
  const raw = config.compute(host, user);
  const one = (k: string): string | undefined => raw.get(k)?.[0];
  const num = (k: string) => (one(k) === undefined ? undefined : Number(one(k)));
  const jump = one('proxyjump');
  const proxyJump = jump && jump.toLowerCase() !== 'none' ? jump.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
  const command = one('proxycommand');
  const files = (k: string): string[] | undefined => {
    const v = (raw.get(k) ?? []).filter(Boolean);
    if (!v.length) return undefined;
    return v.length === 1 && v[0].toLowerCase() === 'none' ? [] : v;
  };
  const strict = one('stricthostkeychecking')?.toLowerCase();
  const canonicalize = one('canonicalizehostname')?.toLowerCase();
  return {
    hostName: one('hostname'),
    user: one('user'),
    port: num('port'),
    identityFiles: raw.get('identityfile') ?? [],
    ...(raw.get('certificatefile')?.length ? { certificateFiles: raw.get('certificatefile') } : {}),
    identitiesOnly: one('identitiesonly')?.toLowerCase() === 'yes' ? true : undefined,
    proxyJump,
    proxyCommand: command && command.toLowerCase() !== 'none' && !proxyJump ? command : undefined,
    hostKeyAlias: one('hostkeyalias'),
    serverAliveIntervalS: num('serveraliveinterval'),
    serverAliveCountMax: num('serveralivecountmax'),
    connectTimeoutS: num('connecttimeout'),
    identityAgent: one('identityagent'),
    userKnownHostsFiles: files('userknownhostsfile'),
    globalKnownHostsFiles: files('globalknownhostsfile'),
    strictHostKeyChecking: strict === undefined ? undefined : STRICT_VALUES[strict],
    hostKeyAlgorithms: one('hostkeyalgorithms'),
    pubkeyAcceptedAlgorithms: one('pubkeyacceptedalgorithms') ?? one('pubkeyacceptedkeytypes'),
    ...(files('revokedhostkeys') ? { revokedHostKeys: files('revokedhostkeys') } : {}),
    ...(raw.get(MATCH_EXEC_KEY) ? { matchExecSkipped: raw.get(MATCH_EXEC_KEY)![0] } : {}),
    ...(canonicalize && canonicalize !== 'no' && canonicalize !== 'false' ? { canonicalizeHostname: canonicalize } : {}),
    ...(raw.get('localforward')?.length ? { localForwards: raw.get('localforward') } : {}),
  };
}

/**
 * What the config asks for that gpu-desk does not apply, for the error of a connection that then
 * fails (issue 40 §3): without it a site config that relies on them fails with a reason that names
 * something else ("could not be resolved").
 */
export function unappliedConfigNotes(hc: HostConfig, host: string): string[] {
  const out: string[] = [];
  if (hc.matchExecSkipped) out.push(`the "Match exec" blocks of ${hc.matchExecSkipped} were not applied (gpu-desk never runs commands from an ssh config; put what they set under a Host line)`);
  if (hc.canonicalizeHostname) out.push(`CanonicalizeHostname ${hc.canonicalizeHostname} is not applied by gpu-desk (${host} was not completed with CanonicalDomains; give the full host name, or a HostName line for it)`);
  return out;
}

/** Resolve tokens and ~ in UserKnownHostsFile / GlobalKnownHostsFile, as OpenSSH does. */
export function finishKnownHostsFiles(files: string[], ctx: TokenContext): string[] {
  return files.map((f) => path.resolve(expandHome(expandTokens(f, ctx, undefined, `known-hosts file ${f}`))));
}

/** Resolve tokens and ~ in IdentityFile once the final user/host/port are known. */
export function finishIdentityFiles(files: string[], ctx: TokenContext): string[] {
  return files.map((f) => expandHome(expandTokens(f, ctx, undefined, `IdentityFile ${f}`)));
}
