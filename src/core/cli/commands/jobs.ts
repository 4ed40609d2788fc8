import { cancelJob, clusterDefaults, listDesktopJobs, submitJob, takeOneTimePassword } from '../../cluster/jobs';
import { buildJob } from '../../cluster/jobScript';
import { describeStatus, formatTimeLeft, waitForDesktop } from '../../cluster/lifecycle';
import { probeCluster } from '../../cluster/clusterProbe';
import { formatReport } from '../../remote/reportText';
import type { JobSettings, JobStatus } from '../../cluster/types';
import { GpuDeskError } from '../../errors';
import { writeLine, type CliIo } from '../io';
import { parseCommandArgs, UsageError } from '../parse';
import { registerCommand } from '../registry';
import { jobOptionHelp, jobOptionSpec, jobSettingsFromFlags } from '../jobOptions';
import { remoteOptRoot } from '../remoteOptRoot';
import { destinationOf, resolveDestination, sshOptionHelp, sshOptionSpec, type DestinationDefaults, type SshOptionValues } from '../sshOptions';
import { withConnection } from '../withConnection';

const help = [
  'Usage: gpu-desk jobs <cluster> start|list|cancel|otp [JOBID] [options]',
  '',
  'A GPU desktop as a Slurm job: gpu-desk submits a batch job (sbatch --parsable) on the login node that',
  'starts TurboVNC on the compute node with one-time passwords, then you reach it with',
  '"gpu-desk tunnel <cluster> --job JOBID" (or the app).',
  '',
  '<cluster> is the login node: user@host, host, a ~/.ssh/config alias or a saved profile name; a cluster',
  'profile (gpu-desk profiles add NAME HOST --cluster ...) also gives the job settings, flags override them.',
  '',
  '  start                    submit the desktop job, show it pending (reason, estimated start) and',
  '                           running (node, time left) until its desktop is up',
  '  defaults                 the partitions (with their GPUs) and accounts the cluster offers',
  '  list                     your running and pending desktop jobs (found by job name, e.g. after a restart)',
  '  cancel JOBID             scancel the job (its desktop and socket go with it)',
  '  otp JOBID                a one-time password for the job\'s desktop (each works for one connection)',
  '  probe [--node NAME]      probe the login node and one compute node (the partition\'s first, or NAME),',
  '                           and say whether the node shares your home (one install into it serves all)',
  '',
  'Job options (start; a cluster profile\'s settings, else Slurm\'s defaults, where omitted):',
  ...jobOptionHelp,
  '  --geometry WxH           desktop size (default: the profile\'s, else 1920x1080)',
  '  --print-script           print the sbatch command and job script, submit nothing',
  '  --no-wait                return after sbatch has accepted the job',
  '  --json                   start: one JSON object per line (submitted, status, warning, ready); list: a JSON array',
  ...sshOptionHelp,
].join('\n');

/** The profile's job settings, then the command line's on top. */
function settingsFrom(values: Record<string, unknown>, io: CliIo, fromProfile: DestinationDefaults): JobSettings {
  const flags = jobSettingsFromFlags(values);
  const geometry = typeof values.geometry === 'string' ? values.geometry : fromProfile.geometry;
  return {
    ...fromProfile.job,
    ...flags,
    ...(geometry ? { geometry } : {}),
    optRoot: fromProfile.job?.optRoot ?? remoteOptRoot(io),
  };
}

function jobLine(j: JobStatus): string {
  if (j.phase === 'pending') return `${j.jobId}  pending   ${j.reason ?? ''}${j.estimatedStart ? `  (estimated start ${j.estimatedStart})` : ''}`;
  return `${j.jobId}  ${j.phase.padEnd(8)}  ${j.node ?? ''}  time left ${formatTimeLeft(j.timeLeftSec)}`;
}

