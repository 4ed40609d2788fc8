import type { SshSession } from '../ssh/types';

/** Which machine answers for a desktop's GPUs: a session to run nvidia-smi on, or why there is none. */
export type GpuSource =
  | { session: SshSession; machine: string; inJob?: string }
  | { session: null; machine: string; why: 'no-link' };

export interface GpuSourceDeps {
  /** The open login (or server) connection. */
  connection(connectionId: string): SshSession;
  /** The node connection of a job's open desktop link (null: a login-node forward, no SSH to the node; undefined: no link). */
  jobNode(jobId: string): SshSession | null | undefined;
}

/**
 * The one place that decides who is asked for a desktop's GPU figures. A server's desktop renders on
 * the server: its connection. A Slurm job's desktop renders on the job's compute node, which the login
 * node is not: its node connection (the one the job's viewer streams through), and never the login
 * connection, whose nvidia-smi would describe another machine (or none). A job reached by a login-node
 * forward has no SSH to its node: nvidia-smi runs there as a step of the job itself (`inJob`: srun
 * --jobid from the login connection), inside the job's allocation.
 */
export function gpuSource(target: { connectionId: string; jobId?: string }, deps: GpuSourceDeps): GpuSource {
  if (target.jobId === undefined) return { session: deps.connection(target.connectionId), machine: target.connectionId };
  const machine = `job:${target.jobId}`;
  const node = deps.jobNode(target.jobId);
  if (node) return { session: node, machine };
  return node === null
    ? { session: deps.connection(target.connectionId), machine, inJob: target.jobId }
    : { session: null, machine, why: 'no-link' };
}
