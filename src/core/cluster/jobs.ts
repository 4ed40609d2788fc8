import { GpuDeskError } from '../errors';
import { SECTION_MARK, splitSections } from '../remote/parsers';
import { shScript } from '../remote/shellQuote';
import type { SshSession } from '../ssh/types';
import { buildJob, checkClusterName, JOB_NAME, JOBS_DIR } from './jobScript';
import {
  jobStatusFrom,
  parseConnectionFile,
  parseSacctmgrAccounts,
  parseSinfo,
  parseSqueue,
  SQUEUE_FORMAT,
  statusFromSqueue,
} from './slurmParsers';
import type { JobConnectionInfo, JobSettings, JobStatus } from './types';

function checkJobId(id: string): void {
  if (!/^\d{1,12}$/.test(id)) {
    throw new GpuDeskError('BAD_ARGUMENT', `"${id}" is not a Slurm job id`, 'Give the number sbatch printed (gpu-desk jobs <cluster> list shows them)');
  }
}

function firstLine(text: string): string {
  return text.split('\n').map((l) => l.replace(/^(sbatch|squeue|scancel|scontrol): error:\s*/, '').trim()).filter(Boolean)
    // sbatch says the specific cause first and "Batch job submission failed: …" last; keep the specific one.
    .find((l) => !/^Batch job submission failed/i.test(l)) ?? text.trim().split('\n')[0] ?? '';
}

/**
 * sbatch's own words, with what to do. Its message names the cause ("invalid partition specified:
 * nope"); the fix depends on which setting it was.
 */
export function sbatchError(output: string): GpuDeskError {
  const said = firstLine(output).slice(0, 200);
  let fix = 'Change the job settings of the cluster profile and start again';
  if (/partition/i.test(output)) fix = 'Pick a partition that `sinfo` lists on the login node (--partition)';
  else if (/--time|time limit/i.test(output)) fix = 'Give the time as minutes, HH:MM:SS or D-HH:MM:SS (--time), within the partition\'s limit';
  else if (/account/i.test(output)) fix = 'Give an account you belong to (`sacctmgr show assoc user=$USER`), --account';
  else if (/gres|generic resource/i.test(output)) fix = 'Ask for GPUs the partition has, e.g. --gres=gpu:1 (sinfo -o "%P %G")';
  else if (/qos/i.test(output)) fix = 'Give a QoS your account may use (--qos)';
  else if (/command not found|sbatch: not found/i.test(output)) fix = 'Point the profile at the cluster\'s login node, where Slurm\'s commands are installed';
  return new GpuDeskError('SLURM_FAILED', `Slurm refused the job: ${said}`, fix);
}

const clusterNames = new WeakMap<SshSession, Promise<string>>();

/**
 * The login node's ClusterName (`scontrol show config`), asked once per connection: it keys the
 * job's files on the shared home, as SLURM_CLUSTER_NAME does in the job.
 */
export function clusterName(login: SshSession): Promise<string> {
  let p = clusterNames.get(login);
  if (!p) {
    p = (async () => {
      const r = await login.exec('LC_ALL=C scontrol show config 2>&1', { timeoutMs: 30_000 });
      const m = /^ClusterName\s*=\s*(\S+)\s*$/m.exec(r.stdout);
      if (!m) {
        throw new GpuDeskError('SLURM_FAILED', `scontrol show config named no cluster (${firstLine(r.stdout + r.stderr) || `exit ${r.code}`})`, 'Point the cluster profile at the login node, where Slurm\'s commands are installed and configured');
      }
      return checkClusterName(m[1]);
    })();
    clusterNames.set(login, p);
    // A failed ask (the connection dropped, say) is asked again next time.
    p.catch(() => clusterNames.delete(login));
  }
  return p;
}

/**
 * Defines `jobfiles CLUSTER ID`, which sets d (the job's directory) and o (its output file). An
 * earlier gpu-desk wrote ~/.gpu-desk/jobs/ID with no cluster level; such a directory is read only for
 * a job that this cluster's Slurm says is the user's and writes its output there (StdOut …/jobs/ID.out),
 * so another cluster's job with the same number is never taken for this one.
 */
const JOB_FILES_SH = `
jobfiles() {
  d="$HOME/${JOBS_DIR}/$1/$2"; o="$HOME/${JOBS_DIR}/$1/$2.out"
  if [ ! -e "$d" ] && [ ! -e "$o" ] && { [ -e "$HOME/${JOBS_DIR}/$2" ] || [ -e "$HOME/${JOBS_DIR}/$2.out" ]; }; then
    case " $(scontrol -o show job "$2" 2>/dev/null) " in
      *" UserId=$(id -un)("*"/${JOBS_DIR}/$2.out "*) d="$HOME/${JOBS_DIR}/$2"; o="$HOME/${JOBS_DIR}/$2.out" ;;
    esac
  fi
}`;

