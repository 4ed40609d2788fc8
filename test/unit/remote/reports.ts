/**
 * Probe outputs assembled from the real-format fixtures, section by section, exactly as the probe
 * script prints them; buildReport turns them into ServerReports for the findings and plan tests.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildReport } from '../../../src/core/remote/probe';
import type { ServerReport } from '../../../src/core/remote/types';

export const fx = (name: string) => fs.readFileSync(path.join(__dirname, '../../fixtures/remote', name), 'utf8');

export interface Scenario {
  os: string;
  user?: string;
  groups?: string;
  sudo?: string;
  nvsmi?: string;
  nvproc?: string;
  dri?: string;
  vgl?: string;
  egl?: string;
  x0?: string;
  turbo?: string;
  turbolist?: string;
  tiger?: string;
  tigerlist?: string;
  listen?: string;
  wm?: string;
  dm?: string;
  arch?: string;
  /** The probe's "video" section (ffmpeg and its test encodes); none: no ffmpeg on the server. */
  video?: string;
  /**
   * The probe's "vulkan" section; by default a working one: NVIDIA's ICD and GPUs where nvsmi lists
   * GPUs (its library of the driver's own version), else Mesa's lavapipe (the bed).
   */
  vulkan?: string;
  /** The probe's "clip" section (xclip, xsel: one per line); undefined: a report from before it. */
  clip?: string;
}

export function report(s: Scenario): ServerReport {
  const user = s.user ?? 'alice';
  return buildReport(
    {
      os: fx(s.os),
      uname: `${s.arch ?? 'x86_64'}\n6.8.0-45-generic\ngpu01`,
      id: `${user}\n1000\n${s.groups ?? user}`,
      sudo: s.sudo ?? 'password',
      nvsmi: s.nvsmi ?? '@@absent',
      nvproc: s.nvproc ?? '',
      dri: s.dri ?? '',
      vgl: s.vgl ?? '',
      egl: s.egl ?? '',
      x0: s.x0 ?? '',
      turbo: s.turbo ?? '',
      turbolist: s.turbolist ?? '',
      tiger: s.tiger ?? '',
      tigerlist: s.tigerlist ?? '',
      listen: s.listen ?? '',
      wm: s.wm ?? '',
      dm: s.dm ?? '',
      video: s.video ?? '',
      vulkan: s.vulkan ?? defaultVulkan(s),
      ...(s.clip !== undefined ? { clip: s.clip } : {}),
      end: '',
    },
    'gpu01',
  );
}

export const LVP_ICD = { path: '/usr/share/vulkan/icd.d/lvp_icd.x86_64.json', lib: '/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so', json: '{\n    "ICD": {\n        "api_version": "1.1.230",\n        "library_path": "/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"\n    },\n    "file_format_version": "1.0.0"\n}' };
/** NVIDIA's nvidia_icd.json as its driver installs it: a bare library name the dynamic linker finds. */
export const nvidiaIcd = (version: string | null) => ({
  path: '/usr/share/vulkan/icd.d/nvidia_icd.json',
  lib: version ? `/usr/lib/x86_64-linux-gnu/libGLX_nvidia.so.${version}` : '-',
  json: '{\n    "file_format_version" : "1.0.0",\n    "ICD": {\n        "library_path": "libGLX_nvidia.so.0",\n        "api_version" : "1.3.242"\n    }\n}',
});

/** A vulkan section from its parts, as the probe prints it; vi: vulkaninfo's output (null: not installed). */
export function vulkanSection(o: { loader?: string | null; icdEnv?: string; icds?: { path: string; lib?: string; json?: string; missing?: boolean }[]; vi?: string | null; display?: string; rc?: number }): string {
  const out: string[] = [];
  const loader = o.loader === undefined ? '/lib/x86_64-linux-gnu/libvulkan.so.1' : o.loader;
  if (loader) out.push(`loader ${loader}`);
  if (o.icdEnv) out.push(`icdenv ${o.icdEnv}`);
  for (const i of o.icds ?? []) {
    out.push(`@@icd ${i.path}`);
    if (i.missing) { out.push('missing'); continue; }
    if (i.lib) out.push(`lib ${i.lib}`);
    for (const l of (i.json ?? '').split('\n')) out.push(`> ${l}`);
    out.push('');
  }
  if (o.vi === null) out.push('@@vi absent');
  else if (o.vi !== undefined) {
    out.push(`@@vi /usr/bin/vulkaninfo ${o.display ?? '-'} ${o.rc ?? 0}`);
    for (const l of o.vi.split('\n')) out.push(`> ${l}`);
  }
  return out.join('\n');
}

function defaultVulkan(s: Scenario): string {
  const driver = /^\d+, [^,]+, [^,]+, [^,]+, [^,]+, [^,]+, ([^,]+),/m.exec(s.nvsmi ?? '')?.[1] ?? null;
  if (driver) return vulkanSection({ icds: [nvidiaIcd(driver), LVP_ICD], vi: fx('vulkaninfo-summary-nvidia.txt') });
  return vulkanSection({ icds: [LVP_ICD], vi: fx('vulkaninfo-summary-lavapipe.txt') });
}

