import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { GpuDeskError } from '../errors';
import { homeFolder } from '../files/folders';
import { uploadToFolder } from '../files/upload';
import type { SshSession } from '../ssh/types';
import { shScript } from './shellQuote';
import { APT_USER_SH, CARRIED_MIRROR_DIR, USER_INSTALL_DIR, userDependencyPackages } from './userInstall';
import type { PlanProgress, ServerReport } from './types';

/**
 * The distribution's packages carried by the desk (Debian/Ubuntu), where the server cannot reach its
 * own mirror: the desk reads the server's apt sources and architecture over SSH, downloads each
 * source's signed InRelease (or Release + Release.gpg) and its Packages index, and uploads them over
 * SFTP into a local mirror tree, ~/.local/share/gpu-desk/.incoming/mirror/<n>/dists/…, with a sources
 * file naming it as file:// and the SAME Signed-By as the original source. The server's apt-get update
 * (as the user, private lists: APT_USER_SH) then checks the signature and the index hashes itself;
 * `apt-get download --print-uris` names each .deb's pool path and SHA-256, the desk downloads those
 * from the real mirror into the pool paths, and the user-deps/user-window-manager steps' own
 * `apt-get download` from file:// checks every .deb against the signed index. Nothing is trusted on
 * the desk's word. RHEL (dnf) is not carried yet.
 */

/** One binary source of the server's apt configuration. */
export interface AptSource {
  uri: string;
  suite: string;
  components: string[];
  /** Signed-By as written (a keyring path, or an inline key block), or null: the system's trusted keys. */
  signedBy: string | null;
  trusted: boolean;
}

/** The sources in `text`: files separated by "@@file <path>" lines (one-line .list files and deb822 .sources). */
export function parseAptSources(text: string): AptSource[] {
  const out: AptSource[] = [];
  for (const chunk of text.split(/^@@file /m).slice(1)) {
    const nl = chunk.indexOf('\n');
    const file = chunk.slice(0, nl).trim();
    const body = chunk.slice(nl + 1);
    if (file.endsWith('.sources')) out.push(...deb822(body));
    else out.push(...oneLine(body));
  }
  return out;
}

function oneLine(body: string): AptSource[] {
  const out: AptSource[] = [];
  for (const raw of body.split('\n')) {
    const l = raw.replace(/#.*/, '').trim();
    const m = /^deb\s+(?:\[([^\]]*)\]\s+)?(\S+)\s+(\S+)\s*(.*)$/.exec(l);
    if (!m) continue;
    const opts = new Map((m[1] ?? '').trim().split(/\s+/).filter(Boolean).map((o) => [o.split('=')[0].toLowerCase(), o.slice(o.indexOf('=') + 1)] as [string, string]));
    out.push({ uri: m[2], suite: m[3], components: m[4].split(/\s+/).filter(Boolean), signedBy: opts.get('signed-by') ?? null, trusted: opts.get('trusted') === 'yes' });
  }
  return out;
}