/** Submit the desktop job; returns Slurm's job id. */
export async function submitJob(login: SshSession, settings: JobSettings): Promise<{ jobId: string; cluster: string | null }> {
  const cluster = await clusterName(login);
  const job = buildJob(settings, cluster);
  // The output file's directory must exist before Slurm opens it; 0700 keeps other users out.
  const r = await login.exec(shScript(`umask 077; c="$1"; shift; cd "$HOME" && mkdir -p "${JOBS_DIR}/$c" && chmod 700 .gpu-desk ${JOBS_DIR} "${JOBS_DIR}/$c" && exec sbatch "$@"`, [cluster, ...job.sbatchArgs]), {
    stdin: job.script,
    timeoutMs: 60_000,
  });
  const out = r.stdout.trim();
  // --parsable prints "jobid" or "jobid;cluster".
  const m = /^(\d+)(?:;(\S+))?$/m.exec(out);
  if (r.code !== 0 || !m) throw sbatchError(`${r.stderr}\n${r.stdout}`);
  return { jobId: m[1], cluster: m[2] ?? cluster };
}

const STATUS_SCRIPT = `
export LC_ALL=C
m() { printf '\\n${SECTION_MARK}%s\\n' "$1"; }
m squeue; squeue -h -j "$1" -o "$2" 2>&1
m scontrol; scontrol -o show job "$1" 2>&1
m sacct; sacct -n -P -X -j "$1" -o JobID,State,ExitCode 2>&1
m end
`;

/** Where the job stands, from squeue while it is queued or running, else sacct or scontrol. */
export async function jobStatus(login: SshSession, jobId: string): Promise<JobStatus> {
  checkJobId(jobId);
  const r = await login.exec(shScript(STATUS_SCRIPT, [jobId, SQUEUE_FORMAT]), { timeoutMs: 30_000 });
  const s = splitSections(r.stdout);
  if (!('end' in s)) throw new GpuDeskError('REMOTE_COMMAND_FAILED', `Asking Slurm about job ${jobId} failed (${firstLine(r.stderr || r.stdout)})`, 'Check that the profile points at the login node');
  const st = jobStatusFrom(jobId, s);
  if (!st) {
    throw new GpuDeskError('JOB_NOT_FOUND', `Slurm knows no job ${jobId}`, 'It may have ended long ago; list the running ones with `gpu-desk jobs <cluster> list`');
  }
  return st;
}

/** The user's running or pending desktop jobs (after a restart: what can be reconnected to). */
export async function listDesktopJobs(login: SshSession): Promise<JobStatus[]> {
  const r = await login.exec(shScript('export LC_ALL=C; exec squeue -h -u "$(id -un)" --name="$1" -o "$2"', [JOB_NAME, SQUEUE_FORMAT]), { timeoutMs: 30_000 });
  if (r.code !== 0) throw new GpuDeskError('SLURM_FAILED', `squeue failed: ${firstLine(r.stderr || r.stdout)}`, 'Check that the profile points at the login node');
  return parseSqueue(r.stdout)
    .filter((q) => q.name === JOB_NAME)
    .map(statusFromSqueue);
}

export async function cancelJob(login: SshSession, jobId: string): Promise<void> {
  checkJobId(jobId);
  const r = await login.exec(shScript('exec scancel "$1" 2>&1', [jobId]), { timeoutMs: 30_000 });
  if (r.code !== 0) throw new GpuDeskError('SLURM_FAILED', `scancel ${jobId} failed: ${firstLine(r.stdout + r.stderr)}`, 'Check the job id with `gpu-desk jobs <cluster> list`');
}

/**
 * The job's connection file (null until the desktop is up), the tail of its output, which says
 * why when the desktop could not start, and where that output is (~/… for messages).
 */
export async function readJobFiles(login: SshSession, jobId: string): Promise<{ connection: JobConnectionInfo | null; outputTail: string; outputPath: string }> {
  checkJobId(jobId);
  const cluster = await clusterName(login);
  const r = await login.exec(shScript(`${JOB_FILES_SH}
m() { printf '\\n${SECTION_MARK}%s\\n' "$1"; }
jobfiles "$1" "$2"
m connection; cat "$d/connection" 2>/dev/null
m output; tail -n 40 "$o" 2>/dev/null
m path; printf '%s\\n' "\${o#"$HOME"/}"
m end`, [cluster, jobId]), { timeoutMs: 30_000 });
  const s = splitSections(r.stdout);
  return {
    connection: parseConnectionFile(jobId, s.connection ?? ''),
    outputTail: (s.output ?? '').trim(),
    outputPath: `~/${(s.path ?? '').trim() || `${JOBS_DIR}/${cluster}/${jobId}.out`}`,
  };
}

