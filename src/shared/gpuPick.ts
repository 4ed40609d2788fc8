/** What a GPU row needs for the choice (the probe's GpuView, the HUD's figures). */
interface Busy {
  index: number;
  utilizationPct: number | null;
  memoryUsedMiB: number | null;
}

/** The GPU a desktop starts on by default ("Render on"): the least busy by utilisation, then memory in use, then index. */
export function leastBusyGpu<T extends Busy>(gpus: T[]): T | null {
  return [...gpus].sort((a, b) => (a.utilizationPct ?? 100) - (b.utilizationPct ?? 100) || (a.memoryUsedMiB ?? 0) - (b.memoryUsedMiB ?? 0) || a.index - b.index)[0] ?? null;
}
