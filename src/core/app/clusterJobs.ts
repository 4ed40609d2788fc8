import { connectJobDesktop, type JobDesktopLink } from '../cluster/connect';
import { buildJob } from '../cluster/jobScript';
import { cancelJob, clusterDefaults, listDesktopJobs, readJobFiles, submitJob } from '../cluster/jobs';
import { JobWatcher } from '../cluster/lifecycle';
import type { JobSettings, JobStatus } from '../cluster/types';
import { GpuDeskError, toErrorValue } from '../errors';
import type { SshConnection } from '../ssh/connection';
import type { ConnectOptions } from '../ssh/types';
import type { Emit } from '../../shared/contract';
import type { ClusterDefaultsView, ClusterJobView, Profile } from '../../shared/models';
import type { ConnectionScope } from './connectionScope';

/** What the cluster part of the app needs of a live connection: the login node's, and how it was made. */
export interface LoginNode {
  conn: SshConnection;
  options: ConnectOptions;
  profile: Profile;
  /** The login connection's: the jobs it follows and the node links it opens go with it (the jobs keep running on the cluster). */
  scope: ConnectionScope;
}

/** A cluster profile's settings as the job script takes them (the desktop size is the profile's). */
export function jobSettingsOf(p: Profile): JobSettings {
  if (p.kind !== 'cluster') throw new GpuDeskError('NOT_A_CLUSTER', `"${p.name}" is a server profile, not a cluster`, 'Edit the profile and make it a cluster (a Slurm login node) to start desktop jobs');
  return { ...(p.job ?? {}), ...(p.display.geometry ? { geometry: p.display.geometry } : {}) };
}

/** How often a running job is looked at for its desktop until it is up. */
const DESKTOP_POLL_MS = 250;

interface Watched {
  watcher: JobWatcher;
  connectionId: string;
  desktopUp: boolean;
  warning: number | null;
  checking: boolean;
  unscope: () => void;
}

/**
 * The app's desktop jobs: submitted or found again (by job name) per login connection, each followed
 * by one JobWatcher whose every status goes to the window as a `clusters.job` event, with the time-limit
 * warnings and, once running, whether the job's desktop is up.
 */
export class ClusterJobs {
  private readonly watched = new Map<string, Watched>();
  private readonly links = new Map<string, { link: JobDesktopLink; unscope: () => void }>();

  constructor(private readonly emit: Emit, private readonly log: (line: string) => void) {}

  script(p: Profile): { shown: string } {
    return { shown: buildJob(jobSettingsOf(p)).shown };
  }

  async defaults(login: LoginNode): Promise<ClusterDefaultsView> {
    return clusterDefaults(login.conn);
  }

  async submit(connectionId: string, login: LoginNode): Promise<ClusterJobView> {
    const { jobId } = await submitJob(login.conn, jobSettingsOf(login.profile));
    return this.watch(connectionId, login, jobId, null);
  }

  /** The user's queued and running desktop jobs on this cluster (after a restart: what can be reconnected). */
  async list(connectionId: string, login: LoginNode): Promise<ClusterJobView[]> {
    const jobs = await listDesktopJobs(login.conn);
    return jobs.map((st) => this.watch(connectionId, login, st.jobId, st));
  }

  async cancel(login: LoginNode, jobId: string): Promise<void> {
    await cancelJob(login.conn, jobId);
    await this.closeLink(jobId);
  }

  /** The job's desktop, through the login node (SSH to the node, else the login node's TCP forward). */
  async link(login: LoginNode, jobId: string): Promise<JobDesktopLink> {
    await this.closeLink(jobId);
    const link = await connectJobDesktop(login.conn, login.options, jobId);
    this.links.set(jobId, { link, unscope: () => {} });
    // Set first: on a login connection closed meanwhile, the scope closes the link at once.
    const unscope = login.scope.add(() => this.closeLink(jobId));
    const kept = this.links.get(jobId);
    if (kept?.link === link) kept.unscope = unscope;
    return link;
  }

