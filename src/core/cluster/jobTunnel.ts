import { GpuDeskError } from '../errors';
import type { SshConnection } from '../ssh/connection';
import type { ConnectOptions, SshSession } from '../ssh/types';
import type { TunnelInfo } from '../tunnels/tunnel';
import { TunnelManager } from '../tunnels/tunnelManager';
import { connectJobDesktop, type JobDesktopLink } from './connect';
import { listDesktopJobs } from './jobs';
import { formatTimeLeft } from './lifecycle';
import type { JobStatus } from './types';

/**
 * The running desktop job a tunnel without a job id means: the only one. None, or several, is the
 * user's decision to make, so it is an error that says what to do (`name` is how they call the cluster).
 */
export async function runningDesktopJob(login: SshSession, name: string, jobId?: string): Promise<JobStatus> {
  const jobs = await listDesktopJobs(login);
  const running = jobs.filter((j) => j.phase === 'running');
  if (jobId !== undefined) {
    const j = jobs.find((x) => x.jobId === jobId);
    if (!j) throw new GpuDeskError('JOB_NOT_FOUND', `Job ${jobId} is not one of your queued or running desktop jobs on ${name}`, `list them with \`gpu-desk jobs ${name} list\``);
    if (j.phase !== 'running') throw new GpuDeskError('NO_RUNNING_JOB', `Job ${jobId} on ${name} has not started yet (${j.reason ?? 'pending'})`, 'open the tunnel again once it runs (`gpu-desk jobs ' + name + ' list`)');
    return j;
  }
  if (running.length === 1) return running[0];
  if (running.length > 1) {
    const each = running.map((j) => `${j.jobId} on ${j.node ?? '?'} (${formatTimeLeft(j.timeLeftSec)} left)`).join(', ');
    throw new GpuDeskError('SEVERAL_JOBS', `${running.length} desktop jobs are running on ${name}: ${each}`, `choose one with \`gpu-desk tunnel ${name} --job ${running[0].jobId}\`, or Reconnect on the cluster's page`);
  }
  const pending = jobs.filter((j) => j.phase === 'pending');
  if (pending.length) throw new GpuDeskError('NO_RUNNING_JOB', `No desktop job is running on ${name} yet (job ${pending[0].jobId} is pending: ${pending[0].reason ?? 'waiting'})`, `open the tunnel again once it runs (\`gpu-desk jobs ${name} list\`)`);
  throw new GpuDeskError('NO_RUNNING_JOB', `No desktop job is running on ${name}`, `start one from the app or \`gpu-desk jobs ${name} start\``);
}

/** Tunnel-only mode to a job's desktop: a loopback port whose every connection reaches the session. */
export interface JobTunnel {
  link: JobDesktopLink;
  tunnels: TunnelManager;
  info: TunnelInfo;
  close(): Promise<void>;
}

/** The CLI's `tunnel <cluster> --job ID` and the app's tray both open a job's desktop with this. */
export async function openJobTunnel(login: SshConnection, loginOptions: ConnectOptions, jobId: string, o: { localPort?: number } = {}): Promise<JobTunnel> {
  const link = await connectJobDesktop(login, loginOptions, jobId);
  const tunnels = new TunnelManager(link.forwarding);
  let info: TunnelInfo;
  try {
    info = await tunnels.openDisplay(link.info.display, { localPort: o.localPort, remoteHost: link.target, remotePort: link.info.port });
  } catch (e) {
    await link.close().catch(() => {});
    throw e;
  }
  return {
    link,
    tunnels,
    info,
    close: async () => {
      await tunnels.closeAll();
      await link.close().catch(() => {});
    },
  };
}
