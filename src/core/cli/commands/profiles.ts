import fs from 'node:fs';
import path from 'node:path';
import { GpuDeskError } from '../../errors';
import { forgetPassword, savePassword } from '../../keychain/passwords';
import { exportProfiles, exportProfilesToFile, importProfilesFromFile } from '../../profiles/exchange';
import type { NewProfile } from '../../profiles/profileStore';
import { VIEWER_ENCODINGS, type Profile, type ProfileAuth } from '../../profiles/schema';
import { importSshConfig } from '../../profiles/sshConfigImport';
import { parseDestination } from '../../ssh/destination';
import { parseForwardSpec } from '../../tunnels/forwardSpec';
import { jsonText, writeLine, type CliIo } from '../io';
import { jobOptionHelp, jobOptionSpec, jobSettingsFromFlags } from '../jobOptions';
import { parseCommandArgs, UsageError } from '../parse';
import { appStores } from '../appStores';
import { readSecret } from '../prompts';
import { registerCommand } from '../registry';

const help = [
  'Usage: gpu-desk profiles <list|show|add|remove|import-ssh-config|export|import> [options]',
  '',
  'Saved servers. Any command that takes <destination> also takes a profile name.',
  '',
  '  profiles list [--json]',
  '  profiles show NAME [--json]',
  '  profiles add NAME <[user@]host[:port]> [options] [--replace] [--json]',
  '      -p PORT  -l USER  -J hop1,hop2',
  '      --key KEYNAME            authenticate with a key from "gpu-desk keys"',
  '      -i FILE                  authenticate with a private key file',
  '      --agent                  authenticate with ssh-agent',
  '      --password               authenticate with a password (asked each time)',
  '      --remember-password      ... and keep it in the OS keychain (asked now, or --password-stdin)',
  '      --display N  --geometry WxH  --quality 0-9  --compression 0-9',
  '      --encodings tight,zrle,…  --scaling fit|off|remote-resize  --no-adaptive',
  '      -L [127.0.0.1:]LOCAL:HOST:REMOTE   extra forward (repeatable)',
  '      --cluster                a Slurm cluster: HOST is its login node, desktops run as jobs',
  '                               (gpu-desk jobs NAME start); its job settings, saved with it:',
  ...jobOptionHelp.map((l) => `    ${l}`),
  '  profiles remove NAME [--json]              (also forgets its remembered password)',
  '  profiles import-ssh-config [HOST…] [--file F] [--replace] [--json]',
  '  profiles export [NAME…] [--output FILE]    (no secrets are exported)',
  '  profiles import FILE [--replace] [--json]',
].join('\n');

function describeAuth(a: ProfileAuth): string {
  switch (a.kind) {
    case 'keychain-key': return `key ${a.key}`;
    case 'key-file': return `file ${a.path}`;
    case 'password': return a.remember ? 'password (remembered)' : 'password';
    case 'agent': return 'agent';
    default: return 'auto';
  }
}

function destinationOf(p: Profile): string {
  return `${p.user ? `${p.user}@` : ''}${p.host.includes(':') ? `[${p.host}]` : p.host}${p.port === 22 ? '' : `:${p.port}`}`;
}

function table(rows: string[][]): string[] {
  const w = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(w[i]))).join('  ').trimEnd());
}

function intOpt(v: unknown, flag: string, min: number, max: number): number | undefined {
  if (v === undefined) return undefined;
  const s = String(v);
  const n = Number(s);
  if (!/^\d+$/.test(s) || n < min || n > max) throw new GpuDeskError('BAD_ARGUMENT', `${flag} ${s} must be a whole number from ${min} to ${max}`, `see "gpu-desk profiles --help"`);
  return n;
}