function jobIdArg(v: string | undefined, action: string): string {
  if (v === undefined) throw new UsageError(`${action} needs the job id, e.g. "${action} 1234"`, 'jobs');
  if (!/^\d{1,12}$/.test(v)) throw new GpuDeskError('BAD_ARGUMENT', `"${v}" is not a Slurm job id`, 'give the number sbatch printed (see "gpu-desk jobs <cluster> list")');
  return v;
}

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('jobs', args, {
    ...sshOptionSpec,
    ...jobOptionSpec,
    geometry: { type: 'string' },
    'print-script': { type: 'boolean' },
    'no-wait': { type: 'boolean' },
    node: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    writeLine(io.stdout, help);
    return 0;
  }
  const cluster = destinationOf(positionals, 'jobs');
  const action = positionals[1] ?? 'list';
  if (!['start', 'list', 'cancel', 'otp', 'defaults', 'probe'].includes(action)) throw new UsageError(`Unknown action "${action}": use start, list, cancel, otp, defaults or probe`, 'jobs');
  const noId = action === 'start' || action === 'list' || action === 'defaults' || action === 'probe';
  if (positionals.length > 3 || (positionals.length > 2 && noId)) {
    throw new UsageError(`Too many arguments: ${positionals.slice(noId ? 2 : 3).join(' ')}`, 'jobs');
  }
  const json = !!values.json;
  const { options, defaults } = await resolveDestination(cluster, values as SshOptionValues, io);
  const settings = settingsFrom(values, io, defaults);
  if (action === 'start' && values['print-script']) {
    writeLine(io.stdout, buildJob(settings).shown.trimEnd());
    return 0;
  }
  const jobId = action === 'cancel' || action === 'otp' ? jobIdArg(positionals[2], action) : undefined;

  return withConnection(options, async (login) => {
    if (action === 'defaults') {
      const d = await clusterDefaults(login);
      if (json) writeLine(io.stdout, JSON.stringify(d));
      else {
        for (const p of d.partitions) {
          writeLine(io.stdout, `partition ${p.name}${p.isDefault ? ' (default)' : ''}${p.up ? '' : ' (down)'}  GPUs: ${p.gres.join(', ') || 'none'}  time limit: ${p.maxTime ?? 'none'}`);
        }
        writeLine(io.stdout, d.accounts === null ? `accounts: not available (${d.accountsWhy})` : `accounts: ${d.accounts.join(', ') || 'none listed for you'}`);
      }
      return 0;
    }
    if (action === 'probe') {
      const p = await probeCluster(login, options, { optRoot: settings.optRoot, partition: settings.partition, node: typeof values.node === 'string' ? values.node : undefined });
      if (json) writeLine(io.stdout, JSON.stringify(p));
      else {
        writeLine(io.stdout, `login node: ${formatReport(p.login).trimEnd()}`);
        writeLine(io.stdout, p.node.report ? `\nnode ${p.node.name}: ${formatReport(p.node.report).trimEnd()}` : `\nnode ${p.node.name}: not probed (${p.node.error})`);
        writeLine(io.stdout, `\n${p.home.message}${p.home.fix ? ` — ${p.home.fix}` : ''}`);
      }
      return 0;
    }
    if (action === 'list') {
      const jobs = await listDesktopJobs(login);
      if (json) writeLine(io.stdout, JSON.stringify(jobs));
      else if (!jobs.length) writeLine(io.stdout, 'No gpu-desk desktop jobs are queued or running.');
      else for (const j of jobs) writeLine(io.stdout, jobLine(j));
      return 0;
    }
    if (action === 'cancel') {
      await cancelJob(login, jobId!);
      if (json) writeLine(io.stdout, JSON.stringify({ jobId, cancelled: true }));
      else writeLine(io.stdout, `Job ${jobId} cancelled (scancel).`);
      return 0;
    }
    if (action === 'otp') {
      const otp = await takeOneTimePassword(login, jobId!);
      writeLine(io.stdout, json ? JSON.stringify({ jobId, otp }) : otp);
      return 0;
    }
    const { jobId: id } = await submitJob(login, settings);
    if (json) writeLine(io.stdout, JSON.stringify({ event: 'submitted', jobId: id }));
    else writeLine(io.stdout, `Submitted job ${id}.`);
    if (values['no-wait']) return 0;
    let lastLine = '';
    const ctl = new AbortController();
    const onSignal = () => ctl.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      const { status, connection } = await waitForDesktop(login, id, {
        signal: ctl.signal,
        onStatus: (st) => {
          // Status lines only when something a person cares about changed (not every second of time left).
          const line = st.phase === 'running' ? `Job ${id} is running on ${st.node ?? 'its node'}` : describeStatus(st);
          if (line === lastLine) return;
          lastLine = line;
          if (json) writeLine(io.stdout, JSON.stringify({ event: 'status', ...st }));
          else writeLine(io.stderr, line);
        },
      });
      if (json) {
        writeLine(io.stdout, JSON.stringify({ event: 'ready', jobId: id, node: connection.node, display: connection.display, access: connection.access, virtualgl: connection.virtualgl, timeLeftSec: status.timeLeftSec }));
      } else {
        writeLine(io.stdout, `Desktop :${connection.display} is up on ${connection.node} (time left: ${formatTimeLeft(status.timeLeftSec)}; VirtualGL: ${connection.virtualgl ? 'yes' : 'no'}).`);
        writeLine(io.stdout, `Connect: gpu-desk tunnel ${cluster} --job ${id}`);
        writeLine(io.stdout, `Stop:    gpu-desk jobs ${cluster} cancel ${id}`);
      }
      return 0;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  });
}

registerCommand({ name: 'jobs', help, run });
