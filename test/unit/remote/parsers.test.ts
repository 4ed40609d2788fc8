import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  parseClipboardTools,
  isLoopbackAddress,
  parseGlxinfo,
  parseNvidiaProcVersion,
  parseOsRelease,
  parseOtp,
  parseProcNetTcp,
  parseSsListeners,
  parseStartedDisplay,
  parseTigerVncList,
  parseTurboVncList,
  parseXvncVersion,
  splitSections,
  toXorgBusId,
} from '../../../src/core/remote/parsers';
import { parseGpuInfoCsv } from '../../../src/core/remote/gpuFigures';

const fx = (name: string) => fs.readFileSync(path.join(__dirname, '../../fixtures/remote', name), 'utf8');

describe('os-release', () => {
  it.each([
    ['os-release-ubuntu-20.04.txt', 'ubuntu', '20.04', 'deb', 'ubuntu-20.04'],
    ['os-release-ubuntu-22.04.txt', 'ubuntu', '22.04', 'deb', 'ubuntu-22.04'],
    ['os-release-ubuntu-24.04.txt', 'ubuntu', '24.04', 'deb', 'ubuntu-24.04'],
    ['os-release-debian-12.txt', 'debian', '12', 'deb', 'debian-12'],
    ['os-release-rocky-8.txt', 'rocky', '8.9', 'rpm', 'rhel-8'],
    ['os-release-rocky-9.txt', 'rocky', '9.4', 'rpm', 'rhel-9'],
    ['os-release-rhel-9.txt', 'rhel', '9.3', 'rpm', 'rhel-9'],
    ['os-release-fedora-40.txt', 'fedora', '40', 'rpm', null],
  ])('%s → %s %s (%s, recipe %s)', (file, id, version, family, distro) => {
    const os = parseOsRelease(fx(file));
    expect(os.id).toBe(id);
    expect(os.versionId).toBe(version);
    expect(os.family).toBe(family);
    expect(os.distro).toBe(distro);
    expect(os.prettyName).not.toMatch(/^"|"$/);
  });

  it('an empty or missing os-release gives no recipe', () => {
    expect(parseOsRelease('').distro).toBeNull();
    expect(parseOsRelease('').family).toBe('unknown');
  });
});

describe('nvidia-smi', () => {
  it('parses the query CSV (noheader, nounits) for two GPUs', () => {
    const g = parseGpuInfoCsv(fx('nvidia-smi-query-2gpu.csv'));
    expect(g).toHaveLength(2);
    expect(g[1]).toEqual({
      index: 1,
      name: 'NVIDIA A100-SXM4-80GB',
      uuid: 'GPU-8d2e4b6a-0c3f-4e5d-9a1b-7c6d5e4f3a22',
      memoryTotalMiB: 81920,
      memoryUsedMiB: 18213,
      utilizationPct: 97,
      driverVersion: '535.183.01',
      pciBusId: '00000000:0F:00.0',
    });
  });

  it('turns [N/A] into null instead of NaN', () => {
    const [g] = parseGpuInfoCsv(fx('nvidia-smi-query-na.csv'));
    expect(g.utilizationPct).toBeNull();
    expect(g.memoryTotalMiB).toBe(24576);
  });

  it('the "could not communicate with the driver" message yields no GPUs', () => {
    expect(parseGpuInfoCsv(fx('nvidia-smi-no-driver.txt'))).toEqual([]);
  });

  it('reads the kernel module version and converts bus IDs for nvidia-xconfig', () => {
    expect(parseNvidiaProcVersion(fx('proc-driver-nvidia-version.txt'))).toBe('535.183.01');
    expect(toXorgBusId('00000000:3B:00.0')).toBe('PCI:59:0:0');
    expect(toXorgBusId('00000000:0F:00.0')).toBe('PCI:15:0:0');
    expect(toXorgBusId('garbage')).toBeNull();
  });
});

describe('glxinfo', () => {
  it('Mesa glxinfo -B on a TigerVNC display: llvmpipe is software', () => {
    const g = parseGlxinfo(fx('glxinfo-B-llvmpipe.txt'));
    expect(g.renderer).toBe('llvmpipe (LLVM 15.0.6, 256 bits)');
    expect(g.vendor).toBe('Mesa/X.org');
    expect(g.softwareRenderer).toBe(true);
    expect(g.directRendering).toBe(true);
    expect(g.error).toBeNull();
  });

  it("VirtualGL's glxinfo -c on an NVIDIA 3D X server", () => {
    const g = parseGlxinfo(fx('glxinfo-c-nvidia.txt'));
    expect(g.renderer).toBe('NVIDIA A100-SXM4-80GB/PCIe/SSE2');
    expect(g.glVersion).toBe('4.6.0 NVIDIA 535.183.01');
    expect(g.softwareRenderer).toBe(false);
  });

  it('an unreachable display gives the error line', () => {
    const g = parseGlxinfo(fx('glxinfo-no-display.txt'));
    expect(g.renderer).toBeNull();
    expect(g.error).toBe('Error: unable to open display :78');
  });
});

