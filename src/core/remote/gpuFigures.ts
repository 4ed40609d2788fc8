import type { GpuFiguresView } from '../../shared/models';
import type { SshSession } from '../ssh/types';
import { smiNumber } from './parsers';
import { shellCommand } from './shellQuote';
import type { GpuInfo } from './types';

/**
 * nvidia-smi, asked and read in one place: the probe's GPU list (its script runs NVIDIA_SMI_QUERY), the
 * server screen's live GPU cards (queryGpus) and the viewer HUD's figures (queryGpuFigures).
 */

/**
 * One GPU as nvidia-smi answered: every field gpu-desk reads (the server report's GpuInfo and the
 * HUD's figures), null where the query did not ask for it.
 */
export type GpuFigures = GpuInfo & Omit<GpuFiguresView, keyof GpuInfo>;

/** What a machine answered: `available` false when it has no nvidia-smi (or it cannot run). */
export interface GpuFiguresAnswer {
  available: boolean;
  gpus: GpuFigures[];
}

const BASE = ['index', 'name', 'uuid', 'memory.total', 'memory.used', 'utilization.gpu', 'driver_version'];
/** The probe's and the GPU cards' fields: the PCI bus id matches a GPU to its EGL device and DRI card. */
export const GPU_INFO_FIELDS: readonly string[] = [...BASE, 'pci.bus_id'];
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

/** The probe script's and the GPU cards' `--query-gpu=` argument. */
export const NVIDIA_SMI_QUERY = gpuFiguresQueryArg(GPU_INFO_FIELDS);

/** Just the GPUs, for live monitoring (one cheap nvidia-smi call; [] when there is no driver). */
export async function queryGpus(session: SshSession): Promise<GpuInfo[]> {
  const a = await askGpus(session, [GPU_INFO_FIELDS], {});
  return a.gpus.map(gpuInfo);
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
  if (o.inJob === undefined) return askGpus(session, GPU_FIGURES_QUERIES, o);
  // Each job step is work for slurmctld: a HUD polling once a second gets the last answer until it is
  // JOB_STEP_EVERY_MS old.
  const steps = lastSteps.get(session) ?? new Map<string, { at: number; answer: Promise<GpuFiguresAnswer> }>();
  lastSteps.set(session, steps);
  const last = steps.get(o.inJob);
  if (last && Date.now() - last.at < JOB_STEP_EVERY_MS) return last.answer;
  const answer = askGpus(session, GPU_FIGURES_QUERIES, o);
  const entry = { at: Date.now(), answer };
  steps.set(o.inJob, entry);
  answer.catch(() => { if (steps.get(o.inJob!) === entry) steps.delete(o.inJob!); });
  return answer;
}

/** How often a job's node is asked through a job step (srun), at most. */
export const JOB_STEP_EVERY_MS = 5000;
const lastSteps = new WeakMap<SshSession, Map<string, { at: number; answer: Promise<GpuFiguresAnswer> }>>();

/** The first of `queries` (richest first) that this machine's nvidia-smi answers, remembered for the next call. */
async function askGpus(session: SshSession, queries: readonly (readonly string[])[], o: { inJob?: string }): Promise<GpuFiguresAnswer> {
  const seen = answered.get(session) ?? new Map<string, number>();
  answered.set(session, seen);
  const key = `${queries[0].join(',')}|${o.inJob ?? ''}`;
  for (let i = seen.get(key) ?? 0; i < queries.length; i++) {
    const fields = queries[i];
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

/**
 * `nvidia-smi --query-gpu=<fields> --format=csv,noheader,nounits`: one GPU per line, fields separated
 * by ", " (GPU names hold no commas, so a plain split is exact). A line with fewer fields than asked, or
 * not starting with an index, is not a GPU ("No devices were found", a driver's complaint).
 */
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
    const bus = at('pci.bus_id');
    out.push({
      index: Number(f[0]),
      name: at('name') ?? '',
      uuid: at('uuid') ?? '',
      memoryTotalMiB: num('memory.total'),
      memoryUsedMiB: num('memory.used'),
      utilizationPct: num('utilization.gpu'),
      driverVersion: at('driver_version') ?? '',
      pciBusId: bus && /^[0-9A-Fa-f]+:[0-9A-Fa-f]+:[0-9A-Fa-f]+\.[0-9A-Fa-f]+$/.test(bus) ? bus : null,
      temperatureC: num('temperature.gpu'),
      powerDrawW: num('power.draw'),
      powerLimitW: num('power.limit'),
      encoderPct: num('utilization.encoder'),
      decoderPct: num('utilization.decoder'),
    });
  }
  return out;
}

/** The probe's GPU list (NVIDIA_SMI_QUERY's output) as the server report holds it. */
export function parseGpuInfoCsv(text: string): GpuInfo[] {
  return parseGpuFiguresCsv(text, GPU_INFO_FIELDS).map(gpuInfo);
}

function gpuInfo(g: GpuFigures): GpuInfo {
  return {
    index: g.index, name: g.name, uuid: g.uuid, memoryTotalMiB: g.memoryTotalMiB, memoryUsedMiB: g.memoryUsedMiB,
    utilizationPct: g.utilizationPct, driverVersion: g.driverVersion, pciBusId: g.pciBusId,
  };
}
