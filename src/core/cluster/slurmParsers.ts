import type { JobConnectionInfo, JobPhase, JobStatus } from './types';

/** squeue's -o format for one job per line; the comment goes last because it may hold the separator. */
export const SQUEUE_FORMAT = '%i|%j|%T|%r|%N|%L|%l|%S|%k';

const ACTIVE = new Set(['PENDING', 'CONFIGURING', 'RUNNING', 'COMPLETING', 'SUSPENDED', 'RESIZING', 'REQUEUED', 'REQUEUE_HOLD', 'REQUEUE_FED', 'STAGE_OUT', 'SIGNALING', 'STOPPED']);
const PENDING = new Set(['PENDING', 'CONFIGURING', 'REQUEUED', 'REQUEUE_HOLD', 'REQUEUE_FED']);

/** Slurm's own "nothing here" words. */
function none(v: string | undefined): string | null {
  if (v === undefined) return null;
  const t = v.trim();
  return t === '' || /^(N\/A|\(null\)|None|Unknown|NONE)$/.test(t) ? null : t;
}

/**
 * Slurm durations: [days-]hours:minutes:seconds, minutes:seconds, or a bare count of minutes (time
 * limits as given to sbatch); UNLIMITED/INFINITE/NOT_SET/INVALID and N/A → null.
 */
export function parseSlurmDuration(text: string): number | null {
  const t = text.trim();
  const m = /^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$/.exec(t);
  if (!m) return null;
  const days = Number(m[1] ?? 0);
  const parts = [m[2], m[3], m[4]].filter((x): x is string => x !== undefined).map(Number);
  let secs: number;
  if (m[1] !== undefined) {
    // With days the rest is hours[:minutes[:seconds]].
    secs = (parts[0] ?? 0) * 3600 + (parts[1] ?? 0) * 60 + (parts[2] ?? 0);
  } else if (parts.length === 3) {
    secs = parts[0] * 3600 + parts[1] * 60 + parts[2];
  } else if (parts.length === 2) {
    secs = parts[0] * 60 + parts[1];
  } else {
    secs = parts[0] * 60;
  }
  return days * 86400 + secs;
}

/** A state word in the words a person uses: what the viewer shows after "ended: ". */
export function endedWhy(state: string, exitCode?: string | null): string {
  const s = state.split(/\s+/)[0].replace(/\+$/, '');
  switch (s) {
    case 'COMPLETED': return 'completed';
    case 'CANCELLED': return 'cancelled';
    case 'TIMEOUT': return 'time limit';
    case 'NODE_FAIL': return 'node failure';
    case 'OUT_OF_MEMORY': return 'out of memory';
    case 'PREEMPTED': return 'preempted';
    case 'BOOT_FAIL': return 'node boot failure';
    case 'DEADLINE': return 'deadline reached';
    case 'FAILED': return exitCode && exitCode !== '0:0' ? `failed (exit code ${exitCode.split(':')[0]})` : 'failed';
    default: return s.toLowerCase().replace(/_/g, ' ');
  }
}

function phaseOf(state: string): JobPhase {
  if (PENDING.has(state)) return 'pending';
  return ACTIVE.has(state) ? 'running' : 'ended';
}

export interface SqueueRow {
  jobId: string;
  name: string;
  state: string;
  reason: string | null;
  node: string | null;
  timeLeftSec: number | null;
  timeLimitSec: number | null;
  /** Start time: the actual one when running, Slurm's estimate when pending (the same field squeue --start prints). */
  start: string | null;
  comment: string | null;
}

/** Lines of `squeue -h -o SQUEUE_FORMAT`. */
export function parseSqueue(text: string): SqueueRow[] {
  const rows: SqueueRow[] = [];
  for (const line of text.split('\n')) {
    const f = line.split('|');
    if (f.length < 9 || !/^\d+/.test(f[0])) continue;
    rows.push({
      jobId: f[0].trim(),
      name: f[1],
      state: f[2].trim(),
      reason: none(f[3]),
      node: none(f[4]),
      timeLeftSec: parseSlurmDuration(f[5]),
      timeLimitSec: parseSlurmDuration(f[6]),
      start: none(f[7]),
      comment: none(f.slice(8).join('|')),
    });
  }
  return rows;
}

/** `squeue --start -h -o '%i|%T|%S|%r'`: the estimated start of pending jobs. */
export function parseSqueueStart(text: string): { jobId: string; state: string; start: string | null; reason: string | null }[] {
  return text.split('\n').map((l) => l.split('|')).filter((f) => f.length >= 4 && /^\d+/.test(f[0]))
    .map((f) => ({ jobId: f[0].trim(), state: f[1].trim(), start: none(f[2]), reason: none(f.slice(3).join('|')) }));
}

/**
 * `scontrol -o show job ID`: Key=Value pairs on one line. Values may hold spaces (Comment=…) and '='
 * (TRES=cpu=1,…), so a key starts only after whitespace and runs to the next such key.
 */
