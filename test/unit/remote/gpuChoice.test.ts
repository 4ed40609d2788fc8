import { describe, expect, it } from 'vitest';
import { gpuEnvArgs, placeOnGpu, sysfsPciAddress } from '../../../src/core/remote/gpuChoice';
import { leastBusyGpu } from '../../../src/shared/gpuPick';
import type { GpuInfo, ServerReport } from '../../../src/core/remote/types';

const gpu = (index: number, pciBusId: string | null, utilizationPct: number, memoryUsedMiB: number): GpuInfo => ({
  index, name: 'NVIDIA RTX A6000', uuid: `GPU-0000000${index}-1111-2222-3333-444444444444`, memoryTotalMiB: 49140, memoryUsedMiB, utilizationPct, driverVersion: '550.54.15', pciBusId,
});

/** The parts of a probe report GPU placement reads: nvidia-smi's GPUs, the DRI cards with their PCI addresses, VirtualGL's EGL devices. */
function report(gpus: GpuInfo[]): ServerReport {
  return {
    gpus,
    dri: [
      { path: '/dev/dri/card0', kind: 'card', group: 'video', accessible: true, pciAddress: '0000:03:00.0' },
      { path: '/dev/dri/card1', kind: 'card', group: 'video', accessible: true, pciAddress: '0000:3b:00.0' },
      { path: '/dev/dri/renderD128', kind: 'render', group: 'render', accessible: true, pciAddress: '0000:3b:00.0' },
    ],
    virtualgl: {
      eglDevice: 'egl0',
      eglDevices: [
        { id: 'egl0', driPath: '/dev/dri/card0', vendor: 'NVIDIA Corporation', renderer: 'NVIDIA RTX A6000', kind: 'gpu', gpuVendor: 'nvidia' },
        { id: 'egl1', driPath: '/dev/dri/card1', vendor: 'NVIDIA Corporation', renderer: 'NVIDIA RTX A6000', kind: 'gpu', gpuVendor: 'nvidia' },
      ],
    },
  } as unknown as ServerReport;
}

describe('pinning a desktop to one GPU', () => {
  it('nvidia-smi\'s bus id as sysfs writes it', () => {
    expect(sysfsPciAddress('00000000:3B:00.0')).toBe('0000:3b:00.0');
    expect(sysfsPciAddress('0000:3b:00.0')).toBe('0000:3b:00.0');
    expect(sysfsPciAddress('3B:00.0')).toBeNull();
    expect(sysfsPciAddress(null)).toBeNull();
  });

  it('the GPU\'s EGL device is the one on its PCI address; CUDA gets its UUID, Mesa\'s device-select its bus', () => {
    const p = placeOnGpu(report([gpu(0, '00000000:03:00.0', 90, 1), gpu(1, '00000000:3B:00.0', 2, 1)]), 1);
    expect(p.eglDevice).toBe('egl1');
    expect(p.env).toEqual({ GPU_DESK_GPU: '1', CUDA_VISIBLE_DEVICES: 'GPU-00000001-1111-2222-3333-444444444444', DRI_PRIME: 'pci-0000_3b_00_0' });
    expect(p.notes).toEqual([]);
    expect(gpuEnvArgs(p)).toEqual(['GPU_DESK_GPU=1', 'CUDA_VISIBLE_DEVICES=GPU-00000001-1111-2222-3333-444444444444', 'DRI_PRIME=pci-0000_3b_00_0']);
    expect(gpuEnvArgs(null)).toEqual([]);
  });

  it('a GPU with no EGL device of its own says so; one that does not exist is a one-line error naming those that do', () => {
    const p = placeOnGpu(report([gpu(0, '00000000:03:00.0', 0, 1), gpu(2, '00000000:AF:00.0', 0, 1)]), 2);
    expect(p.eglDevice).toBeNull();
    expect(p.notes).toEqual(['no VirtualGL EGL device is on GPU 2\'s PCI address (0000:af:00.0): OpenGL renders on egl0']);
    expect(() => placeOnGpu(report([gpu(0, null, 0, 1)]), 5)).toThrow(/^The server has no GPU 5 \(nvidia-smi lists 0\)$/);
  });

  it('the default is the least busy GPU: utilisation, then memory in use, then the lower index', () => {
    expect(leastBusyGpu([gpu(0, null, 65, 10), gpu(1, null, 3, 10), gpu(2, null, 3, 5)])!.index).toBe(2);
    expect(leastBusyGpu([gpu(0, null, 0, 5), gpu(1, null, 0, 5)])!.index).toBe(0);
    expect(leastBusyGpu([])).toBeNull();
  });
});