const A100 = { nvsmi: fx('nvidia-smi-query-2gpu.csv') + '@@rc=0', nvproc: fx('proc-driver-nvidia-version.txt') };

/** Modern GPU server, nothing installed yet: EGL will be possible once VirtualGL is there. */
export const freshGpu = (os: string): Scenario => ({ os, ...A100, dri: '/dev/dri/card1 no video\n/dev/dri/renderD128 rw render' });

/** Old driver (470) and no DRI card: only the GLX back end can work. */
export const glxOnlyGpu = (os: string): Scenario => ({
  os,
  nvsmi: fx('nvidia-smi-query-na.csv') + '@@rc=0',
  nvproc: 'NVRM version: NVIDIA UNIX x86_64 Kernel Module  470.256.02  Thu May  2 14:37:44 UTC 2024\n',
});

/** The bed's own video section: Debian's ffmpeg, NVENC without a driver, no render node, libx264 works. */
export const BED_VIDEO = fx('probe-video-debian-12-x264.txt');

/** A video section from its parts: ffmpeg on PATH and each encoder's exit status and output ("skip": not tried). */
export function videoSection(encoders: Partial<Record<'h264_nvenc' | 'h264_vaapi' | 'libx264', [status: string, output?: string]>>, extra = ''): string {
  const out = ['path /usr/bin/ffmpeg', `version ${fx('ffmpeg-version-debian-12.txt').trim()}`, ...extra.split('\n').filter(Boolean)];
  for (const [name, [status, output]] of Object.entries(encoders)) {
    out.push(`@@enc ${name} ${status}`);
    for (const l of (output ?? '').split('\n').filter(Boolean)) out.push(`> ${l}`);
  }
  return out.join('\n');
}

/** Like the test bed: Debian 12, no GPU, TigerVNC, no window manager, no sudo; ffmpeg with libx264. */
export const bedLike = (): Scenario => ({
  os: 'os-release-debian-12.txt',
  video: BED_VIDEO,
  user: 'gdtest',
  sudo: 'absent',
  tiger: fx('tigervnc-xvnc-version.txt'),
  tigerlist: fx('tigervnc-list-empty.txt'),
});

/** The bed as it is now: no GPU, VirtualGL 3.1.4 whose only EGL device is Mesa's llvmpipe, TurboVNC 3.3. */
export const softwareEgl = (): Scenario => ({
  ...bedLike(),
  vgl: 'bin /opt/VirtualGL/bin\neglinfo\nversion 3.1.4-20261201',
  egl: `@@listed\n${fx('eglinfo-e-llvmpipe.txt')}\n@@dev egl0\n${fx('eglinfo-B-llvmpipe.txt')}`,
  turbo: 'bin /opt/TurboVNC/bin\n' + fx('turbovnc-3.3-xvnc-version.txt'),
});

/** An AMD workstation card through Mesa, VirtualGL 3.1.4 installed, no NVIDIA driver. */
export const amdGpu = (): Scenario => ({
  os: 'os-release-ubuntu-24.04.txt',
  dri: '/dev/dri/card0 rw video\n/dev/dri/renderD128 rw render',
  vgl: 'bin /opt/VirtualGL/bin\neglinfo\nversion 3.1.4',
  egl: '@@listed\nEGL device ID: egl0 or egl, DRI device path: /dev/dri/card0\n@@dev egl0\nOpenGL vendor string: AMD\nOpenGL renderer string: AMD Radeon Pro W6800 (radeonsi, navi21, LLVM 17.0.6, DRM 3.57, 6.8.0-45-generic)\n',
});

/** Everything done, EGL back end, TurboVNC with a localhost-only session. */
export const configured = (): Scenario => ({
  ...freshGpu('os-release-ubuntu-22.04.txt'),
  groups: 'alice vglusers',
  dri: '/dev/dri/card1 rw vglusers\n/dev/dri/renderD128 rw render',
  vgl: 'bin /opt/VirtualGL/bin\neglinfo\nversion 3.1.1\ngroup',
  turbo: 'bin /opt/TurboVNC/bin\n' + fx('turbovnc-xvnc-version.txt'),
  turbolist: '\nTurboVNC sessions:\n\nX DISPLAY #\tPROCESS ID\tNOVNC PROCESS ID\n:3\t\t48977\n',
  // Only our session :3's socket: nothing else is open on a VNC port.
  listen: fx('ss-ltnp-turbovnc.txt').split('\n').filter((l) => !l.includes(':5901')).join('\n'),
  wm: 'xfce4-session\nstartxfce4',
  dm: 'gdm3',
  // A GPU with NVENC and the driver's encode library: video on the GPU.
  video: videoSection({ h264_nvenc: ['0'], h264_vaapi: ['skip'], libx264: ['0'] }, 'render /dev/dri/renderD128 nvidia\npci 0x10de'),
});
