import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GPU_FIGURES_QUERIES, GPU_INFO_FIELDS, gpuFiguresQueryArg, NVIDIA_SMI_QUERY, parseGpuFiguresCsv, parseGpuInfoCsv } from '../../../src/core/remote/gpuFigures';
import { buildProbeCommand } from '../../../src/core/remote/probeScript';
import type { GpuInfo } from '../../../src/core/remote/types';

const fx = (name: string) => fs.readFileSync(path.join(__dirname, '../../fixtures/remote', name), 'utf8');

/** nvidia-smi is asked and read in one module: the probe's GPU list, the GPU cards and the HUD's figures. */
describe('gpuFigures.ts: one nvidia-smi query builder and parser', () => {
  it("the probe script asks the GPU cards' fields, and the server report keeps just those", () => {
    expect(NVIDIA_SMI_QUERY).toBe(gpuFiguresQueryArg(GPU_INFO_FIELDS));
    expect(buildProbeCommand()).toContain(`nvidia-smi ${NVIDIA_SMI_QUERY} --format=csv,noheader,nounits`);
    const [g0] = parseGpuInfoCsv(fx('nvidia-smi-query-2gpu.csv'));
    expect(g0).toEqual({
      index: 0, name: 'NVIDIA A100-SXM4-80GB', uuid: 'GPU-3f1c2a7e-91b4-4c1d-8e0a-5b7f2d9c6e11', memoryTotalMiB: 81920, memoryUsedMiB: 4,
      utilizationPct: 0, driverVersion: '535.183.01', pciBusId: '00000000:07:00.0',
    });
  });

  it("the HUD's richest query reads the same GPUs with heat, power and codec figures (no PCI id asked: null)", () => {
    const fields = GPU_FIGURES_QUERIES[0];
    const hud = parseGpuFiguresCsv(fx('nvidia-smi-query-hud-2gpu.csv'), fields);
    const cards = parseGpuInfoCsv(fx('nvidia-smi-query-2gpu.csv'));
    const base = (g: GpuInfo) => ({ index: g.index, name: g.name, uuid: g.uuid, memoryTotalMiB: g.memoryTotalMiB, driverVersion: g.driverVersion });
    expect(hud.map(base)).toEqual(cards.map(base));
    expect(hud[1]).toMatchObject({ pciBusId: null, temperatureC: 67, powerDrawW: 341.2, powerLimitW: 400, encoderPct: 23, decoderPct: 6 });
  });

  it('an older field list leaves the fields it did not ask for null; a line with fewer fields than asked is no GPU', () => {
    const older = parseGpuFiguresCsv(fx('nvidia-smi-query-hud-2gpu.csv').split('\n').map((l) => l.split(',').slice(0, 10).join(',')).join('\n'), GPU_FIGURES_QUERIES[1]);
    expect(older[0]).toMatchObject({ temperatureC: 31, encoderPct: null, decoderPct: null });
    expect(parseGpuFiguresCsv('0, NVIDIA A100, GPU-1, 1, 2', GPU_INFO_FIELDS)).toEqual([]);
    expect(parseGpuInfoCsv(fx('nvidia-smi-no-driver.txt'))).toEqual([]);
  });
});
