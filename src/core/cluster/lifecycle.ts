import { EventEmitter } from 'node:events';
import { GpuDeskError } from '../errors';
import type { SshSession } from '../ssh/types';
import { jobStatus, readJobFiles } from './jobs';
import type { JobConnectionInfo, JobStatus } from './types';

/** Warnings before the time limit: 10 minutes and 1 minute, each said once. */
export const WARN_AT_SEC = [600, 60] as const;

/** Thresholds crossed now that were not warned about yet (largest first: only the nearest is said). */
export function warningDue(timeLeftSec: number | null, warned: ReadonlySet<number>, thresholds: readonly number[] = WARN_AT_SEC): number | null {
  if (timeLeftSec === null || timeLeftSec <= 0) return null;
  const crossed = thresholds.filter((t) => timeLeftSec <= t && !warned.has(t));
  return crossed.length ? Math.min(...crossed) : null;
}

/** "2 h 05 min", "9 min 59 s", "42 s": what the viewer shows as time left. */
export function formatTimeLeft(sec: number | null): string {
  if (sec === null) return 'no time limit';
  const s = Math.max(0, Math.round(sec));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (h > 0) return `${h} h ${String(m).padStart(2, '0')} min`;
  if (m > 0) return `${m} min ${String(s % 60).padStart(2, '0')} s`;
  return `${s} s`;
}

/** One line a person reads: the job as it stands. */
export function describeStatus(s: JobStatus): string {
  if (s.phase === 'pending') {
    return `Job ${s.jobId} is pending (${s.reason ?? 'waiting'})${s.estimatedStart ? `; Slurm estimates it starts at ${s.estimatedStart}` : '; no estimated start yet'}`;
  }
  if (s.phase === 'running') return `Job ${s.jobId} is running on ${s.node ?? 'its node'}; time left: ${formatTimeLeft(s.timeLeftSec)}`;
  return `Job ${s.jobId} ended: ${s.endedWhy ?? s.state.toLowerCase()}`;
}

export interface WatchOptions {
  /** Poll interval while pending (Slurm's scheduler decides; a second is plenty). */
  pendingIntervalMs?: number;
  runningIntervalMs?: number;
  now?: () => number;
}

/**
 * Follows a job until it ends: 'status' on every poll (phase, reason, estimated start, node, time
 * left), 'warning' once per threshold before the time limit ({ secondsLeft, threshold }), 'ended'
 * with the final status (why: from sacct, else scontrol), 'error' when asking Slurm fails.
 */
export class JobWatcher extends EventEmitter {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly warned = new Set<number>();
  last: JobStatus | null = null;

  constructor(private readonly login: SshSession, readonly jobId: string, private readonly opts: WatchOptions = {}) {
    super();
  }

  start(): this {
    void this.poll();
    return this;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async poll(): Promise<void> {
    if (this.stopped) return;
    let st: JobStatus;
    try {
      st = await jobStatus(this.login, this.jobId);
    } catch (e) {
      if (this.stopped) return;
      this.emit('error', e);
      this.schedule(this.opts.runningIntervalMs ?? 5000);
      return;
    }
    if (this.stopped) return;
    this.last = st;
    this.emit('status', st);
    if (st.phase === 'ended') {
      this.stopped = true;
      this.emit('ended', st);
      return;
    }
    const due = warningDue(st.timeLeftSec, this.warned);
    if (due !== null) {
      // Every threshold at or above the one crossed counts as said: reconnecting with 5 minutes
      // left warns once, not twice.
      for (const t of WARN_AT_SEC) if (t >= due) this.warned.add(t);
      this.emit('warning', { secondsLeft: st.timeLeftSec, threshold: due });
    }
    let next = st.phase === 'pending' ? (this.opts.pendingIntervalMs ?? 1000) : (this.opts.runningIntervalMs ?? 5000);
    // Wake up in time for the next threshold rather than up to one interval late.
    if (st.timeLeftSec !== null) {
      const upcoming = WARN_AT_SEC.filter((t) => !this.warned.has(t) && t < st.timeLeftSec!);
      if (upcoming.length) next = Math.min(next, Math.max(200, (st.timeLeftSec - Math.max(...upcoming)) * 1000));
    }
    this.schedule(next);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.poll(), ms);
  }
}

/**
 * Wait until the job's desktop is up (its connection file written), reporting each status on the
 * way. No deadline of its own: a job may pend for hours; the caller stops it with `signal`.
 */
export async function waitForDesktop(
  login: SshSession,
  jobId: string,
  opts: { onStatus?: (s: JobStatus) => void; signal?: AbortSignal; pendingIntervalMs?: number } = {},
): Promise<{ status: JobStatus; connection: JobConnectionInfo }> {
  const sleep = (ms: number) => new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    opts.signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
  });
  for (;;) {
    if (opts.signal?.aborted) throw new GpuDeskError('CANCELLED', `Stopped waiting for job ${jobId}`, 'The job keeps its place in the queue; cancel it with `gpu-desk jobs <cluster> cancel ' + jobId + '`');
    const st = await jobStatus(login, jobId);
    opts.onStatus?.(st);
    if (st.phase === 'ended') {
      const { outputTail, outputPath } = await readJobFiles(login, jobId).catch(() => ({ outputTail: '', outputPath: 'the job\'s output file' }));
      // gpu-desk's own last word on why, else the last error line (Slurm's, the shell's).
      const lines = outputTail.split('\n');
      const said = lines.filter((l) => /^gpu-desk:/.test(l)).pop() ?? lines.filter((l) => /error/i.test(l)).pop();
      throw new GpuDeskError('JOB_ENDED', `Job ${jobId} ended (${st.endedWhy ?? st.state}) before its desktop was up${said ? `: ${said.replace(/^gpu-desk:\s*/, '')}` : ''}`, `Look at ${outputPath} on the cluster, then start again`);
    }
    if (st.phase === 'running') {
      const files = await readJobFiles(login, jobId);
      if (files.connection) return { status: st, connection: files.connection };
      await sleep(250);
    } else {
      await sleep(opts.pendingIntervalMs ?? 1000);
    }
  }
}
