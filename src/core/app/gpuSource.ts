import type { SshSession } from '../ssh/types';

/**
 * Which machine runs a desktop, and the shell there: the server itself (its connection); a Slurm job's
 * compute node, through the node connection its viewer streams through; or a job reached by the login
 * node's TCP forward, with no SSH to its node (`login` can still run a step inside the job with srun).
 */
export type DesktopMachine<S extends SshSession = SshSession> =
  | { kind: 'server'; session: S; machine: string }
  | { kind: 'node'; session: S; machine: string; jobId: string }
  | { kind: 'job-forward'; session: null; machine: string; jobId: string; login: S }
  | { kind: 'no-link'; session: null; machine: string; jobId: string };

export interface DesktopMachineDeps<S extends SshSession = SshSession> {
  /** The open login (or server) connection. */
  connection(connectionId: string): S;
  /** The node connection of a job's open desktop link (null: a login-node forward, no SSH to the node; undefined: no link). */
  jobNode(jobId: string): S | null | undefined;
}

/**
 * The one answer to "which machine runs this desktop" (GPU figures, video mode's encoder and clipboard
 * images all ask it). A job's desktop never runs on the login node, whose nvidia-smi or ffmpeg would
 * describe another machine (or none). `machine` is a stable key for that machine (a connection id, or
 * job:ID).
 */
export function desktopMachine<S extends SshSession>(target: { connectionId: string; jobId?: string }, deps: DesktopMachineDeps<S>): DesktopMachine<S> {
  if (target.jobId === undefined) return { kind: 'server', session: deps.connection(target.connectionId), machine: target.connectionId };
  const { jobId } = target;
  const machine = `job:${jobId}`;
  const node = deps.jobNode(jobId);
  if (node) return { kind: 'node', session: node, machine, jobId };
  return node === null ? { kind: 'job-forward', session: null, machine, jobId, login: deps.connection(target.connectionId) } : { kind: 'no-link', session: null, machine, jobId };
}

/** Which machine answers for a desktop's GPUs: a session to run nvidia-smi on, or why there is none. */
export type GpuSource =
  | { session: SshSession; machine: string; inJob?: string }
  | { session: null; machine: string; why: 'no-link' };

/**
 * Who is asked for a desktop's GPU figures: the machine that runs it; for a job reached by a
 * login-node forward, nvidia-smi runs there as a step of the job itself (`inJob`: srun --jobid from
 * the login connection), inside the job's allocation.
 */
export function gpuSource(target: { connectionId: string; jobId?: string }, deps: DesktopMachineDeps): GpuSource {
  const m = desktopMachine(target, deps);
  switch (m.kind) {
    case 'job-forward': return { session: m.login, machine: m.machine, inJob: m.jobId };
    case 'no-link': return { session: null, machine: m.machine, why: 'no-link' };
    default: return { session: m.session, machine: m.machine };
  }
}
