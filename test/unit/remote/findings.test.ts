import { describe, expect, it } from 'vitest';
import type { Finding, FindingCode } from '../../../src/core/remote/types';
import { amdGpu, bedLike, configured, freshGpu, fx, glxOnlyGpu, report, softwareEgl } from './reports';
import { chooseBackend } from '../../../src/core/remote/setupPlan';

const codes = (f: Finding[]) => f.map((x) => x.code).sort();
const find = (f: Finding[], code: FindingCode) => f.find((x) => x.code === code)!;

describe('findings: plain-language diagnosis', () => {
  it('every finding has a severity, a code, a one-line message and a fix', () => {
    const all = [bedLike(), freshGpu('os-release-ubuntu-22.04.txt'), glxOnlyGpu('os-release-rocky-8.txt'), configured()].flatMap((s) => report(s).findings);
    expect(all.length).toBeGreaterThan(5);
    for (const f of all) {
      expect(['error', 'warning', 'info']).toContain(f.severity);
      expect(f.message.length).toBeGreaterThan(20);
      expect(f.message).not.toContain('\n');
      expect(f.fix.length).toBeGreaterThan(10);
    }
  });

  it('no NVIDIA driver (the bed): says so in plain words and how to install one for that distro', () => {
    const r = report(bedLike());
    expect(r.gpus).toEqual([]);
    expect(codes(r.findings)).toEqual(['NO_NVIDIA_DRIVER', 'NO_SUDO', 'NO_WINDOW_MANAGER', 'TIGERVNC_ONLY', 'VIDEO_CPU_ONLY', 'VIRTUALGL_MISSING', 'VULKAN_CPU_ONLY']);
    const f = find(r.findings, 'NO_NVIDIA_DRIVER');
    expect(f.severity).toBe('error');
    expect(f.message).toMatch(/No NVIDIA driver/);
    expect(f.fix).toMatch(/apt install nvidia-driver/);
  });

  it('VirtualGL on the software EGL device (the bed): usable, named a software renderer, and the finding says 3D would run on the CPU and why', () => {
    const r = report(softwareEgl());
    expect(r.virtualgl).toMatchObject({ installed: true, version: '3.1.4', eglUsable: true, eglDevice: 'egl0' });
    expect(r.virtualgl.eglDevices).toEqual([{ id: 'egl0', driPath: null, vendor: 'Mesa/X.org', renderer: expect.stringMatching(/^llvmpipe/), kind: 'software', gpuVendor: null }]);
    const f = find(r.findings, 'EGL_SOFTWARE_RENDERER');
    expect(f.severity).toBe('warning');
    expect(f.message).toMatch(/^VirtualGL's EGL device egl0 is llvmpipe \(LLVM [^)]*\), a software renderer: 3D programs in the desktop would render on the CPU, not a GPU, because no GPU driver is loaded/);
    expect(f.fix).toMatch(/apt install nvidia-driver/);
    expect(codes(r.findings)).toEqual(['EGL_SOFTWARE_RENDERER', 'NO_NVIDIA_DRIVER', 'NO_SUDO', 'NO_WINDOW_MANAGER', 'VIDEO_CPU_ONLY', 'VULKAN_CPU_ONLY']);
    // A CPU rasteriser is nothing to set a back end up for.
    expect(chooseBackend(r)).toBe('none');
  });

  it('an AMD GPU through Mesa counts as a GPU: EGL back end, no NVIDIA-driver error', () => {
    const r = report(amdGpu());
    expect(r.virtualgl.eglDevices[0]).toMatchObject({ id: 'egl0', kind: 'gpu', gpuVendor: 'amd', driPath: '/dev/dri/card0' });
    expect(r.virtualgl.eglReason).toBe('renders on egl0 (AMD Radeon Pro W6800 (radeonsi, navi21, LLVM 17.0.6, DRM 3.57, 6.8.0-45-generic)) through /dev/dri/card0');
    expect(codes(r.findings)).not.toContain('NO_NVIDIA_DRIVER');
    expect(codes(r.findings)).not.toContain('EGL_SOFTWARE_RENDERER');
    expect(chooseBackend(r)).toBe('egl');
  });

  it("nvidia-smi installed but the driver isn't talking: its own words are quoted", () => {
    const r = report({ ...bedLike(), nvsmi: fx('nvidia-smi-no-driver.txt') + '@@rc=9' });
    expect(find(r.findings, 'NO_NVIDIA_DRIVER').message).toContain("couldn't communicate with the NVIDIA driver");
  });

  it('VirtualGL missing on a GPU server is an error that explains the CPU-rendering consequence', () => {
    const r = report(freshGpu('os-release-ubuntu-22.04.txt'));
    expect(r.gpus).toHaveLength(2);
    const f = find(r.findings, 'VIRTUALGL_MISSING');
    expect(f.severity).toBe('error');
    expect(f.message).toMatch(/render on the CPU/);
    expect(f.message).toMatch(/X11-forwarding/);
    expect(f.planStep).toBe('virtualgl');
    expect(codes(r.findings)).toEqual(['NO_FFMPEG', 'NO_VNC_SERVER', 'NO_WINDOW_MANAGER', 'VIRTUALGL_MISSING']);
  });

  it('no VNC server and no window manager', () => {
    const r = report(freshGpu('os-release-ubuntu-24.04.txt'));
    expect(find(r.findings, 'NO_VNC_SERVER').severity).toBe('error');
    expect(find(r.findings, 'NO_WINDOW_MANAGER').planStep).toBe('window-manager');
  });

  it('3D X server missing while only the GLX back end is possible', () => {
    const r = report(glxOnlyGpu('os-release-rocky-8.txt'));
    const f = find(r.findings, 'NO_3D_X_SERVER');
    expect(f.severity).toBe('error');
    expect(f.message).toMatch(/Only VirtualGL's GLX back end/);
    expect(f.fix).toMatch(/nvidia-xconfig/);
    // The same GPU with an EGL-capable driver and a DRI card does not need an X server.
    expect(codes(report(freshGpu('os-release-rocky-8.txt')).findings)).not.toContain('NO_3D_X_SERVER');
  });

  it('GLX renderer llvmpipe on :0', () => {
    const r = report({ ...glxOnlyGpu('os-release-ubuntu-20.04.txt'), x0: '@@running\n' + fx('glxinfo-B-llvmpipe.txt') });
    expect(r.xserver.renderer).toMatch(/^llvmpipe/);
    const f = find(r.findings, 'GLX_RENDERER_SOFTWARE');
    expect(f.message).toContain('llvmpipe (LLVM 15.0.6, 256 bits)');
    expect(f.message).toMatch(/software on the CPU/);
    expect(codes(r.findings)).not.toContain('NO_3D_X_SERVER');
  });

  it('an NVIDIA renderer on :0 is fine', () => {
    const r = report({ ...glxOnlyGpu('os-release-ubuntu-20.04.txt'), x0: '@@running\n' + fx('glxinfo-c-nvidia.txt') });
    expect(codes(r.findings)).not.toContain('GLX_RENDERER_SOFTWARE');
    expect(codes(r.findings)).not.toContain('NO_3D_X_SERVER');
  });

  it('a session listening on all interfaces is named with its port and address', () => {
    const r = report({
      ...configured(),
      turbolist: fx('turbovnc-list.txt'),
      listen: fx('ss-ltnp-turbovnc.txt'),
    });
    expect(r.exposedVncPorts).toEqual([]);
    expect(r.sessions.map((s) => [s.display, s.port, s.localhostOnly])).toEqual([[1, 5901, false], [3, 5903, true]]);
    const f = r.findings.filter((x) => x.code === 'SESSION_LISTENS_ON_ALL_INTERFACES');
    expect(f).toHaveLength(1);
    expect(f[0].severity).toBe('error');
    expect(f[0].message).toContain(':1');
    expect(f[0].message).toContain('5901');
    expect(f[0].message).toContain('0.0.0.0');
    expect(f[0].fix).toContain('kill 1');
  });

  it('the same from /proc/net/tcp when ss is missing (TigerVNC, ports from -list)', () => {
    const r = report({ ...bedLike(), tigerlist: fx('tigervnc-list-two.txt'), listen: '@@proc\n' + fx('proc-net-tcp.txt') + fx('proc-net-tcp6.txt') });
    expect(r.sessions.map((s) => [s.display, s.localhostOnly])).toEqual([[55, true], [56, false]]);
    expect(codes(r.findings)).toContain('SESSION_LISTENS_ON_ALL_INTERFACES');
  });

  it("another account's VNC port open to the network is a warning naming port and display", () => {
    // Port 5901 open on 0.0.0.0 with no session of ours behind it (no -list output).
    const r = report({ ...bedLike(), listen: fx('ss-ltnp-turbovnc.txt') });
    expect(r.exposedVncPorts).toEqual([{ port: 5901, display: 1, addresses: ['0.0.0.0', '::'] }]);
    const f = r.findings.filter((x) => x.code === 'SESSION_LISTENS_ON_ALL_INTERFACES');
    expect(f).toHaveLength(1);
    expect(f[0].severity).toBe('warning');
    expect(f[0].message).toContain('port 5901 (display :1, 0.0.0.0, ::)');
  });

  it('EGL device present but not accessible to the account', () => {
    const r = report({ ...configured(), groups: 'alice', dri: '/dev/dri/card1 no vglusers' });
    expect(r.virtualgl.eglUsable).toBe(false);
    const f = find(r.findings, 'EGL_DEVICE_NOT_ACCESSIBLE');
    expect(f.fix).toContain('usermod -aG vglusers alice');
  });

  it('old VirtualGL (no EGL back end)', () => {
    const r = report({ ...freshGpu('os-release-debian-12.txt'), vgl: 'bin /opt/VirtualGL/bin\nversion 2.6.5' });
    expect(r.virtualgl.hasEglBackend).toBe(false);
    expect(codes(r.findings)).toContain('VIRTUALGL_OLD');
    expect(codes(r.findings)).toContain('NO_3D_X_SERVER');
  });

  it('a fully configured server has nothing to report', () => {
    const r = report(configured());
    expect(r.findings).toEqual([]);
    expect(r.virtualgl.eglUsable).toBe(true);
    expect(r.vnc).toMatchObject({ flavor: 'turbovnc', version: '3.1.1', vncserverPath: '/opt/TurboVNC/bin/vncserver' });
  });

  it('an OS without a recipe is an info finding, not a failure', () => {
    const r = report({ ...bedLike(), os: 'os-release-fedora-40.txt' });
    expect(find(r.findings, 'UNSUPPORTED_OS').message).toContain('Fedora Linux 40');
  });

  it('no xclip: image copy and paste says what it needs, names xsel as text-only, and points at the plan step', () => {
    const none = find(report({ ...bedLike(), clip: '' }).findings, 'NO_XCLIP');
    expect(none.severity).toBe('info');
    expect(none.message).toBe('Image copy and paste needs xclip, which is not installed on this server (text copy and paste works).');
    expect(none.planStep).toBe('xclip');
    expect(none.text).toEqual({ message: 'noXclip', fix: 'planXclip', params: {} });
    const xsel = find(report({ ...bedLike(), clip: 'xsel' }).findings, 'NO_XCLIP');
    expect(xsel.message).toMatch(/xsel is, but it carries text only/);
    expect(xsel.text?.message).toBe('noXclipXsel');
    expect(codes(report({ ...bedLike(), clip: 'xclip\nxsel' }).findings)).not.toContain('NO_XCLIP');
  });
});