describe('vncserver -list', () => {
  it('TigerVNC 1.12 (Debian wrapper), two sessions, padded columns and an empty unix-path cell', () => {
    expect(parseTigerVncList(fx('tigervnc-list-two.txt'))).toEqual([
      { display: 55, port: 5955, pid: 10233, unixPath: null },
      { display: 56, port: 5956, pid: 10342, unixPath: null },
    ]);
    expect(parseTigerVncList(fx('tigervnc-list-one.txt'))).toHaveLength(1);
    expect(parseTigerVncList(fx('tigervnc-list-empty.txt'))).toEqual([]);
  });

  it('TigerVNC: a stale pid file is not a running session', () => {
    const stale = fx('tigervnc-list-two.txt').replace('10342       ', '10342 (stale)');
    expect(parseTigerVncList(stale).map((s) => s.display)).toEqual([55]);
  });

  it('TigerVNC 1.10 (Ubuntu 20.04) layout', () => {
    expect(parseTigerVncList(fx('tigervnc-list-1.10.txt'))).toEqual([
      { display: 1, port: null, pid: 2952, unixPath: null },
      { display: 4, port: null, pid: 3387, unixPath: null },
    ]);
  });

  it('TurboVNC 3.x (with noVNC column) and 2.2', () => {
    expect(parseTurboVncList(fx('turbovnc-list.txt'))).toEqual([
      { display: 1, port: null, pid: 48211, unixPath: null },
      { display: 3, port: null, pid: 48977, unixPath: null },
    ]);
    expect(parseTurboVncList(fx('turbovnc-list-2.2.txt'))).toEqual([{ display: 2, port: null, pid: 3120, unixPath: null }]);
    expect(parseTurboVncList(fx('turbovnc-list-empty.txt'))).toEqual([]);
  });
});

describe('listeners', () => {
  it('ss -ltnp: addresses, ports and our own pids', () => {
    const l = parseSsListeners(fx('ss-ltnp-tigervnc.txt'));
    expect(l).toContainEqual({ address: '127.0.0.1', port: 5955, pid: 10233, process: 'Xtigervnc' });
    expect(l).toContainEqual({ address: '::1', port: 5955, pid: 10233, process: 'Xtigervnc' });
    expect(l).toContainEqual({ address: '0.0.0.0', port: 5956, pid: 10342, process: 'Xtigervnc' });
    expect(l).toContainEqual({ address: '0.0.0.0', port: 2024, pid: null, process: null });
    const t = parseSsListeners(fx('ss-ltnp-turbovnc.txt'));
    expect(t).toContainEqual({ address: '127.0.0.53', port: 53, pid: null, process: null });
    expect(t.filter((x) => x.pid === 48211).map((x) => x.address)).toEqual(['0.0.0.0', '::']);
  });

  it('/proc/net/tcp and tcp6 (no ss installed)', () => {
    const v4 = parseProcNetTcp(fx('proc-net-tcp.txt'));
    expect(v4).toContainEqual({ address: '127.0.0.1', port: 5955, pid: null, process: null });
    expect(v4).toContainEqual({ address: '0.0.0.0', port: 5956, pid: null, process: null });
    const v6 = parseProcNetTcp(fx('proc-net-tcp6.txt'));
    expect(v6).toContainEqual({ address: '::1', port: 5955, pid: null, process: null });
    expect(v6).toContainEqual({ address: '::', port: 5956, pid: null, process: null });
  });

  it('loopback means 127/8 and ::1 only', () => {
    expect(isLoopbackAddress('127.0.0.1')).toBe(true);
    expect(isLoopbackAddress('::1')).toBe(true);
    expect(isLoopbackAddress('0.0.0.0')).toBe(false);
    expect(isLoopbackAddress('::')).toBe(false);
    expect(isLoopbackAddress('10.0.0.5')).toBe(false);
  });
});

describe('VNC versions, start output, one-time passwords', () => {
  it('Xvnc -version for both flavours', () => {
    expect(parseXvncVersion(fx('tigervnc-xvnc-version.txt'))).toEqual({ flavor: 'tigervnc', version: '1.12.0' });
    expect(parseXvncVersion(fx('turbovnc-xvnc-version.txt'))).toEqual({ flavor: 'turbovnc', version: '3.1.1' });
    expect(parseXvncVersion('bash: Xvnc: command not found')).toBeNull();
  });

  it('the display a start reports', () => {
    expect(parseStartedDisplay(fx('tigervnc-start.txt'))).toEqual({ display: 55, port: 5955 });
    expect(parseStartedDisplay(fx('tigervnc-1.10-start.txt'))).toEqual({ display: 1, port: null });
    expect(parseStartedDisplay(fx('turbovnc-start-otp.txt'))).toEqual({ display: 1, port: null });
    expect(parseStartedDisplay('nothing')).toBeNull();
  });

  it('TurboVNC one-time passwords', () => {
    expect(parseOtp(fx('turbovnc-start-otp.txt'))).toBe('04719382');
    expect(parseOtp(fx('turbovnc-vncpasswd-o.txt'))).toBe('91830447');
    expect(parseOtp('unable to open display ":9"')).toBeNull();
  });
});

describe('probe sections', () => {
  it('splits at marker lines and keeps empty sections', () => {
    expect(splitSections('junk\n@@GD:a\n1\n2\n\n@@GD:b\n@@GD:end\n')).toEqual({ a: '1\n2', b: '', end: '' });
  });
});

describe('parseClipboardTools (the probe\'s clip section)', () => {
  it('names each of xclip and xsel found on PATH, and nothing else', () => {
    expect(parseClipboardTools('xclip\nxsel')).toEqual({ xclip: true, xsel: true });
    expect(parseClipboardTools('xsel')).toEqual({ xclip: false, xsel: true });
    expect(parseClipboardTools('')).toEqual({ xclip: false, xsel: false });
    expect(parseClipboardTools('/usr/bin/xclipper')).toEqual({ xclip: false, xsel: false });
  });
});
