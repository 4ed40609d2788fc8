/**
 * GPU paths end to end over real SSH with the one shim for what cannot exist here: nvidia-smi (no
 * NVIDIA GPU on this machine; test/shims/README.md). VirtualGL 3.1.4 and TurboVNC 3.3 are the real
 * packages in /opt, as on a GPU server; the sshd, the account and the probe script are real too.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { queryGpus } from '../../../src/core/remote/gpuFigures';
import { probeServer } from '../../../src/core/remote/probe';
import { buildSetupPlan, formatPlan } from '../../../src/core/remote/setupPlan';
import { checkPlan } from '../../../src/core/remote/planRunner';
import { killSession, listSessions, startSession } from '../../../src/core/remote/vncSessions';
import { desktopRunState, runInDesktop } from '../../../src/core/remote/desktopRun';
import { eventually } from '../../helpers/until';
import { localVideoEncoders } from './localEncoders';

const SHIMS = path.resolve(__dirname, '../../shims');
let bed: SshdBed;
let conn: SshConnection;

beforeAll(async () => {
  bed = await startSshd({ extraConfig: [`SetEnv PATH=${SHIMS}/bin:/usr/local/bin:/usr/bin:/bin`] });
  conn = await connectSsh(bedOptions(bed));
});
afterAll(async () => {
  await conn?.close();
  await cleanupAll();
});

describe('shim nvidia-smi: GPU server probe → findings → plan over SSH', () => {
  it('shim: the GPUs are listed; VirtualGL and TurboVNC are the real ones; no DRI card means the GLX plan', async () => {
    const r = await probeServer(conn);
    expect(r.gpus.map((g) => [g.index, g.name, g.driverVersion])).toEqual([
      [0, 'NVIDIA A100-SXM4-80GB', '535.183.01'],
      [1, 'NVIDIA A100-SXM4-80GB', '535.183.01'],
    ]);
    expect(r.nvidia.driverLoaded).toBe(true);
    expect(r.virtualgl).toMatchObject({ installed: true, version: '3.1.4', hasEglBackend: true, binDir: '/opt/VirtualGL/bin' });
    expect(r.vnc).toMatchObject({ flavor: 'turbovnc', version: '3.3', vncserverPath: '/opt/TurboVNC/bin/vncserver' });
    expect(r.vnc.tigervnc.installed).toBe(true);
    // The driver "is there" but offers no EGL device (no /dev/dri card): VirtualGL's list holds only
    // Mesa's software device, which is named as such, and only the GLX back end could use the GPUs.
    expect(r.virtualgl.eglDevices.map((d) => [d.id, d.kind])).toEqual([['egl0', 'software']]);
    const codes = r.findings.map((f) => f.code);
    expect(codes).toContain('NO_3D_X_SERVER');
    expect(codes).toContain('EGL_SOFTWARE_RENDERER');
    expect(r.findings.find((f) => f.code === 'EGL_SOFTWARE_RENDERER')!.message).toContain('because no GPU offers an EGL device to this account');
    expect(codes).not.toContain('NO_NVIDIA_DRIVER');
    expect(codes).not.toContain('VIRTUALGL_MISSING');
    expect(codes).not.toContain('NO_VNC_SERVER');

    const plan = buildSetupPlan(r);
    expect(plan.backend).toBe('glx');
    // (window-manager appears only where none is installed: this machine may have one.)
    const ids = plan.steps.map((s) => s.id).filter((id) => id !== 'window-manager');
    expect(ids).toEqual(['gl-libraries', 'virtualgl', 'glx-xserver', 'vnc-server', 'vnc-localhost', 'ffmpeg', 'vulkan']);
    expect(plan.steps.find((s) => s.id === 'glx-xserver')!.apply).toContain('--busid PCI:7:0:0');
    expect(formatPlan(plan)).toContain('/opt/VirtualGL/bin/vglserver_config -config -s -f -t');

    // The checks run on the server: the installed VirtualGL and TurboVNC count as done.
    const status = await checkPlan(conn, plan);
    expect(status.virtualgl).toBe('done');
    expect(status['vnc-server']).toBe('done');
    expect(status['glx-xserver']).toBe('pending');
    // ffmpeg's step is done where this machine's ffmpeg encodes a frame (with libx264, NVENC or VA-API).
    expect(status.ffmpeg).toBe(localVideoEncoders(bed.user).encoders.some((e) => e.works) ? 'done' : 'pending');
  });

  it("shim: with the NVIDIA driver \"loaded\" but no real one behind it, NVENC fails for ffmpeg's own reason and its finding says which driver library to install", async () => {
    const r = await probeServer(conn);
    const local = localVideoEncoders(bed.user);
    expect(r.video.encoders).toEqual(local.encoders);
    const nvenc = local.encoders.find((e) => e.name === 'h264_nvenc')!;
    const f = r.findings.find((x) => x.code === 'NVENC_UNAVAILABLE');
    if (!local.ffmpeg || nvenc.works) {
      expect(f).toBeUndefined();
      return;
    }
    expect(f?.severity).toBe('info');
    expect(f?.message).toContain(nvenc.error);
    // Debian 12 (the bed): the driver's libraries by Debian's package names.
    if (/^Cannot load libcuda/.test(nvenc.error ?? '')) expect(f?.fix).toContain('sudo apt install libcuda1');
    if (/^Cannot load libnvidia-encode/.test(nvenc.error ?? '')) expect(f?.fix).toContain('sudo apt install libnvidia-encode1');
  });

  it('shim: queryGpus samples just the GPUs in one cheap call', async () => {
    const g = await queryGpus(conn);
    expect(g.map((x) => [x.index, x.utilizationPct, x.memoryUsedMiB])).toEqual([[0, 0, 4], [1, 97, 18213]]);
  });

  it('shim: a TurboVNC desktop pinned to GPU 1: its X server (so all it starts) and a program run in it see GPU 1; the session list says so', async () => {
    const s = await startSession(conn, { gpu: 1, geometry: '800x600', windowManager: '/usr/bin/xterm' });
    try {
      // The X server's own environment on the server, which the desktop's programs inherit.
      const env = (await conn.exec(`tr '\\000' '\\n' </proc/${s.pid}/environ`)).stdout.split('\n');
      expect(env).toEqual(expect.arrayContaining(['GPU_DESK_GPU=1', 'CUDA_VISIBLE_DEVICES=GPU-8d2e4b6a-0c3f-4e5d-9a1b-7c6d5e4f3a22', 'DRI_PRIME=pci-0000_0f_00_0']));
      expect((await listSessions(conn)).find((x) => x.display === s.display)?.renderGpu).toBe(1);
      const run = await runInDesktop(conn, s.display, 'env | grep -E "^(GPU_DESK_GPU|CUDA_VISIBLE_DEVICES|DRI_PRIME)=" | sort', null);
      const out = await eventually('the run to end', async () => {
        const o = await desktopRunState(conn, run);
        return o.running ? null : o;
      }, 30_000);
      expect(out.exitCode).toBe(0);
      expect(out.output.trim().split('\n')).toEqual(['CUDA_VISIBLE_DEVICES=GPU-8d2e4b6a-0c3f-4e5d-9a1b-7c6d5e4f3a22', 'DRI_PRIME=pci-0000_0f_00_0', 'GPU_DESK_GPU=1']);
    } finally {
      await killSession(conn, s.display).catch(() => {});
    }
  });
});
