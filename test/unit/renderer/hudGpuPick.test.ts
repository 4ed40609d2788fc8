import { describe, expect, it } from 'vitest';
import { pickHudGpus } from '../../../src/renderer/viewer/hudGpuPick';
import type { GpuFiguresView } from '../../../src/shared/models';

const gpu = (index: number, utilizationPct: number | null): GpuFiguresView => ({
  index, name: 'NVIDIA A100-SXM4-80GB', uuid: `GPU-${index}`, memoryTotalMiB: 81920, memoryUsedMiB: 10, utilizationPct, driverVersion: '535.183.01',
  temperatureC: 30, powerDrawW: 60, powerLimitW: 400, encoderPct: 0, decoderPct: 0,
});

describe('which GPUs the HUD shows', () => {
  it('the desktop\'s render GPU alone, in full', () => {
    expect(pickHudGpus([gpu(0, 5), gpu(1, 90)], 0)).toEqual({ kind: 'one', gpu: gpu(0, 5) });
  });

  it('without one: every GPU in nvidia-smi\'s order while they fit', () => {
    expect(pickHudGpus([gpu(0, 5), gpu(1, 90)])).toEqual({ kind: 'lines', lines: [gpu(0, 5), gpu(1, 90)], more: 0, missing: null });
  });

  it('eight GPUs: the busiest (ties by index, unknown last) and how many more', () => {
    const eight = [gpu(0, 1), gpu(1, null), gpu(2, 70), gpu(3, 70), gpu(4, 0), gpu(5, 99), gpu(6, 3), gpu(7, 2)];
    expect(pickHudGpus(eight)).toEqual({ kind: 'lines', lines: [gpu(5, 99), gpu(2, 70)], more: 6, missing: null });
  });

  it('a render GPU the server does not list: said, and the GPUs it lists shown', () => {
    expect(pickHudGpus([gpu(0, 5)], 3)).toEqual({ kind: 'lines', lines: [gpu(0, 5)], more: 0, missing: 3 });
  });
});
