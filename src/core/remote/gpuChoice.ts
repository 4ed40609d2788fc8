import { GpuDeskError } from '../errors';
import type { GpuInfo, ServerReport } from './types';

/**
 * Pinning a desktop (and each program gpu-desk starts in it) to one GPU of a multi-GPU server. What
 * each layer really honours:
 * - OpenGL through VirtualGL: the EGL device (`VGL_DISPLAY`, what `vglrun -d` sets). The GPU's EGL
 *   device is found by PCI address: nvidia-smi's pci.bus_id against the sysfs address of the
 *   /dev/dri card that VirtualGL's `eglinfo -e` names.
 * - Vulkan: Mesa's device-select layer (in mesa-vulkan-drivers, an implicit layer for every ICD,
 *   NVIDIA's too) puts the device on the PCI bus `DRI_PRIME=pci-0000_3b_00_0` names first; programs
 *   that take the first device then render there. Programs with their own choice (Isaac Gym's
 *   graphics_device_id, Isaac Sim's --/renderer/activeGpu) still need it set; `GPU_DESK_GPU` says which.
 * - CUDA (PhysX, the simulator's own compute): `CUDA_VISIBLE_DEVICES` with the GPU's UUID, so the
 *   chosen GPU is device 0 to CUDA and no other GPU is touched.
 */
export interface GpuPlacement {
  gpu: GpuInfo;
  /** VirtualGL's EGL device for this GPU, or null when none was found (OpenGL then renders where it did). */
  eglDevice: string | null;
  /** Exported for the desktop's session; only these names. */
  env: Record<GpuEnvName, string>;
  /** What could not be pinned, in plain words. */
  notes: string[];
}

export const GPU_ENV_NAMES = ['GPU_DESK_GPU', 'CUDA_VISIBLE_DEVICES', 'DRI_PRIME'] as const;
export type GpuEnvName = (typeof GPU_ENV_NAMES)[number];

/** nvidia-smi's "00000000:3B:00.0" as sysfs writes it: "0000:3b:00.0". */
export function sysfsPciAddress(busId: string | null): string | null {
  const m = /^(?:[0-9a-f]{4})?([0-9a-f]{4}):([0-9a-f]{2}):([0-9a-f]{2})\.([0-7])$/i.exec(busId?.trim() ?? '');
  return m ? `${m[1]}:${m[2]}:${m[3]}.${m[4]}`.toLowerCase() : null;
}

export function placeOnGpu(report: ServerReport, index: number): GpuPlacement {
  const gpu = report.gpus.find((g) => g.index === index);
  if (!gpu) {
    throw new GpuDeskError('BAD_ARGUMENT', `The server has no GPU ${index} (nvidia-smi lists ${report.gpus.length ? report.gpus.map((g) => g.index).join(', ') : 'none'})`, 'choose one of the GPUs the server report lists');
  }
  const notes: string[] = [];
  const pci = sysfsPciAddress(gpu.pciBusId);
  const env: Record<GpuEnvName, string> = { GPU_DESK_GPU: String(gpu.index), CUDA_VISIBLE_DEVICES: gpu.uuid, DRI_PRIME: '' };
  if (pci) env.DRI_PRIME = `pci-${pci.replace(/[:.]/g, '_')}`;
  else notes.push(`nvidia-smi gives no PCI address for GPU ${gpu.index}: Vulkan programs pick their device themselves`);
  if (!/^GPU-[0-9a-f-]+$/i.test(gpu.uuid)) {
    env.CUDA_VISIBLE_DEVICES = String(gpu.index);
    notes.push(`GPU ${gpu.index}'s UUID is not in nvidia-smi's form: CUDA is pointed at it by index`);
  }
  const card = pci ? report.dri.find((d) => d.kind === 'card' && d.pciAddress === pci) : undefined;
  const egl = card ? report.virtualgl.eglDevices.find((d) => d.driPath === card.path) : undefined;
  if (!egl) notes.push(`no VirtualGL EGL device is on GPU ${gpu.index}'s PCI address${pci ? ` (${pci})` : ''}: OpenGL renders on ${report.virtualgl.eglDevice ?? 'the default device'}`);
  return { gpu, eglDevice: egl?.id ?? null, env, notes };
}

/** The session script's arguments for the placement: NAME=VALUE, values checked to be plain words. */
export function gpuEnvArgs(p: GpuPlacement | null): string[] {
  if (!p) return [];
  return GPU_ENV_NAMES.filter((k) => p.env[k] && /^[A-Za-z0-9_.-]+$/.test(p.env[k])).map((k) => `${k}=${p.env[k]}`);
}
