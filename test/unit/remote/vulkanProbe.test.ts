/**
 * Vulkan in the probe: `vulkaninfo --summary` as the real tool prints it (this machine's lavapipe, and
 * an NVIDIA server's layout with the shim nvidia-smi's GPUs), the probe's vulkan section, the findings
 * and the set-up step.
 */
import { describe, expect, it } from 'vitest';
import { parseGpuInfoCsv } from '../../../src/core/remote/gpuFigures';
import { parseVulkaninfoSummary, parseVulkanSection } from '../../../src/core/remote/parsers';
import { buildSetupPlan } from '../../../src/core/remote/setupPlan';
import { formatReport } from '../../../src/core/remote/reportText';
import { reportView } from '../../../src/core/app/views';
import { bedLike, freshGpu, fx, LVP_ICD, nvidiaIcd, report, vulkanSection } from './reports';

const GPUS = parseGpuInfoCsv(fx('nvidia-smi-query-2gpu.csv'));
const codes = (r: ReturnType<typeof report>) => r.findings.map((f) => f.code).filter((c) => c.startsWith('VULKAN'));
const find = (r: ReturnType<typeof report>, code: string) => {
  const f = r.findings.find((x) => x.code === code);
  if (!f) throw new Error(`no ${code} finding in ${r.findings.map((x) => x.code).join(', ')}`);
  return f;
};

describe('vulkaninfo --summary', () => {
  it("lavapipe (this machine's Mesa): one CPU device with its name, driver and versions", () => {
    const s = parseVulkaninfoSummary(fx('vulkaninfo-summary-lavapipe.txt'));
    expect(s.instanceVersion).toBe('1.3.239');
    expect(s.devices).toEqual([{
      index: 0, name: 'llvmpipe (LLVM 15.0.6, 256 bits)', type: 'cpu', apiVersion: '1.3.230', driverVersion: '0.0.1', driverName: 'llvmpipe',
      driverInfo: 'Mesa 22.3.6 (LLVM 15.0.6)', vendorId: '0x10005', deviceUuid: '6d657361-3232-2e33-2e36-000000000000',
    }]);
  });

  it('an NVIDIA server: each GPU a discrete device with the driver as NVIDIA writes it, matched to nvidia-smi by UUID; lavapipe beside them matches none', () => {
    const v = parseVulkanSection(vulkanSection({ icds: [nvidiaIcd('535.183.01'), LVP_ICD], vi: fx('vulkaninfo-summary-nvidia.txt'), display: ':3' }), GPUS, 8);
    expect(v.display).toBe(':3');
    expect(v.devices.map((d) => [d.index, d.name, d.type, d.apiVersion, d.driverName, d.driverInfo, d.vendorId, d.gpuIndex])).toEqual([
      [0, 'NVIDIA A100-SXM4-80GB', 'discrete', '1.3.242', 'NVIDIA', '535.183.01', '0x10de', 0],
      [1, 'NVIDIA A100-SXM4-80GB', 'discrete', '1.3.242', 'NVIDIA', '535.183.01', '0x10de', 1],
      [2, 'llvmpipe (LLVM 15.0.6, 256 bits)', 'cpu', '1.3.230', 'llvmpipe', 'Mesa 22.3.6 (LLVM 15.0.6)', '0x10005', null],
    ]);
    expect(v.devices[0].driverVersion).toBe('535.183.1.0');
    expect(v.icds[0]).toEqual({
      path: '/usr/share/vulkan/icd.d/nvidia_icd.json', libraryPath: 'libGLX_nvidia.so.0', library: '/usr/lib/x86_64-linux-gnu/libGLX_nvidia.so.535.183.01',
      apiVersion: '1.3.242', nvidia: true, libraryVersion: '535.183.01', error: null,
    });
    expect(v.error).toBeNull();
  });

  it('older vulkaninfo releases print the packed number before the version: the version is taken from the brackets', () => {
    const old = fx('vulkaninfo-summary-nvidia.txt').replace(/apiVersion {9}= 1\.3\.242/g, 'apiVersion         = 4206834 (1.3.242)');
    expect(parseVulkaninfoSummary(old).devices[0].apiVersion).toBe('1.3.242');
  });

  it('no device: the loader’s error line; a hang: the time-out; no vulkaninfo: nothing known, no error', () => {
    const failed = parseVulkanSection(vulkanSection({ icds: [], vi: "ERROR: [Loader Message] Code 0 : vkCreateInstance: Found no drivers!\nCannot create Vulkan instance.\nThis problem is often caused by a faulty installation of the Vulkan driver or attempting to use a GPU that does not support Vulkan.\nERROR at ./vulkaninfo/vulkaninfo.h:649:vkCreateInstance failed with ERROR_INCOMPATIBLE_DRIVER", rc: 1 }), [], 8);
    expect(failed.devices).toEqual([]);
    expect(failed.error).toBe('ERROR: [Loader Message] Code 0 : vkCreateInstance: Found no drivers!');
    expect(parseVulkanSection(vulkanSection({ vi: '', rc: 124 }), [], 8).error).toBe('vulkaninfo did not finish in 8 s');
    const absent = parseVulkanSection(vulkanSection({ vi: null }), [], 8);
    expect(absent).toMatchObject({ vulkaninfo: null, devices: [], error: null, loader: '/lib/x86_64-linux-gnu/libvulkan.so.1' });
  });

  it('ICD files: a missing library, a file named in VK_DRIVER_FILES that does not exist, one that is not JSON; each listed once', () => {
    const v = parseVulkanSection(vulkanSection({
      icdEnv: '/tmp/a.json:/tmp/none.json:/tmp/bad.json',
      icds: [
        { path: '/tmp/a.json', lib: '-', json: '{ "file_format_version": "1.0.0", "ICD": { "library_path": "/nonexistent/libvulkan_fake.so", "api_version": "1.3.0" } }' },
        { path: '/tmp/none.json', missing: true },
        { path: '/tmp/bad.json', json: 'not json' },
        { path: '/tmp/a.json', lib: '-', json: '{}' },
      ],
    }), [], 8);
    expect(v.icdEnv).toBe('/tmp/a.json:/tmp/none.json:/tmp/bad.json');
    expect(v.icds.map((i) => [i.path, i.libraryPath, i.library, i.apiVersion, i.error])).toEqual([
      ['/tmp/a.json', '/nonexistent/libvulkan_fake.so', null, '1.3.0', null],
      ['/tmp/none.json', null, null, null, 'no such file'],
      ['/tmp/bad.json', null, null, null, 'it is not valid JSON'],
    ]);
  });
});

