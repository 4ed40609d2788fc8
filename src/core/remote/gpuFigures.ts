import type { SshSession } from '../ssh/types';
import { smiNumber } from './parsers';
import { shellCommand } from './shellQuote';

/** One GPU as the viewer's HUD shows it: the GPU cards' figures plus what nvidia-smi gives of heat, power and NVENC/NVDEC. */
export interface GpuFigures {
  index: number;
  name: string;
  uuid: string;
  memoryTotalMiB: number | null;
  memoryUsedMiB: number | null;
  utilizationPct: number | null;
  driverVersion: string;
  temperatureC: number | null;
  powerDrawW: number | null;
  powerLimitW: number | null;
  encoderPct: number | null;
  decoderPct: number | null;
}

/** What a machine answered: `available` false when it has no nvidia-smi (or it cannot run). */
export interface GpuFiguresAnswer {
  available: boolean;
  gpus: GpuFigures[];
}

const BASE = ['index', 'name', 'uuid', 'memory.total', 'memory.used', 'utilization.gpu', 'driver_version'];
const HEAT_POWER = ['temperature.gpu', 'power.draw', 'power.limit'];
const CODEC = ['utilization.encoder', 'utilization.decoder'];

/**
 * The field lists tried, richest first. nvidia-smi refuses the whole query when one field is unknown to
 * its driver ('Field "utilization.encoder" is not a valid field to query', exit 2: drivers before
 * about 525 lack utilization.encoder/.decoder), so an older driver still gets the rest.
 */
export const GPU_FIGURES_QUERIES: readonly (readonly string[])[] = [
  [...BASE, ...HEAT_POWER, ...CODEC],
  [...BASE, ...HEAT_POWER],
  BASE,
];

/** `--query-gpu=` argument for a field list. */
export function gpuFiguresQueryArg(fields: readonly string[]): string {
  return `--query-gpu=${fields.join(',')}`;
}

/** Which query a machine answered last (by session, and job for a job step), so a poll once a second does not retry the refused ones. */
const answered = new WeakMap<SshSession, Map<string, number>>();

/**
 * The HUD's figures from one machine: one nvidia-smi call per poll once the driver's fields are known.
 * `inJob`: on the node of that Slurm job, as a step of it run from this (login) session: `srun
 * --overlap` shares the desktop's allocation instead of waiting for free resources, and sees the GPUs
 * the job was given.
 */
export function queryGpuFigures(session: SshSession, o: { inJob?: string } = {}): Promise<GpuFiguresAnswer> {
  if (o.inJob === undefined) return askGpuFigures(session, o);
  // Each job step is work for slurmctld: a HUD polling once a second gets the last answer until it is
  // JOB_STEP_EVERY_MS old.
  const steps = lastSteps.get(session) ?? new Map<string, { at: number; answer: Promise<GpuFiguresAnswer> }>();
  lastSteps.set(session, steps);
  const last = steps.get(o.inJob);
  if (last && Date.now() - last.at < JOB_STEP_EVERY_MS) return last.answer;
  const answer = askGpuFigures(session, o);
  const entry = { at: Date.now(), answer };
  steps.set(o.inJob, entry);
  answer.catch(() => { if (steps.get(o.inJob!) === entry) steps.delete(o.inJob!); });
  return answer;
}

/** How often a job's node is asked through a job step (srun), at most. */
export const JOB_STEP_EVERY_MS = 5000;
const lastSteps = new WeakMap<SshSession, Map<string, { at: number; answer: Promise<GpuFiguresAnswer> }>>();

async function askGpuFigures(session: SshSession, o: { inJob?: string }): Promise<GpuFiguresAnswer> {
  const seen = answered.get(session) ?? new Map<string, number>();
  answered.set(session, seen);
  const key = o.inJob ?? '';
  for (let i = seen.get(key) ?? 0; i < GPU_FIGURES_QUERIES.length; i++) {
    const fields = GPU_FIGURES_QUERIES[i];
    // 127: no nvidia-smi on the PATH, the one answer that says "no NVIDIA GPU figures here".
    const script = `command -v nvidia-smi >/dev/null 2>&1 || exit 127; ${shellCommand(['nvidia-smi', gpuFiguresQueryArg(fields), '--format=csv,noheader,nounits'])}`;
    const r = await session.exec(
      o.inJob === undefined ? script : shellCommand(['srun', `--jobid=${o.inJob}`, '--overlap', '--nodes=1', '--ntasks=1', '--quiet', 'sh', '-c', script]),
      { timeoutMs: 10_000 },
    );
    if (r.code === 127) return { available: false, gpus: [] };
    if (r.code === 0) {
      seen.set(key, i);
      return { available: true, gpus: parseGpuFiguresCsv(r.stdout, fields) };
    }
    // Only a refused field is worth a narrower query; a driver that fails ("couldn't communicate with
    // the NVIDIA driver") fails for all of them.
    if (!/not a valid field/i.test(`${r.stdout}\n${r.stderr}`)) return { available: false, gpus: [] };
  }
  return { available: false, gpus: [] };
}

/** `--format=csv,noheader,nounits` lines for `fields` (GPU names hold no commas, so a plain split is exact). */
export function parseGpuFiguresCsv(text: string, fields: readonly string[]): GpuFigures[] {
  const out: GpuFigures[] = [];
  for (const raw of text.split('\n')) {
    const f = raw.trim().split(',').map((s) => s.trim());
    if (f.length < fields.length || !/^\d+$/.test(f[0])) continue;
    const at = (name: string) => {
      const i = fields.indexOf(name);
      return i < 0 ? undefined : f[i];
    };
    const num = (name: string) => smiNumber(at(name));
    out.push({
      index: Number(f[0]),
      name: at('name') ?? '',
      uuid: at('uuid') ?? '',
      memoryTotalMiB: num('memory.total'),
      memoryUsedMiB: num('memory.used'),
      utilizationPct: num('utilization.gpu'),
      driverVersion: at('driver_version') ?? '',
      temperatureC: num('temperature.gpu'),
      powerDrawW: num('power.draw'),
      powerLimitW: num('power.limit'),
      encoderPct: num('utilization.encoder'),
      decoderPct: num('utilization.decoder'),
    });
  }
  return out;
}
