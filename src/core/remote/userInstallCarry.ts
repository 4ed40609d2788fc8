import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SFTPWrapper } from 'ssh2';
import { GpuDeskError } from '../errors';
import { homeFolder } from '../files/folders';
import { uploadToFolder } from '../files/upload';
import type { SshSession } from '../ssh/types';
import { shScript } from './shellQuote';
import { USER_INSTALL_DIR, userInstallPackages, type UserInstallOptions } from './userInstall';
import type { UpstreamPackage } from './packageFetch';
import { uploadCutOff } from './userDepsCarry';
import type { PlanProgress, ServerReport } from './types';

/**
 * Packages carried by the desk: where the server cannot reach GitHub (the probe's `reach`, or a failed
 * download), the desk gets TurboVNC's and VirtualGL's packages itself — from the same URLs, checked
 * against the same SHA-256 source the plan uses (GitHub's release API digest), or from a directory on
 * the desk with a SHA256SUMS file — and uploads them over the open SSH connection with SFTP into
 * ~/.local/share/gpu-desk/.incoming/<asset> (a part file renamed when complete), then <asset>.sha256.
 * The plan's steps take a carried file first and check it again on the server before unpacking.
 */

export interface CarryOptions extends UserInstallOptions {
  /** A directory on the desk holding the packages under upstream's names and a SHA256SUMS; undefined: download them here. */
  from?: string;
  /** Only these assets (e.g. the steps still pending); default both. */
  assets?: string[];
  /** Transfer progress, as plan output of the step the package belongs to. */
  onProgress?: (p: PlanProgress) => void;
  /** The upload's bytes as they are acknowledged (for a progress bar; at most one call per percent). */
  onTransfer?: (t: CarryTransfer) => void;
  signal?: AbortSignal;
}

/** One package's upload so far: `bytes` of `total` acknowledged by the server. */
export interface CarryTransfer {
  stepId: string;
  asset: string;
  bytes: number;
  total: number;
}

export interface CarryResult {
  uploaded: { asset: string; bytes: number; sha256: string }[];
}

const STEP_OF: Record<string, string> = { TurboVNC: 'user-turbovnc', VirtualGL: 'user-virtualgl' };

/** The SHA-256 for `asset` in a sha256sum-format file (a `*` marker or a directory part before the name allowed). */
export function sumFor(sums: string, asset: string): string | null {
  for (const line of sums.split('\n')) {
    const m = /^([0-9a-fA-F]{64})\s+\*?(.+)$/.exec(line.trim());
    if (m && m[2].split('/').pop() === asset) return m[1].toLowerCase();
  }
  return null;
}

async function fromDirectory(dir: string, pkg: UpstreamPackage, allowUnverified: boolean): Promise<{ data: Buffer; want: string | null }> {
  const file = path.join(dir, pkg.asset);
  let data: Buffer;
  try {
    data = await fs.promises.readFile(file);
  } catch {
    throw new GpuDeskError('BAD_ARGUMENT', `${file} does not exist`, `Put ${pkg.asset} (upstream's file name) and a SHA256SUMS listing it into ${dir}, or leave out --packages-from to download it on this computer`);
  }
  const sums = await fs.promises.readFile(path.join(dir, 'SHA256SUMS'), 'utf8').catch(() => '');
  const want = sumFor(sums, pkg.asset);
  if (!want && !allowUnverified) {
    throw new GpuDeskError('PLAN_STEP_FAILED', `${dir}/SHA256SUMS lists no SHA-256 for ${pkg.asset}, so it has nothing to be checked against`, 'Add its line (sha256sum output) to SHA256SUMS, or allow unverified packages (--allow-unverified)');
  }
  return { data, want };
}

async function download(url: string, what: string, signal?: AbortSignal): Promise<Buffer> {
  let res: Response;
  try {
    res = await fetch(url, { signal, headers: { 'user-agent': 'gpu-desk' } });
  } catch (e) {
    throw new GpuDeskError('PLAN_STEP_FAILED', `Could not download ${what} on this computer either (${(e as Error).message})`, 'Check this computer\'s network, or download the packages by hand and give their directory with --packages-from DIR');
  }
  if (!res.ok) throw new GpuDeskError('PLAN_STEP_FAILED', `Downloading ${what} failed: ${url} answered ${res.status}`, 'Check the version, or give a directory with the packages (--packages-from DIR)');
  try {
    return Buffer.from(await res.arrayBuffer());
  } catch (e) {
    throw new GpuDeskError('PLAN_STEP_FAILED', `The download of ${what} was cut off (${(e as Error).message}); nothing was uploaded`, 'Run the plan again');
  }
}