describe('Vulkan findings', () => {
  it('the bed (no GPU, lavapipe): only a CPU device, an info naming it; nothing else about Vulkan', () => {
    const r = report(bedLike());
    expect(codes(r)).toEqual(['VULKAN_CPU_ONLY']);
    const f = find(r, 'VULKAN_CPU_ONLY');
    expect(f.severity).toBe('info');
    expect(f.message).toContain('llvmpipe (LLVM 15.0.6, 256 bits)');
    expect(f.message).toMatch(/draw on the CPU/);
    expect(f.text).toMatchObject({ message: 'vulkanCpuOnly', fix: 'vulkanNeedsGpu' });
  });

  it('a GPU server whose NVIDIA ICD is there and matches the driver: no Vulkan finding', () => {
    expect(codes(report(freshGpu('os-release-ubuntu-22.04.txt')))).toEqual([]);
  });

  it.each([
    ['os-release-ubuntu-22.04.txt', 'sudo apt-get install libnvidia-gl-535', 'nvidiaVulkanUbuntu'],
    ['os-release-debian-12.txt', 'sudo apt-get install nvidia-vulkan-icd', 'nvidiaVulkan'],
    ['os-release-rocky-9.txt', 'sudo dnf install nvidia-driver-libs', 'nvidiaVulkan'],
  ])('%s: the NVIDIA driver without its Vulkan driver (only lavapipe): the fix names the package of the driver’s GL/Vulkan libraries', (os, command, key) => {
    const r = report({ ...freshGpu(os), vulkan: vulkanSection({ icds: [LVP_ICD], vi: fx('vulkaninfo-summary-lavapipe.txt') }) });
    expect(codes(r)).toEqual(['VULKAN_NO_NVIDIA_ICD']);
    const f = find(r, 'VULKAN_NO_NVIDIA_ICD');
    expect(f.severity).toBe('warning');
    expect(f.message).toContain('535.183.01');
    expect(f.message).toMatch(/draw on the CPU instead/);
    expect(f.fix).toContain(`\`${command}\``);
    expect(f.planStep).toBe('vulkan');
    expect(f.text).toMatchObject({ message: 'vulkanNoNvidiaIcdCpu', fix: key, params: { command, driver: '535.183.01' } });
  });

  it("NVIDIA's ICD names libGLX_nvidia but the library is gone: the stale file and the missing Vulkan driver are both named", () => {
    const r = report({ ...freshGpu('os-release-ubuntu-24.04.txt'), vulkan: vulkanSection({ icds: [nvidiaIcd(null)], vi: fx('vulkaninfo-summary-lavapipe.txt').replace(/^Devices:[\s\S]*/m, ''), rc: 1 }) });
    expect(codes(r).sort()).toEqual(['VULKAN_ICD_LIBRARY_MISSING', 'VULKAN_NO_DEVICE', 'VULKAN_NO_NVIDIA_ICD']);
    expect(find(r, 'VULKAN_ICD_LIBRARY_MISSING').message).toBe('The Vulkan driver file /usr/share/vulkan/icd.d/nvidia_icd.json names libGLX_nvidia.so.0, which does not exist, so the Vulkan loader skips that driver.');
  });

  it("the ICD's library is of another driver version than the running one: the mismatch names both", () => {
    const r = report({ ...freshGpu('os-release-ubuntu-22.04.txt'), vulkan: vulkanSection({ icds: [nvidiaIcd('550.54.14')], vi: fx('vulkaninfo-summary-nvidia.txt') }) });
    expect(codes(r)).toEqual(['VULKAN_ICD_VERSION_MISMATCH']);
    const f = find(r, 'VULKAN_ICD_VERSION_MISMATCH');
    expect(f.message).toContain('is version 550.54.14, but the running driver is 535.183.01');
    expect(f.fix).toMatch(/reboot/);
  });

  it('no loader: a warning with the packages; vulkaninfo missing: an info naming vulkan-tools', () => {
    const noLoader = report({ ...bedLike(), vulkan: vulkanSection({ loader: null, vi: null }) });
    expect(codes(noLoader)).toEqual(['VULKAN_NO_LOADER']);
    expect(find(noLoader, 'VULKAN_NO_LOADER').fix).toContain('sudo apt-get install libvulkan1 vulkan-tools');
    const noTool = report({ ...bedLike(), vulkan: vulkanSection({ icds: [LVP_ICD], vi: null }) });
    expect(noTool.findings.filter((f) => f.code.startsWith('VULKAN')).map((f) => f.code)).toEqual(['VULKANINFO_MISSING']);
    const f = find(noTool, 'VULKANINFO_MISSING');
    expect(f.severity).toBe('info');
    expect(f.message).toContain('vulkan-tools');
    expect(f.fix).toBe('Run the set-up plan, or `sudo apt-get install vulkan-tools`, then probe again');
    const rhel = report({ os: 'os-release-rhel-9.txt', vulkan: vulkanSection({ vi: null }) });
    expect(find(rhel, 'VULKANINFO_MISSING').fix).toContain('sudo dnf install vulkan-tools');
  });

  it('the report text and the app view carry the devices', () => {
    const r = report(freshGpu('os-release-ubuntu-22.04.txt'));
    expect(formatReport(r)).toContain('  0  NVIDIA A100-SXM4-80GB — GPU, Vulkan 1.3.242, NVIDIA 535.183.01, nvidia-smi GPU 0');
    expect(reportView(r).vulkan.devices.map((d) => [d.type, d.gpuIndex])).toEqual([['discrete', 0], ['discrete', 1], ['cpu', null]]);
  });
});

