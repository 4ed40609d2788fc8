import { ShownOnce } from '../shownOnce';
import type { SshConnection } from '../../ssh/connection';
import { registerSecret, toErrorValue } from '../../errors';
import { parseSlurmDuration } from '../../cluster/slurmParsers';
import type { ChannelHub } from '../../vnc/channelHub';
import { openSpeakingFirst, RFB_38_CLIENT_VERSION } from '../../vnc/rfbEarly';
import type { Emit, HandlersOf } from '../../../shared/contract';
import type { ClusterJobView, ClusterViewerTicket, Profile } from '../../../shared/models';
import { ClusterJobs, type LoginNode } from '../clusterJobs';
import { JobRecords } from '../jobRecords';
import type { LiveConnection } from './connections';
import type { Viewers } from './viewers';

export interface ClustersDeps {
  emit: Emit;
  hub: ChannelHub;
  channelBase(): string;
  /** desktop-jobs.json: the desktop jobs this app submitted (ids and times), offered again at start. */
  jobRecordsFile?: string;
  ready(connectionId: string): LiveConnection;
  profileIdOf(connectionId: string): string | undefined;
  profiles: { byId(id: string): Promise<Profile>; list(): Promise<Profile[]> };
  viewers: Pick<Viewers, 'adopt' | 'closeJob'>;
  log(line: string): void;
}

/** clusters.*: desktop jobs on a Slurm login node, their records, and viewers on their desktops. */
export class Clusters {
  private readonly jobs: ClusterJobs;
  /** Job scripts shown to the window, by id, with the settings they were made from (clusters.submit runs only one of these). */
  private readonly scripts = new ShownOnce<Profile>('job script');
  private readonly jobRecords: JobRecords | null;

  constructor(private readonly deps: ClustersDeps) {
    this.jobRecords = deps.jobRecordsFile ? new JobRecords(deps.jobRecordsFile) : null;
    // Every job status passes here on its way to the window: an ended job's record goes with it.
    const emit: Emit = (name, payload) => {
      const job = name === 'clusters.job' ? (payload as ClusterJobView) : null;
      if (job?.phase === 'ended') {
        const profileId = deps.profileIdOf(job.connectionId);
        if (profileId) this.records((r) => r.remove(profileId, job.jobId));
      }
      deps.emit(name, payload);
    };
    this.jobs = new ClusterJobs(emit, deps.log);
  }

  handlers(): HandlersOf<'clusters'> {
    return {
      'clusters.defaults': async ({ connectionId }) => this.jobs.defaults(this.loginNode(connectionId)),
      'clusters.script': async ({ profileId }) => {
        const profile = await this.deps.profiles.byId(profileId);
        return { ...this.jobs.script(profile), scriptId: this.scripts.keep(profile.id, profile) };
      },
      'clusters.submit': async ({ connectionId, scriptId }) => {
        const login = this.loginNode(connectionId);
        // The job settings of the script the window showed (clusters.script), not whatever the window
        // or the profile says now: what reaches sbatch is what the person reviewed.
        const profile = this.scripts.take(scriptId, login.profile.id);
        const job = await this.jobs.submit(connectionId, { ...login, profile });
        const limit = profile.job?.time ? parseSlurmDuration(profile.job.time) : null;
        this.records((r) => r.add({ profileId: profile.id, jobId: job.jobId, submittedAt: Date.now(), timeLimitSec: job.timeLimitSec ?? limit }));
        return job;
      },
      'clusters.jobs': async ({ connectionId }) => {
        const login = this.loginNode(connectionId);
        const jobs = await this.jobs.list(connectionId, login);
        this.records((r) => r.keepOnly(login.profile.id, jobs.map((j) => j.jobId)));
        return jobs;
      },
      'clusters.remembered': async () => {
        const ids = new Set((await this.deps.profiles.list()).map((p) => p.id));
        return this.records((r) => r.list().filter((x) => ids.has(x.profileId))) ?? [];
      },
      'clusters.cancel': async ({ connectionId, jobId }) => {
        this.deps.viewers.closeJob(jobId);
        await this.jobs.cancel(this.loginNode(connectionId), jobId);
      },
      'clusters.viewer': ({ connectionId, jobId }) => this.openViewer(connectionId, jobId),
    };
  }

  /** The node connection of a job's open viewer (null: reached by a login-node forward; undefined: no link). */
  jobNode(jobId: string): SshConnection | null | undefined {
    const link = this.jobs.openLink(jobId);
    return link ? link.node : undefined;
  }

  closeLink(jobId: string): Promise<void> {
    return this.jobs.closeLink(jobId);
  }

  forgetProfile(profileId: string): void {
    this.records((r) => r.forgetProfile(profileId));
  }

  private loginNode(connectionId: string): LoginNode {
    const c = this.deps.ready(connectionId);
    return { conn: c.conn, options: c.options, profile: c.profile, scope: c.scope };
  }

  /** The job records are a convenience: a file that cannot be written is logged, never a failed request. */
  private records<T>(f: (r: JobRecords) => T): T | undefined {
    if (!this.jobRecords) return undefined;
    try {
      return f(this.jobRecords);
    } catch (e) {
      this.deps.log(`desktop job records: ${toErrorValue(e).message}`);
      return undefined;
    }
  }

  /**
   * A viewer on a job's desktop: the job said how it is reached (SSH to the node through the login
   * node and the session's socket, else the login node's TCP forward), and the ticket says which and why.
   */
  private async openViewer(connectionId: string, jobId: string): Promise<ClusterViewerTicket> {
    const login = this.loginNode(connectionId);
    this.deps.viewers.closeJob(jobId);
    const link = await this.jobs.link(login, jobId);
    let otp: string;
    try {
      otp = await link.oneTimePassword();
    } catch (e) {
      await this.jobs.closeLink(jobId);
      throw e;
    }
    const ticket = this.deps.hub.register(() => openSpeakingFirst(() => link.open()), { eager: true, sentForViewer: RFB_38_CLIENT_VERSION });
    this.deps.viewers.adopt({ id: ticket.id, connectionId, display: link.info.display, counters: ticket.counters, release: registerSecret(otp), jobId, ...(link.info.gpuUuid ? { renderGpuUuid: link.info.gpuUuid } : {}) }, login.scope);
    return {
      viewerId: ticket.id,
      url: `${this.deps.channelBase()}${ticket.path}`,
      display: link.info.display,
      remotePort: link.mode === 'login-forward' ? link.info.port : null,
      remoteSocket: link.info.socket,
      flavor: 'turbovnc',
      vncPassword: otp,
      jobId,
      node: link.info.node,
      route: link.mode,
      why: link.why,
    };
  }
}