async function add(args: string[], io: CliIo): Promise<number> {
  const { values: v, positionals } = parseCommandArgs('profiles add', args, {
    port: { type: 'string', short: 'p' },
    user: { type: 'string', short: 'l' },
    jump: { type: 'string', short: 'J' },
    key: { type: 'string' },
    identity: { type: 'string', short: 'i' },
    agent: { type: 'boolean' },
    password: { type: 'boolean' },
    'remember-password': { type: 'boolean' },
    'password-stdin': { type: 'boolean' },
    display: { type: 'string' },
    geometry: { type: 'string' },
    quality: { type: 'string' },
    compression: { type: 'string' },
    encodings: { type: 'string' },
    scaling: { type: 'string' },
    'no-adaptive': { type: 'boolean' },
    L: { type: 'string', short: 'L', multiple: true },
    cluster: { type: 'boolean' },
    ...jobOptionSpec,
    replace: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (v.help) return writeLine(io.stdout, help), 0;
  if (positionals.length !== 2) throw new UsageError('expected NAME and <[user@]host[:port]>', 'profiles');
  const [name, dest] = positionals;
  const d = parseDestination(dest, { allowPort: true });
  const authFlags = ['key', 'identity', 'agent', 'password', 'remember-password'].filter((f) => v[f] !== undefined && v[f] !== false);
  if (authFlags.length > 1 && !(authFlags.length === 2 && authFlags.includes('password') && authFlags.includes('remember-password'))) {
    throw new UsageError(`choose one way to authenticate (got --${authFlags.join(', --')})`, 'profiles');
  }
  const { profiles, secrets, keys } = appStores(io);
  let auth: ProfileAuth = { kind: 'auto' };
  if (v.key) {
    await keys.get(String(v.key));
    auth = { kind: 'keychain-key', key: String(v.key) };
  } else if (v.identity) {
    const f = path.resolve(String(v.identity));
    if (!fs.existsSync(f)) throw new GpuDeskError('KEY_FILE', `key file ${f} does not exist`, 'check the path given with -i');
    auth = { kind: 'key-file', path: f };
  } else if (v.agent) auth = { kind: 'agent' };
  else if (v.password || v['remember-password']) auth = { kind: 'password', remember: !!v['remember-password'] };
  if (v['password-stdin'] && !v['remember-password']) throw new UsageError('--password-stdin only goes with --remember-password', 'profiles');

  const encodings = v.encodings === undefined ? undefined : String(v.encodings).split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const badEnc = encodings?.find((e) => !(VIEWER_ENCODINGS as readonly string[]).includes(e));
  if (badEnc) throw new GpuDeskError('BAD_ARGUMENT', `unknown encoding "${badEnc}"`, `use some of ${VIEWER_ENCODINGS.join(', ')}`);
  const job = jobSettingsFromFlags(v);
  if (!v.cluster && Object.keys(job).length) {
    throw new UsageError(`--${Object.keys(v).find((k) => k in jobOptionSpec)} is a job setting: add --cluster to save a cluster profile`, 'profiles');
  }
  const input: NewProfile = {
    name,
    ...(v.cluster ? { kind: 'cluster' as const, job } : {}),
    host: d.host,
    port: d.port ?? intOpt(v.port, '-p', 1, 65535) ?? 22,
    // As in ssh: user@host wins over -l.
    ...((d.user ?? v.user) ? { user: String(d.user ?? v.user) } : {}),
    jumpHosts: v.jump ? String(v.jump).split(',').map((s) => s.trim()).filter(Boolean) : [],
    auth,
    display: {
      ...(v.display !== undefined ? { number: intOpt(String(v.display).replace(/^:/, ''), '--display', 0, 99) } : {}),
      ...(v.geometry !== undefined ? { geometry: String(v.geometry) } : {}),
    },
    viewer: {
      ...(v.quality !== undefined ? { quality: intOpt(v.quality, '--quality', 0, 9) } : {}),
      ...(v.compression !== undefined ? { compression: intOpt(v.compression, '--compression', 0, 9) } : {}),
      ...(encodings ? { encodings: encodings as (typeof VIEWER_ENCODINGS)[number][] } : {}),
      ...(v.scaling !== undefined ? { scaling: String(v.scaling) as 'fit' } : {}),
      ...(v['no-adaptive'] ? { adaptive: false } : {}),
    },
    forwards: ((v.L as string[] | undefined) ?? []).map((s) => ({ kind: 'local' as const, ...parseForwardSpec(s) })),
  };
  // Ask for the password before saving anything, so a cancelled prompt leaves no half profile.
  const password = auth.kind === 'password' && auth.remember ? await readSecret(io, !!v['password-stdin'], `Password for ${input.user ? `${input.user}@` : ''}${input.host}: `, 'profiles') : undefined;
  const p = await profiles.add(input, { replace: !!v.replace });
  if (password !== undefined) {
    try {
      await savePassword(secrets, p.id, password);
    } catch (e) {
      // Without the keychain the profile must not claim a remembered password.
      await profiles.edit(p.name, { auth: { kind: 'password', remember: false } });
      throw e;
    }
  }
  if (v.json) writeLine(io.stdout, jsonText({ profile: p }));
  else writeLine(io.stdout, `Saved ${p.kind === 'cluster' ? 'cluster ' : ''}profile "${p.name}" → ${destinationOf(p)} (${describeAuth(p.auth)}).`);
  return 0;
}

async function run(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (!sub || sub === '--help' || sub === '-h') {
    writeLine(io.stdout, help);
    return sub ? 0 : 2;
  }
  if (sub === 'add') return add(rest, io);
  const spec = {
    json: { type: 'boolean' },
    file: { type: 'string' },
    output: { type: 'string', short: 'o' },
    replace: { type: 'boolean' },
  } as const;
  const { values: v, positionals } = parseCommandArgs(`profiles ${sub}`, rest, spec);
  if (v.help) return writeLine(io.stdout, help), 0;
  const json = !!v.json;
  const { profiles, secrets } = appStores(io);
  const one = (what: string) => {
    if (positionals.length !== 1) throw new UsageError(`expected one ${what}`, 'profiles');
    return positionals[0];
  };
  switch (sub) {
    case 'list': {
      const list = await profiles.list();
      if (json) writeLine(io.stdout, jsonText({ profiles: list }));
      else if (!list.length) writeLine(io.stdout, 'No profiles yet. Add one with "gpu-desk profiles add NAME user@host" or "gpu-desk profiles import-ssh-config".');
      else {
        const rows = [['NAME', 'DESTINATION', 'JUMP', 'AUTH', 'DISPLAY'], ...list.map((p) => [p.name, destinationOf(p), p.jumpHosts.join(',') || '-', describeAuth(p.auth), p.display.number === undefined ? '-' : `:${p.display.number}`])];
        for (const l of table(rows)) writeLine(io.stdout, l);
      }
      return 0;
    }
    case 'show': {
      const p = await profiles.get(one('profile name'));
      writeLine(io.stdout, json ? jsonText({ profile: p }) : jsonText(p, 2));
      return 0;
    }
    case 'remove': {
      const p = await profiles.remove(one('profile name'));
      let forgot = false;
      if (p.auth.kind === 'password' && p.auth.remember) forgot = await forgetPassword(secrets, p.id).catch(() => false);
      if (json) writeLine(io.stdout, jsonText({ removed: p.name, forgotPassword: forgot }));
      else writeLine(io.stdout, `Removed profile "${p.name}"${forgot ? ' and its remembered password' : ''}.`);
      return 0;
    }
    case 'import-ssh-config': {
      const r = await importSshConfig(profiles, { file: v.file ? path.resolve(String(v.file)) : undefined, replace: !!v.replace, only: positionals });
      for (const w of r.warnings) writeLine(io.stderr, `warning: ${w}`);
      if (json) {
        writeLine(io.stdout, jsonText({ added: r.added.map((p) => p.name), replaced: r.replaced.map((p) => p.name), skipped: r.skipped, warnings: r.warnings }));
      } else {
        for (const p of [...r.added, ...r.replaced]) writeLine(io.stdout, `${r.added.includes(p) ? 'Added' : 'Replaced'} "${p.name}" → ${destinationOf(p)}${p.jumpHosts.length ? ` via ${p.jumpHosts.join(',')}` : ''}`);
        for (const s of r.skipped) writeLine(io.stdout, `Skipped "${s.name}": ${s.reason}`);
        writeLine(io.stdout, `${r.added.length} added, ${r.replaced.length} replaced, ${r.skipped.length} skipped.`);
      }
      return 0;
    }
    case 'export': {
      const names = positionals.length ? positionals : undefined;
      if (v.output) {
        const doc = await exportProfilesToFile(profiles, path.resolve(String(v.output)), names);
        writeLine(io.stderr, `Exported ${doc.profiles.length} profile(s) to ${path.resolve(String(v.output))} (no secrets).`);
      } else io.stdout.write(jsonText(await exportProfiles(profiles, names), 2) + '\n');
      return 0;
    }
    case 'import': {
      const r = await importProfilesFromFile(profiles, path.resolve(one('file')), { replace: !!v.replace });
      for (const w of r.warnings) writeLine(io.stderr, `warning: ${w}`);
      if (json) writeLine(io.stdout, jsonText({ added: r.added.map((p) => p.name), replaced: r.replaced.map((p) => p.name), skipped: r.skipped, warnings: r.warnings }));
      else writeLine(io.stdout, `${r.added.length} added, ${r.replaced.length} replaced, ${r.skipped.length} skipped.`);
      return 0;
    }
    default:
      throw new UsageError(`unknown subcommand "${sub}"`, 'profiles');
  }
}

registerCommand({ name: 'profiles', help, run });