function deb822(body: string): AptSource[] {
  const out: AptSource[] = [];
  for (const para of body.split(/\n[ \t]*\n/)) {
    const f = new Map<string, string>();
    let last = '';
    for (const raw of para.split('\n')) {
      if (/^\s*#/.test(raw)) continue;
      if (/^[ \t]/.test(raw) && last) { f.set(last, `${f.get(last)}\n${raw}`); continue; }
      const m = /^([A-Za-z-]+):\s*(.*)$/.exec(raw);
      if (m) { last = m[1].toLowerCase(); f.set(last, m[2]); }
    }
    if (!(f.get('types') ?? '').split(/\s+/).includes('deb') || /^no$/i.test(f.get('enabled') ?? '')) continue;
    const words = (k: string) => (f.get(k) ?? '').split(/\s+/).filter(Boolean);
    for (const uri of words('uris')) {
      for (const suite of words('suites')) out.push({ uri, suite, components: words('components'), signedBy: f.get('signed-by') ?? null, trusted: /^yes$/i.test(f.get('trusted') ?? '') });
    }
  }
  return out;
}

/** The index files apt wants for `arch` from a Release file's SHA256 list (xz first, then gz, then plain). */
export function indexFiles(release: string, components: string[], arch: string): string[] {
  const listed = new Set<string>();
  const sha = /^SHA256:\s*\n((?:[ \t].*\n?)*)/m.exec(release);
  for (const l of (sha?.[1] ?? '').split('\n')) {
    const p = l.trim().split(/\s+/)[2];
    if (p) listed.add(p);
  }
  const archs = [arch];
  // binary-all is fetched only where the Release lists "all" and does not say its packages are in each arch's index.
  if (/^Architectures:.*\ball\b/m.test(release) && !/^No-Support-for-Architecture-all:\s*Packages/m.test(release)) archs.push('all');
  const files: string[] = [];
  for (const c of components) {
    for (const a of archs) {
      const base = `${c}/binary-${a}/Packages`;
      const pick = ['.xz', '.gz', ''].map((x) => base + x).find((p) => listed.has(p));
      if (pick) files.push(pick);
    }
  }
  return files;
}

export interface DistCarryOptions {
  /** The plan's steps still to do: user-deps and user-window-manager pick the packages carried. */
  stepIds: string[];
  /** A directory on the desk where .deb files may already lie (under their pool names), taken before downloading. */
  from?: string;
  onProgress?: (p: PlanProgress) => void;
  signal?: AbortSignal;
}

const STEP_LISTS: Record<string, 'deps' | 'wm'> = { 'user-deps': 'deps', 'user-window-manager': 'wm' };

/** Which of the plan's steps fetch distribution packages (only those are carried). */
export function distCarrySteps(stepIds: string[]): string[] {
  return stepIds.filter((id) => id in STEP_LISTS);
}

/** Whether the desk carries the distribution's packages: asked (--carry-packages), or the probe found the mirror unreachable. */
export function wantsDistCarry(report: Pick<ServerReport, 'reach'>, asked: boolean): boolean {
  return asked || report.reach?.mirrorReachable === false || (report.reach?.mirrorReachable === null && report.reach.upstream === false);
}

async function get(url: string, signal: AbortSignal | undefined, fix: string, optional = false): Promise<Buffer | null> {
  let res: Response;
  try {
    res = await fetch(url, { signal, headers: { 'user-agent': 'gpu-desk' } });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new GpuDeskError('PLAN_STEP_FAILED', `Neither the server nor this computer can reach the distribution's mirror ${new URL(url).host} (${cause?.code ?? cause?.message ?? (e as Error).message})`, fix);
  }
  if (res.status === 404 && optional) return null;
  if (!res.ok) throw new GpuDeskError('PLAN_STEP_FAILED', `The distribution's mirror answered ${res.status} for ${url}`, fix);
  try {
    return Buffer.from(await res.arrayBuffer());
  } catch (e) {
    throw new GpuDeskError('PLAN_STEP_FAILED', `The download of ${url} was cut off (${(e as Error).message}); nothing was installed`, 'Run the plan again');
  }
}

const MB = (n: number) => `${(n / 1e6).toFixed(2)} MB`;

/**
 * Makes the local mirror on the server and fills it with what the pending steps need. The steps then
 * find $B/.incoming/mirror/sources.list and use it in place of the server's unreachable sources.
 */
export async function carryDistPackages(
  session: SshSession & { sftp(): Promise<SFTPWrapper> },
  report: Pick<ServerReport, 'os'>,
  opts: DistCarryOptions,
): Promise<{ files: number; bytes: number }> {
  const steps = distCarrySteps(opts.stepIds);
  const distro = report.os.distro;
  if (steps.length === 0 || !distro) return { files: 0, bytes: 0 };
  const stepId = steps[0];
  const say = (text: string) => opts.onProgress?.({ type: 'output', stepId, stream: 'stdout', text: `${text}\n` });
  if (distro.startsWith('rhel-')) {
    throw new GpuDeskError('PLAN_STEP_FAILED', 'The server cannot reach its distribution\'s repositories, and carrying RHEL packages (dnf) from this computer is not supported yet', 'Ask the administrator to install the packages the plan lists (or to give the server a route or proxy to its repositories)');
  }
  const sftp = await session.sftp();
  const M = path.posix.join(await homeFolder(sftp), USER_INSTALL_DIR, CARRIED_MIRROR_DIR);
  const exec = async (script: string, args: string[], what: string) => {
    const r = await session.exec(shScript(script, args), { timeoutMs: 600_000 });
    if (r.code !== 0) throw new GpuDeskError('REMOTE_COMMAND_FAILED', `${what}: ${(r.stderr.trim() || r.stdout.trim()).split('\n').pop() ?? ''}`, 'Check the server\'s apt configuration, then run the plan again');
    return r.stdout;
  };

  // The server's architecture and binary sources (a fresh mirror tree each time: nothing stale is kept).
  const info = await exec([
    'rm -rf -- "$1" && mkdir -p "$1" && chmod 700 "$1" || exit 1',
    'dpkg --print-architecture || exit 1',
    'for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do [ -f "$f" ] || continue; echo "@@file $f"; cat "$f"; echo; done',
  ].join('\n'), [M], 'Cannot read the server\'s package sources');
  const arch = info.split('\n')[0].trim();
  const sources = parseAptSources(info.slice(info.indexOf('\n') + 1)).filter((s) => {
    const ok = /^https?:\/\//.test(s.uri) && !s.suite.endsWith('/') && s.components.length > 0;
    if (!ok) say(`not carried (this computer carries http(s) sources with components only): ${s.uri} ${s.suite}`);
    return ok;
  });
  if (sources.length === 0) throw new GpuDeskError('PLAN_STEP_FAILED', 'The server\'s apt sources name no http(s) mirror this computer could carry packages from', 'Ask the administrator to install the packages the plan lists');
  const mirrorHost = new URL(sources[0].uri).host;
  const indexFix = `Connect this computer to a network that reaches ${mirrorHost}, or ask the administrator to install the packages the plan lists (or to give the server a route or proxy)`;

  // Indexes: downloaded here, uploaded as they are; the server's apt checks them.
  const uploads: { dir: string; name: string; data: Buffer }[] = [];
  const entries: string[] = [];
  for (const [n, s] of sources.entries()) {
    const base = `${s.uri.replace(/\/+$/, '')}/dists/${s.suite}`;
    const local = `${n}/dists/${s.suite}`;
    say(`downloading ${base}/InRelease on this computer`);
    let release = await get(`${base}/InRelease`, opts.signal, indexFix, true);
    if (release) uploads.push({ dir: local, name: 'InRelease', data: release });
    else {
      release = await get(`${base}/Release`, opts.signal, indexFix);
      uploads.push({ dir: local, name: 'Release', data: release! });
      const sig = await get(`${base}/Release.gpg`, opts.signal, indexFix, true);
      if (sig) uploads.push({ dir: local, name: 'Release.gpg', data: sig });
    }
    for (const f of indexFiles(release!.toString('utf8'), s.components, arch)) {
      const data = (await get(`${base}/${f}`, opts.signal, indexFix))!;
      say(`downloaded ${base}/${f} (${MB(data.length)})`);
      uploads.push({ dir: `${local}/${path.posix.dirname(f)}`, name: path.posix.basename(f), data });
    }
    entries.push([
      'Types: deb', `URIs: file://${M}/${n}`, `Suites: ${s.suite}`, `Components: ${s.components.join(' ')}`, `Architectures: ${arch}`,
      // Only what was carried: the signed index by its name (no by-hash copies), no translations.
      'By-Hash: no',
      ...(s.signedBy ? [`Signed-By: ${s.signedBy}`] : []), ...(s.trusted ? ['Trusted: yes'] : []),
    ].join('\n'));
  }
  uploads.push({ dir: 'sources.list.d', name: 'carried.sources', data: Buffer.from(`${entries.join('\n\n')}\n`) });
  uploads.push({ dir: '.', name: 'sources.list', data: Buffer.from('# the carried sources are in sources.list.d (gpu-desk)\n') });
  let bytes = await upload(session, sftp, M, uploads, say);

  // apt checks the indexes (signature, hashes) and names the .debs the steps need.
  const lists = steps.map((id) => (STEP_LISTS[id] === 'deps' ? [...userDependencyPackages(distro).turbovnc, ...userDependencyPackages(distro).virtualgl] : userDependencyPackages(distro).wm ?? []));
  const uris = await exec([
    // The lists first: APT_USER_SH sets the positional parameters to apt's options.
    'L1=$1; L2=$2; B="$HOME/' + USER_INSTALL_DIR + '"; t=$(mktemp -d) || exit 1; trap \'rm -rf -- "$t"\' EXIT',
    APT_USER_SH,
    '[ -n "$M" ] || { echo "the carried package lists are missing" >&2; exit 1; }',
    'apt-get "$@" update >"$t/log" 2>&1; rc=$?',
    'if [ $rc != 0 ] || grep -qE "^(W|E):" "$t/log"; then grep -E "^(W|E):" "$t/log" | tail -n 3 >&2; echo "apt-get update refused the carried package lists (signature or hashes)" >&2; exit 1; fi',
    'for l in "$L1" "$L2"; do [ -n "$l" ] || continue',
    '  need=$(apt-get "$@" -s install --no-install-recommends $l 2>"$t/err" | sed -n \'s/^Inst \\([^ ]*\\) .*/\\1/p\')',
    '  grep "^E:" "$t/err" | tail -n 1 >&2',
    '  [ -z "$need" ] || apt-get "$@" download --print-uris $need || exit 1',
    'done',
  ].join('\n'), [lists[0]?.join(' ') ?? '', lists[1]?.join(' ') ?? ''], 'apt on the server could not resolve the carried packages');
  const debs: { dir: string; name: string; data: Buffer }[] = [];
  const seen = new Set<string>();
  for (const l of uris.split('\n')) {
    const m = /^'file:(?:\/\/)?(\/\S+)' (\S+) (\d+) SHA256:([0-9a-f]{64})/.exec(l.trim());
    if (!m || seen.has(m[1])) continue;
    seen.add(m[1]);
    const rel = decodeURIComponent(m[1]).slice(M.length + 1);
    const n = Number(rel.split('/')[0]);
    const poolPath = rel.slice(rel.indexOf('/') + 1);
    const name = path.posix.basename(poolPath);
    const url = `${sources[n].uri.replace(/\/+$/, '')}/${poolPath}`;
    const local = opts.from ? path.join(opts.from, name) : null;
    let data: Buffer;
    if (local && fs.existsSync(local)) {
      data = await fs.promises.readFile(local);
      say(`taking ${name} from ${opts.from}`);
    } else {
      data = (await get(url, opts.signal, `Put ${name} (and the other .deb files the plan needs) into a directory and give it with --packages-from DIR, or ask the administrator to install them`))!;
    }
    const got = createHash('sha256').update(data).digest('hex');
    if (got !== m[4]) throw new GpuDeskError('PLAN_STEP_FAILED', `SHA-256 mismatch for ${name}: the server's signed index says ${m[4]}, the file has ${got}; nothing was installed`, local && fs.existsSync(local) ? `Replace ${local} with an intact copy, then run the plan again` : 'Run the plan again');
    say(`${name}: ${MB(data.length)}, SHA-256 matches the server's signed index`);
    debs.push({ dir: `${n}/${path.posix.dirname(poolPath)}`, name, data });
  }
  bytes += await upload(session, sftp, M, debs, say);
  say(`carried ${uploads.length + debs.length} files (${MB(bytes)}) to ${M}`);
  return { files: uploads.length + debs.length, bytes };
}

/** Whether an upload failed because the link went down (SFTP's own "No response from server" included). */
export function uploadCutOff(e: unknown): boolean {
  return e instanceof GpuDeskError && (e.code === 'CONNECTION_LOST' || e.code === 'NOT_CONNECTED'
    || (e.code === 'SFTP_FAILED' && /\((No response from server|Not connected)\)/.test(e.message)));
}

async function upload(session: SshSession, sftp: SFTPWrapper, M: string, files: { dir: string; name: string; data: Buffer }[], say: (t: string) => void): Promise<number> {
  if (files.length === 0) return 0;
  const dirs = [...new Set(files.map((f) => path.posix.join(M, f.dir)))];
  const r = await session.exec(shScript('mkdir -p -- "$@"', dirs), { timeoutMs: 60_000 });
  if (r.code !== 0) throw new GpuDeskError('REMOTE_COMMAND_FAILED', `Cannot create ${M} on the server: ${r.stderr.trim().split('\n').pop() ?? ''}`, 'Check that your home on the server is writable and not full');
  let bytes = 0;
  for (const f of files) {
    try {
      await uploadToFolder(sftp, { folder: path.posix.join(M, f.dir), name: f.name, overwrite: true, source: (async function* () { yield f.data; })() });
    } catch (e) {
      if (uploadCutOff(e)) {
        throw new GpuDeskError('CONNECTION_LOST', `The upload of ${f.name} was cut off; nothing was installed (a partial upload is never used)`, 'Reconnect and run the plan again: the upload starts over');
      }
      throw e;
    }
    bytes += f.data.length;
    say(`  uploaded ${path.posix.join(f.dir, f.name)} (${MB(f.data.length)})`);
  }
  return bytes;
}