describe('Vulkan set-up step', () => {
  it('without an NVIDIA driver: the loader, vulkaninfo and Mesa’s drivers, checked by vulkaninfo listing a device', () => {
    const step = buildSetupPlan(report(bedLike())).steps.find((s) => s.id === 'vulkan')!;
    expect(step.apply).toContain('install -y -q --no-install-recommends libvulkan1 vulkan-tools mesa-vulkan-drivers');
    expect(step.check).toContain('vulkaninfo --summary');
    expect(step.check).toContain("grep -q 'deviceType '");
    expect(step.text?.key).toBe('vulkanMesa');
  });

  it("with the NVIDIA driver: the driver's own GL/Vulkan library package, never another driver; done only when vulkaninfo lists the NVIDIA GPU", () => {
    const ubuntu = buildSetupPlan(report(freshGpu('os-release-ubuntu-22.04.txt'))).steps.find((s) => s.id === 'vulkan')!;
    expect(ubuntu.apply).toContain('gl="libnvidia-gl-${drv#libnvidia-compute-}"');
    expect(ubuntu.apply).not.toMatch(/nvidia-driver-\d/);
    expect(ubuntu.apply).toContain('this step does not replace a driver');
    expect(ubuntu.check).toContain('vendorID += 0x10de');
    expect(ubuntu.why).toContain('it does not change the driver');
    const rhel = buildSetupPlan(report(freshGpu('os-release-rocky-9.txt'))).steps.find((s) => s.id === 'vulkan')!;
    expect(rhel.apply).toContain('dnf install -y vulkan-loader vulkan-tools nvidia-driver-libs');
    const debian = buildSetupPlan(report(freshGpu('os-release-debian-12.txt'))).steps.find((s) => s.id === 'vulkan')!;
    expect(debian.apply).toContain('libvulkan1 vulkan-tools nvidia-vulkan-icd');
  });
});
