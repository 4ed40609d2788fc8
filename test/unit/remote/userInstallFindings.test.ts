import { describe, expect, it } from 'vitest';
import { buildReport } from '../../../src/core/remote/probe';
import type { ServerReport } from '../../../src/core/remote/types';
import { createI18n } from '../../../src/renderer/i18n';
import { fx } from './reports';

/** A no-sudo Debian 12 server as the probe script prints it, with the sections the user install added. */
function probe(extra: Record<string, string>): ServerReport {
  return buildReport({
    os: fx('os-release-debian-12.txt'), uname: 'x86_64\n6.1.0-28-amd64\ngpu01', id: 'bob\n1001\nbob', sudo: 'unknown', nvsmi: '@@absent',
    vgl: '', turbo: '', video: '', vulkan: '', ...extra, end: '',
  }, 'gpu01');
}
const UI = '/home/bob/.local/share/gpu-desk/turbovnc-3.3_virtualgl-3.1.4';
const codes = (r: ServerReport) => r.findings.map((f) => f.code);

describe('findings of the install in the home', () => {
  it('the user install serves sessions: reported in the existing fields and said plainly', () => {
    const r = probe({
      vgl: `version 3.1.4\nbin ${UI}/VirtualGL/bin\neglinfo`,
      turbo: `bin ${UI}/TurboVNC/bin\n${fx('turbovnc-3.3-xvnc-version.txt')}`,
      userinstall: `base /home/bob/.local/share/gpu-desk\ncurrent ${UI}\ninstall turbovnc-3.3_virtualgl-3.1.4`,
    });
    expect(r.vnc.turbovnc).toMatchObject({ installed: true, binDir: `${UI}/TurboVNC/bin`, version: '3.3' });
    expect(r.virtualgl).toMatchObject({ installed: true, binDir: `${UI}/VirtualGL/bin`, version: '3.1.4' });
    expect(r.userInstall).toEqual({
      base: '/home/bob/.local/share/gpu-desk', current: UI, installs: ['turbovnc-3.3_virtualgl-3.1.4'],
      systemTurbovnc: null, systemVirtualgl: null, sessionsUse: { turbovnc: 'user', virtualgl: 'user' },
    });
    expect(codes(r)).toContain('USER_INSTALL_IN_USE');
    expect(codes(r)).not.toContain('SYSTEM_INSTALL_PREFERRED');
    expect(codes(r)).not.toContain('NO_VNC_SERVER');
  });

  it('an administrator installs later: the system one is used, and the probe says so', () => {
    const r = probe({
      vgl: 'bin /opt/VirtualGL/bin\neglinfo\nversion 3.1.4',
      turbo: `bin /opt/TurboVNC/bin\n${fx('turbovnc-3.3-xvnc-version.txt')}`,
      userinstall: `base /home/bob/.local/share/gpu-desk\ncurrent ${UI}\ninstall turbovnc-3.3_virtualgl-3.1.4\nsystem-turbovnc /opt/TurboVNC/bin\nsystem-virtualgl /opt/VirtualGL/bin`,
    });
    expect(r.userInstall?.sessionsUse).toEqual({ turbovnc: 'system', virtualgl: 'system' });
    const f = r.findings.find((x) => x.code === 'SYSTEM_INSTALL_PREFERRED')!;
    expect(f.message).toBe(`An administrator has installed TurboVNC for the whole server (/opt/TurboVNC/bin): desktops use that, and the install in your home (${UI}) is no longer used.`);
    expect(f.fix).toContain('--user-install --uninstall --apply');
    expect(codes(r)).not.toContain('USER_INSTALL_IN_USE');
  });

  it('each GPU device node the account cannot open: one finding per group, naming it, saying only an administrator can add the user', () => {
    const r = probe({ devnodes: '/dev/dri/card0 no video\n/dev/dri/renderD128 no render\n/dev/nvidia0 rw -\n/dev/nvidiactl rw -\n/dev/nvidia1 no -' });
    expect(r.deviceNodes).toHaveLength(5);
    const f = r.findings.filter((x) => x.code === 'GPU_DEVICE_NO_ACCESS');
    expect(f.map((x) => x.message)).toEqual([
      'bob cannot open /dev/dri/card0 (group video), so VirtualGL cannot render on that GPU for this account. Only an administrator can add you to the video group.',
      'bob cannot open /dev/dri/renderD128 (group render), so VirtualGL cannot render on that GPU for this account. Only an administrator can add you to the render group.',
      'bob cannot open /dev/nvidia1, so VirtualGL cannot render on that GPU for this account. Only an administrator can change that.',
    ]);
    expect(f[0].fix).toBe('Ask the administrator to run `sudo usermod -aG video bob`, then log in again');
    expect(probe({ devnodes: '/dev/dri/renderD128 rw render' }).findings.some((x) => x.code === 'GPU_DEVICE_NO_ACCESS')).toBe(false);
  });

  it('reachability: GitHub and the mirror, each said only when the server cannot reach it', () => {
    const cut = probe({ reach: 'upstream 6\nmirror http://deb.debian.org 28' });
    expect(cut.reach).toEqual({ upstream: false, mirror: 'http://deb.debian.org', mirrorReachable: false });
    expect(codes(cut)).toEqual(expect.arrayContaining(['UPSTREAM_UNREACHABLE', 'MIRROR_UNREACHABLE']));
    expect(cut.findings.find((x) => x.code === 'MIRROR_UNREACHABLE')!.message).toContain('(http://deb.debian.org)');
    const ok = probe({ reach: 'upstream 0\nmirror http://deb.debian.org 0' });
    expect(codes(ok)).not.toContain('UPSTREAM_UNREACHABLE');
    expect(codes(ok)).not.toContain('MIRROR_UNREACHABLE');
    // No curl or wget on the server: nothing is known, nothing is claimed.
    expect(probe({ reach: 'upstream none' }).reach).toEqual({ upstream: null, mirror: null, mirrorReachable: null });
  });

  it('every new finding reads the same in the app (en) as in the CLI, and is translated in zh-CN', () => {
    const all = [
      ...probe({ sudo: 'absent', devnodes: '/dev/dri/card0 no video\n/dev/nvidia1 no -', reach: 'upstream 6\nmirror http://deb.debian.org 28' }).findings,
      ...probe({ userinstall: `current ${UI}\nsystem-turbovnc /opt/TurboVNC/bin`, turbo: `bin /opt/TurboVNC/bin\n${fx('turbovnc-3.3-xvnc-version.txt')}` }).findings,
      ...probe({ userinstall: `current ${UI}`, turbo: `bin ${UI}/TurboVNC/bin\n${fx('turbovnc-3.3-xvnc-version.txt')}` }).findings,
    ].filter((f) => ['NO_SUDO', 'USER_INSTALL_IN_USE', 'SYSTEM_INSTALL_PREFERRED', 'GPU_DEVICE_NO_ACCESS', 'UPSTREAM_UNREACHABLE', 'MIRROR_UNREACHABLE'].includes(f.code));
    expect(new Set(all.map((f) => f.code)).size).toBe(6);
    const en = createI18n('en');
    const zh = createI18n('zh-CN');
    for (const f of all) {
      expect(en.t(`findings:message.${f.text!.message}`, f.text!.params), f.code).toBe(f.message.replace(/'/g, '’'));
      expect(en.t(`findings:fix.${f.text!.fix}`, f.text!.params), f.code).toBe(f.fix!.replace(/'/g, '’'));
      expect(zh.t(`findings:message.${f.text!.message}`, f.text!.params), f.code).toMatch(/[\u4e00-\u9fff]/);
      expect(zh.t(`findings:fix.${f.text!.fix}`, f.text!.params), f.code).toMatch(/[\u4e00-\u9fff]/);
    }
  });
});
