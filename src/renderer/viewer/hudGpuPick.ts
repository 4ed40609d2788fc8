import type { GpuFiguresView } from '../../shared/models';

/** Up to this many GPUs get a line each; more are summed up as the busiest and "+N more". */
export const HUD_GPU_LINES = 3;

/** What the HUD's GPU panel shows: the desktop's GPU in full, or lines for the others. */
export type HudGpuPick =
  | { kind: 'one'; gpu: GpuFiguresView }
  | { kind: 'lines'; lines: GpuFiguresView[]; more: number; missing: number | null };

/**
 * The desktop's render GPU when the server lists it. Otherwise each GPU in nvidia-smi's order when
 * they fit, else the busiest (then by index) and how many more; `missing` names a render GPU the
 * server does not list (a stale choice, or a job's node that shows only its own GPUs).
 */
export function pickHudGpus(gpus: readonly GpuFiguresView[], renderGpu?: number): HudGpuPick {
  const chosen = renderGpu === undefined ? undefined : gpus.find((g) => g.index === renderGpu);
  if (chosen) return { kind: 'one', gpu: chosen };
  const missing = renderGpu ?? null;
  if (gpus.length <= HUD_GPU_LINES) return { kind: 'lines', lines: [...gpus], more: 0, missing };
  const busiest = [...gpus].sort((a, b) => (b.utilizationPct ?? -1) - (a.utilizationPct ?? -1) || a.index - b.index).slice(0, HUD_GPU_LINES - 1);
  return { kind: 'lines', lines: busiest, more: gpus.length - busiest.length, missing };
}
