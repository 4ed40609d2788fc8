/** What a cluster profile says about the desktop job (every field optional: Slurm's defaults apply). */
export interface JobSettings {
  partition?: string;
  account?: string;
  qos?: string;
  /** Slurm time format: minutes, MM:SS, HH:MM:SS, D-HH[:MM[:SS]]. */
  time?: string;
  /** e.g. gpu:1 or gpu:a100:2 (sbatch --gres). */
  gres?: string;
  cpus?: number;
  /** e.g. 16G (sbatch --mem). */
  mem?: string;
  constraint?: string;
  /** Further sbatch options, one word each (e.g. --reservation=demo). */
  extraSbatch?: string[];
  /** Shell lines run in the job before the desktop starts (e.g. module load VirtualGL TurboVNC). */
  preamble?: string[];
  /** WIDTHxHEIGHT of the desktop. */
  geometry?: string;
  /** Window manager for TurboVNC's -wm; default: the node's session, else a bare X desktop. */
  windowManager?: string;
  /**
   * How the viewer reaches the node. ssh: ProxyJump to the node and the session's Unix socket (the
   * VNC server listens on nothing else). login-forward: a TCP forward from the login node to the
   * node's VNC port, for clusters that block SSH to nodes; the port then answers only to one-time passwords.
   */
  nodeAccess?: 'ssh' | 'login-forward';
  /** Install prefix of TurboVNC/VirtualGL on the nodes (default /opt). */
  optRoot?: string;
}

export type JobPhase = 'pending' | 'running' | 'ended';

export interface JobStatus {
  jobId: string;
  name: string;
  phase: JobPhase;
  /** Slurm's state word: PENDING, RUNNING, COMPLETING, CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, … */
  state: string;
  /** Why it waits (Resources, Priority, QOSMaxGRESPerUser, …) or null. */
  reason: string | null;
  /** Slurm's estimated start (ISO local time as Slurm prints it) or null when unknown. */
  estimatedStart: string | null;
  node: string | null;
  /** Seconds until the time limit; null while pending or when unlimited. */
  timeLeftSec: number | null;
  timeLimitSec: number | null;
  /** For ended jobs: the state in plain words ("time limit", "cancelled", …). */
  endedWhy: string | null;
  /** Where the answer came from: squeue, scontrol or sacct. */
  source: 'squeue' | 'scontrol' | 'sacct';
}

/** What the job writes into ~/.gpu-desk/jobs/<cluster>/<id>/connection once its desktop is up. */
export interface JobConnectionInfo {
  jobId: string;
  /** Slurm's node name (SLURMD_NODENAME). */
  node: string;
  display: number;
  /** TCP port of the session (5900+display); only reachable from outside the node with login-forward. */
  port: number;
  /** The session's Unix socket (ssh access) or null. */
  socket: string | null;
  access: 'ssh' | 'login-forward';
  virtualgl: boolean;
}
