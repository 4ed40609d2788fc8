import type { z } from 'zod';
import type { ClusterJobView } from '../../shared/models';
import type { jobSettingsSchema, NodeAccess } from '../../shared/profileSchema';

/**
 * What a desktop job is submitted with: a cluster profile's job settings (src/shared/profileSchema.ts)
 * as the schema takes them, so the lists and nodeAccess may be left out (none; ssh) as on the command
 * line, plus the desktop's size, which is the profile's (display.geometry) or --geometry.
 */
export type JobSettings = z.input<typeof jobSettingsSchema> & {
  /** WIDTHxHEIGHT of the desktop. */
  geometry?: string;
};

export type JobPhase = ClusterJobView['phase'];

/**
 * A job as Slurm answered (squeue, scontrol or sacct): the window's job view (src/shared/models.ts
 * ClusterJobView, where each field is described) less what the app adds, plus the job's name and source.
 */
export interface JobStatus extends Pick<ClusterJobView, 'jobId' | 'phase' | 'state' | 'reason' | 'estimatedStart' | 'node' | 'timeLeftSec' | 'timeLimitSec' | 'endedWhy'> {
  name: string;
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
  access: NodeAccess;
  virtualgl: boolean;
  /** The UUID of the GPU the desktop renders on (the first Slurm allocated it, jobScript.ts), or null. */
  gpuUuid: string | null;
}