async function fromGithub(pkg: UpstreamPackage, allowUnverified: boolean, signal?: AbortSignal): Promise<{ data: Buffer; want: string | null }> {
  const api = `https://api.github.com/repos/${pkg.repo}/releases/tags/${pkg.version}`;
  const release = JSON.parse((await download(api, `the ${pkg.label} ${pkg.version} release's details`, signal)).toString('utf8')) as { assets?: { name: string; digest?: string }[] };
  const digest = release.assets?.find((a) => a.name === pkg.asset)?.digest;
  const want = digest?.startsWith('sha256:') ? digest.slice(7).toLowerCase() : null;
  if (!want && !allowUnverified) {
    throw new GpuDeskError('PLAN_STEP_FAILED', `GitHub's release API lists no SHA-256 for ${pkg.asset}, so it has nothing to be checked against`, 'Use a directory with a SHA256SUMS (--packages-from DIR), or allow unverified packages (--allow-unverified)');
  }
  return { data: await download(`https://github.com/${pkg.repo}/releases/download/${pkg.version}/${pkg.asset}`, pkg.asset, signal), want };
}

/** Gets, checks and uploads the packages; the plan's steps then find them in .incoming. */
export async function carryUserPackages(
  session: SshSession & { sftp(): Promise<SFTPWrapper> },
  report: Pick<ServerReport, 'arch' | 'os'>,
  opts: CarryOptions = {},
): Promise<CarryResult> {
  const emit = opts.onProgress ?? (() => {});
  const allowUnverified = opts.allowUnverified ?? false;
  const pkgs = userInstallPackages(report, opts).filter((p) => !opts.assets || opts.assets.includes(p.asset));
  const sftp = await session.sftp();
  const folder = path.posix.join(await homeFolder(sftp), USER_INSTALL_DIR, '.incoming');
  // A part file an earlier cut-off upload left behind is removed first (hidden names only: the finished files are kept).
  const prep = await session.exec(shScript('mkdir -p "$1" && chmod 700 "$1" && rm -f -- "$1"/.[!.]*', [folder]), { timeoutMs: 30_000 });
  if (prep.code !== 0) throw new GpuDeskError('REMOTE_COMMAND_FAILED', `Cannot create ${folder} on the server: ${(prep.stdout + prep.stderr).trim().split('\n').pop() ?? ''}`, 'Check that your home on the server is writable and not full');
  const uploaded: CarryResult['uploaded'] = [];
  for (const pkg of pkgs) {
    const stepId = STEP_OF[pkg.label];
    const say = (text: string) => emit({ type: 'output', stepId, stream: 'stdout', text: `${text}\n` });
    say(opts.from ? `taking ${pkg.asset} from ${opts.from}` : `the server cannot download ${pkg.asset}: downloading it on this computer`);
    const { data, want } = opts.from ? await fromDirectory(opts.from, pkg, allowUnverified) : await fromGithub(pkg, allowUnverified, opts.signal);
    const got = createHash('sha256').update(data).digest('hex');
    if (want && got !== want) {
      throw new GpuDeskError('PLAN_STEP_FAILED', `SHA-256 mismatch for ${pkg.asset}: expected ${want}, the file has ${got}; nothing was installed (nothing was uploaded)`, opts.from ? `Replace ${path.join(opts.from, pkg.asset)} with an intact copy, then run the plan again` : 'Run the plan again; if it happens again, download the package by hand and give its directory with --packages-from DIR');
    }
    say(want ? `${pkg.asset}: SHA-256 ${got} checked; uploading ${(data.length / 1e6).toFixed(1)} MB over SSH` : `${pkg.asset}: nothing to check it against (unverified, as the plan allowed); uploading`);
    let shown = 0;
    let told = -1;
    const transfer = (bytes: number) => {
      const pct = Math.floor((bytes * 100) / Math.max(1, data.length));
      if (pct === told) return;
      told = pct;
      opts.onTransfer?.({ stepId, asset: pkg.asset, bytes, total: data.length });
    };
    transfer(0);
    try {
      await uploadToFolder(sftp, {
        folder, name: pkg.asset, overwrite: true, signal: opts.signal,
        source: (async function* () { yield data; })(),
        onProgress: (bytes) => {
          transfer(bytes);
          // A line per tenth of the file: the plan's output is shown whole.
          if (bytes - shown >= data.length / 10 || bytes === data.length) {
            shown = bytes;
            say(`  uploaded ${(bytes / 1e6).toFixed(1)} of ${(data.length / 1e6).toFixed(1)} MB`);
          }
        },
      });
      // The sum goes last: a package without one is never unpacked (the step deletes it and asks for it again).
      await uploadToFolder(sftp, { folder, name: `${pkg.asset}.sha256`, overwrite: true, source: (async function* () { yield Buffer.from(`${want ?? got}  ${pkg.asset}\n`); })() });
    } catch (e) {
      if (uploadCutOff(e)) {
        throw new GpuDeskError('CONNECTION_LOST', `The upload of ${pkg.asset} was cut off; nothing was installed (a partial upload is never unpacked)`, 'Reconnect and run the plan again: the upload starts over');
      }
      throw e;
    }
    uploaded.push({ asset: pkg.asset, bytes: data.length, sha256: got });
  }
  return { uploaded };
}