/**
 * A one-time password for the job's session (each works for one connection, and a new one replaces
 * the last): asked of the job through its 0700 directory on the shared home, so it works whether or
 * not SSH to the node is allowed. It never appears on a command line or in a log.
 */
export async function takeOneTimePassword(login: SshSession, jobId: string): Promise<string> {
  checkJobId(jobId);
  const cluster = await clusterName(login);
  const r = await login.exec(shScript(`${JOB_FILES_SH}
jobfiles "$1" "$2"
[ -f "$d/connection" ] || { echo "no desktop"; exit 3; }
umask 077; rm -f "$d/otp"; : >"$d/otp-request"
i=0
while [ ! -s "$d/otp" ]; do
  i=$((i+1)); [ $i -le 900 ] || { echo "no answer"; exit 4; }
  sleep 0.1
done
cat "$d/otp"; rm -f "$d/otp"`, [cluster, jobId]), { timeoutMs: 120_000 });
  const otp = r.stdout.trim();
  if (r.code !== 0 || !/^\S{4,64}$/.test(otp)) {
    throw new GpuDeskError('VNC_SESSION_FAILED', `Job ${jobId} gave no one-time password (${r.code === 3 ? 'its desktop is not up' : 'the job did not answer'})`, `Check that the job is running (gpu-desk jobs <cluster> list) and look at ~/${JOBS_DIR}/${cluster}/${jobId}.out`);
  }
  // Not registered here: the caller registers it for as long as it holds it (a long-running app
  // would otherwise keep every password it ever fetched).
  return otp;
}

/** The node's address as the login node reaches it (NodeAddr; the name itself where they agree). */
export async function nodeAddress(login: SshSession, node: string): Promise<string> {
  if (!/^[A-Za-z0-9._-]+$/.test(node)) throw new GpuDeskError('BAD_ARGUMENT', `"${node}" is not a node name`, 'Check the job with `gpu-desk jobs <cluster> list`');
  const r = await login.exec(shScript('export LC_ALL=C; exec scontrol -o show node "$1" 2>&1', [node]), { timeoutMs: 30_000 });
  const m = /(?:^|\s)NodeAddr=(\S+)/.exec(r.stdout);
  return m ? m[1] : node;
}

export interface ClusterDefaults {
  partitions: ReturnType<typeof parseSinfo>;
  /** null where the cluster keeps no accounting the user can read (accountsWhy says so plainly). */
  accounts: string[] | null;
  accountsWhy: string | null;
}

/** What the cluster suggests for a new profile: partitions with their GPUs, and accounts where readable. */
export async function clusterDefaults(login: SshSession): Promise<ClusterDefaults> {
  const r = await login.exec(shScript(`
export LC_ALL=C
m() { printf '\\n${SECTION_MARK}%s\\n' "$1"; }
m sinfo; sinfo -h -o '%P|%G|%l|%a' 2>&1
m sacctmgr; sacctmgr -n -P show assoc user="$(id -un)" format=account,partition,qos 2>&1; echo "rc=$?"
m end`), { timeoutMs: 30_000 });
  const s = splitSections(r.stdout);
  if (!('end' in s)) throw new GpuDeskError('REMOTE_COMMAND_FAILED', 'Asking the cluster for its partitions failed', 'Check that the profile points at the login node');
  const sinfo = s.sinfo ?? '';
  if (/command not found|not found/i.test(sinfo) && !sinfo.includes('|')) {
    throw new GpuDeskError('SLURM_FAILED', 'sinfo is not installed on this host', 'Point the cluster profile at the login node, where Slurm\'s commands are installed');
  }
  const acct = (s.sacctmgr ?? '').replace(/\n?rc=(\d+)\s*$/, '');
  const rc = Number(/rc=(\d+)\s*$/.exec(s.sacctmgr ?? '')?.[1] ?? '1');
  let accountsWhy: string | null = null;
  if (/accounting_storage|slurmdbd/i.test(acct)) accountsWhy = 'the cluster keeps no accounting database; leave the account empty unless your site says otherwise';
  else if (rc !== 0) accountsWhy = `sacctmgr could not be asked (${firstLine(acct) || `exit ${rc}`}); leave the account empty unless your site says otherwise`;
  return { partitions: parseSinfo(sinfo), accounts: accountsWhy ? null : parseSacctmgrAccounts(acct), accountsWhy };
}
