import type { JobSettings } from '../cluster/types';
import { GpuDeskError } from '../errors';

/**
 * The job settings as command-line flags, shared by `jobs <cluster> start` (overriding a cluster
 * profile's settings) and `profiles add --cluster` (saving them), so both read them the same way.
 */
export const jobOptionSpec = {
  partition: { type: 'string' },
  account: { type: 'string' },
  qos: { type: 'string' },
  time: { type: 'string' },
  gres: { type: 'string' },
  cpus: { type: 'string' },
  mem: { type: 'string' },
  constraint: { type: 'string' },
  sbatch: { type: 'string', multiple: true },
  pre: { type: 'string', multiple: true },
  wm: { type: 'string' },
  'node-access': { type: 'string' },
} as const;

export const jobOptionHelp = [
  '  --partition P   --account A   --qos Q   --time T (e.g. 2:00:00)   --gres G (e.g. gpu:1, gpu:a100:2)',
  '  --cpus N   --mem M (e.g. 16G)   --constraint C',
  '  --sbatch OPT             a further sbatch option, e.g. --sbatch=--reservation=demo (repeatable)',
  '  --pre LINE               a line run before the desktop starts, e.g. --pre "module load TurboVNC" (repeatable)',
  '  --wm NAME                window manager session (/usr/share/xsessions/NAME.desktop on the node)',
  '  --node-access ssh|login-forward',
  '                           ssh (default): SSH to the node through the login node and the session\'s',
  '                           Unix socket; login-forward: a TCP forward from the login node to the node\'s',
  '                           VNC port (OTP only), where the cluster blocks SSH to nodes',
];

/** Only the settings given on the command line (absent keys stay absent, so a profile's values remain). */
export function jobSettingsFromFlags(values: Record<string, unknown>): Partial<JobSettings> {
  const s = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const out: Partial<JobSettings> = {};
  for (const [flag, key] of [['partition', 'partition'], ['account', 'account'], ['qos', 'qos'], ['time', 'time'], ['gres', 'gres'], ['mem', 'mem'], ['constraint', 'constraint'], ['wm', 'windowManager']] as const) {
    if (s(flag) !== undefined) out[key] = s(flag);
  }
  const cpus = s('cpus');
  if (cpus !== undefined) {
    if (!/^\d+$/.test(cpus) || Number(cpus) < 1) throw new GpuDeskError('BAD_ARGUMENT', `--cpus ${cpus} is not a number of CPUs`, 'give a whole number, e.g. --cpus 8');
    out.cpus = Number(cpus);
  }
  const access = s('node-access');
  if (access !== undefined) {
    if (access !== 'ssh' && access !== 'login-forward') throw new GpuDeskError('BAD_ARGUMENT', `--node-access ${access} is not a way to reach the node`, 'use ssh or login-forward');
    out.nodeAccess = access;
  }
  if (Array.isArray(values.sbatch) && values.sbatch.length) out.extraSbatch = values.sbatch as string[];
  if (Array.isArray(values.pre) && values.pre.length) out.preamble = values.pre as string[];
  return out;
}