  /** The open link of a job's viewer, if any. */
  openLink(jobId: string): JobDesktopLink | undefined {
    return this.links.get(jobId)?.link;
  }

  async closeLink(jobId: string): Promise<void> {
    const l = this.links.get(jobId);
    this.links.delete(jobId);
    l?.unscope();
    await l?.link.close().catch(() => {});
  }

  /** Its login connection closed: the job is no longer followed (it keeps running on the cluster). */
  private async unwatch(jobId: string, w: Watched): Promise<void> {
    if (this.watched.get(jobId) !== w) return;
    w.watcher.stop();
    this.watched.delete(jobId);
    await this.closeLink(jobId);
  }

  private watch(connectionId: string, login: LoginNode, jobId: string, first: JobStatus | null): ClusterJobView {
    let w = this.watched.get(jobId);
    if (!w) {
      const watcher = new JobWatcher(login.conn, jobId);
      const entry: Watched = { watcher, connectionId, desktopUp: false, warning: null, checking: false, unscope: () => {} };
      w = entry;
      this.watched.set(jobId, entry);
      entry.unscope = login.scope.add(() => this.unwatch(jobId, entry));
      watcher.on('status', (st: JobStatus) => {
        // The 'ended' status is the last one: its desktop went with the job.
        if (st.phase === 'ended') entry.desktopUp = false;
        this.emit('clusters.job', this.view(connectionId, st, entry));
        if (st.phase === 'running' && !entry.desktopUp && !entry.checking) void this.followDesktop(login, jobId, entry);
      });
      watcher.on('warning', (x: { secondsLeft: number; threshold: number }) => {
        entry.warning = x.threshold;
        if (watcher.last) this.emit('clusters.job', this.view(connectionId, watcher.last, entry));
      });
      watcher.on('ended', () => {
        entry.unscope();
        this.watched.delete(jobId);
        void this.closeLink(jobId);
      });
      watcher.on('error', (e: unknown) => this.log(`job ${jobId}: ${toErrorValue(e).message}`));
      watcher.start();
    }
    const st: JobStatus = first ?? w.watcher.last ?? { jobId, name: 'gpu-desk', phase: 'pending', state: 'PENDING', reason: null, estimatedStart: null, node: null, timeLeftSec: null, timeLimitSec: null, endedWhy: null, source: 'squeue' };
    return this.view(connectionId, st, w);
  }

  /**
   * The desktop is up once the job has written its connection file, a few seconds after RUNNING.
   * Looked for every DESKTOP_POLL_MS rather than on the watcher's running-job polls (5 s apart):
   * those seconds would be the user's, waiting in front of a desktop that is already up.
   */
  private async followDesktop(login: LoginNode, jobId: string, entry: Watched): Promise<void> {
    entry.checking = true;
    try {
      while (!entry.desktopUp && this.watched.get(jobId) === entry && entry.watcher.last?.phase === 'running') {
        const { connection } = await readJobFiles(login.conn, jobId).catch(() => ({ connection: null }));
        if (connection && this.watched.get(jobId) === entry) {
          entry.desktopUp = true;
          this.emit('clusters.job', this.view(entry.connectionId, entry.watcher.last, entry));
          return;
        }
        await new Promise((r) => setTimeout(r, DESKTOP_POLL_MS));
      }
    } finally {
      entry.checking = false;
    }
  }

  private view(connectionId: string, st: JobStatus, w: Watched): ClusterJobView {
    return {
      connectionId,
      jobId: st.jobId,
      phase: st.phase,
      state: st.state,
      reason: st.reason,
      estimatedStart: st.estimatedStart,
      node: st.node,
      timeLeftSec: st.timeLeftSec,
      timeLimitSec: st.timeLimitSec,
      endedWhy: st.endedWhy,
      desktopUp: w.desktopUp,
      warning: w.warning,
      at: Date.now(),
    };
  }
}