export function parseScontrolJob(text: string): Record<string, string> | null {
  const line = text.split('\n').find((l) => /^\s*JobId=\d+/.test(l));
  if (!line) return null;
  const out: Record<string, string> = {};
  const re = /(?:^|\s)([A-Za-z][A-Za-z0-9/:_]*)=/g;
  const keys: { key: string; at: number; valueAt: number }[] = [];
  for (let m = re.exec(line); m; m = re.exec(line)) keys.push({ key: m[1], at: m.index, valueAt: m.index + m[0].length });
  keys.forEach((k, i) => {
    out[k.key] = line.slice(k.valueAt, i + 1 < keys.length ? keys[i + 1].at : line.length).trim();
  });
  return out;
}

/** `sacct -n -P -X -j ID -o JobID,State,ExitCode`; null when the cluster keeps no accounting. */
export function parseSacct(text: string, jobId: string): { state: string; exitCode: string | null } | null {
  for (const line of text.split('\n')) {
    const f = line.split('|');
    if (f.length >= 3 && f[0].trim() === jobId) return { state: f[1].trim(), exitCode: none(f[2]) };
  }
  return null;
}

/** A queued or running job as squeue shows it. */
export function statusFromSqueue(q: SqueueRow): JobStatus {
  const phase = phaseOf(q.state);
  return {
    jobId: q.jobId,
    name: q.name,
    phase,
    state: q.state,
    reason: phase === 'pending' ? q.reason : null,
    estimatedStart: phase === 'pending' ? q.start : null,
    node: phase === 'pending' ? null : q.node,
    timeLeftSec: phase === 'pending' ? null : q.timeLeftSec,
    timeLimitSec: q.timeLimitSec,
    endedWhy: phase === 'ended' ? endedWhy(q.state) : null,
    source: 'squeue',
  };
}

/** The one status of a job from whatever of squeue, scontrol and sacct answered. */
export function jobStatusFrom(jobId: string, out: { squeue?: string; scontrol?: string; sacct?: string }): JobStatus | null {
  const q = parseSqueue(out.squeue ?? '').find((r) => r.jobId === jobId);
  if (q && ACTIVE.has(q.state)) return statusFromSqueue(q);
  // Ended (or squeue did not answer): accounting knows best; scontrol keeps the job for MinJobAge.
  const sc = parseScontrolJob(out.scontrol ?? '');
  const acct = parseSacct(out.sacct ?? '', jobId);
  if (!sc && !acct && !q) return null;
  const state = (acct?.state ?? sc?.JobState ?? q?.state ?? 'UNKNOWN').split(/\s+/)[0];
  const phase = phaseOf(state);
  const exitCode = acct?.exitCode ?? none(sc?.ExitCode) ?? null;
  return {
    jobId,
    name: sc?.JobName ?? q?.name ?? '',
    phase,
    state,
    reason: phase === 'pending' ? none(sc?.Reason) : null,
    estimatedStart: phase === 'pending' ? none(sc?.StartTime) : null,
    node: none(sc?.BatchHost) ?? none(sc?.NodeList) ?? q?.node ?? null,
    timeLeftSec: null,
    timeLimitSec: sc ? parseSlurmDuration(sc.TimeLimit ?? '') : q?.timeLimitSec ?? null,
    endedWhy: phase === 'ended' ? endedWhy(state, exitCode) : null,
    source: acct ? 'sacct' : sc ? 'scontrol' : 'squeue',
  };
}

/** `sinfo -h -o '%P|%G|%l|%a'`: partitions, the default one marked with '*', and their GRES. */
export function parseSinfo(text: string): { name: string; isDefault: boolean; gres: string[]; maxTime: string | null; up: boolean }[] {
  const byName = new Map<string, { name: string; isDefault: boolean; gres: string[]; maxTime: string | null; up: boolean }>();
  for (const line of text.split('\n')) {
    const f = line.split('|');
    if (f.length < 4 || f[0].trim() === '') continue;
    const isDefault = f[0].trim().endsWith('*');
    const name = f[0].trim().replace(/\*$/, '');
    const p = byName.get(name) ?? { name, isDefault, gres: [], maxTime: none(f[2]), up: f[3].trim() === 'up' };
    for (const g of f[1].split(',')) {
      const gg = none(g)?.replace(/\(.*\)$/, '');
      if (gg && !p.gres.includes(gg)) p.gres.push(gg);
    }
    byName.set(name, p);
  }
  return [...byName.values()];
}

/** `sacctmgr -n -P show assoc user=U format=account,partition,qos`: accounts where accounting is readable. */
export function parseSacctmgrAccounts(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const f = line.split('|');
    if (f.length < 2) continue;
    const a = f[0].trim();
    if (/^[A-Za-z0-9_.-]+$/.test(a) && !out.includes(a)) out.push(a);
  }
  return out;
}

/** The job's ~/.gpu-desk/jobs/<cluster>/<id>/connection (key=value lines written by the job script). */
export function parseConnectionFile(jobId: string, text: string): JobConnectionInfo | null {
  const kv: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf('=');
    if (i > 0) kv[line.slice(0, i)] = line.slice(i + 1);
  }
  const display = Number(kv.display);
  const port = Number(kv.port);
  if (!kv.node || !Number.isInteger(display) || !Number.isInteger(port) || (kv.access !== 'ssh' && kv.access !== 'login-forward')) return null;
  return { jobId, node: kv.node, display, port, socket: kv.socket || null, access: kv.access, virtualgl: kv.virtualgl === '1', gpuUuid: /^[A-Za-z0-9-]{1,80}$/.test(kv.gpu ?? '') ? kv.gpu : null };
}
