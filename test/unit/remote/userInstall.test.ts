import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSetupPlan, formatPlan } from '../../../src/core/remote/setupPlan';
import { APT_LACK_SH, buildUserInstallPlan, buildUserUninstallPlan, envScript, USER_INSTALL_SH, userDependencyPackages, wantsUserInstall } from '../../../src/core/remote/userInstall';
import { GpuDeskError } from '../../../src/core/errors';
import { bedLike, configured, freshGpu, report } from './reports';

const DISTROS = [
  ['ubuntu-20.04', 'os-release-ubuntu-20.04.txt'],
  ['ubuntu-22.04', 'os-release-ubuntu-22.04.txt'],
  ['ubuntu-24.04', 'os-release-ubuntu-24.04.txt'],
  ['debian-12', 'os-release-debian-12.txt'],
  ['rhel-8', 'os-release-rocky-8.txt'],
  ['rhel-9', 'os-release-rocky-9.txt'],
] as const;

const snap = (name: string) => path.join(__dirname, '__snapshots__', `user-plan-${name}.txt`);
const noSudo = (file: string) => report({ ...freshGpu(file), sudo: 'unknown' });

describe('the no-root plan per distribution (snapshots of every command the user reviews)', () => {
  for (const [key, file] of DISTROS) {
    it(`${key}: every step as the user, into the versioned prefix in the home`, async () => {
      const plan = buildSetupPlan(noSudo(file), { userInstall: true });
      expect(plan.distro).toBe(key);
      const rhel = key.startsWith('rhel-');
      // openbox is in EPEL on RHEL, which only an administrator can enable: a bare desktop there, and the plan says so.
      expect(plan.steps.map((s) => s.id)).toEqual(['user-turbovnc', 'user-virtualgl', 'user-deps', ...(rhel ? [] : ['user-window-manager']), 'user-env']);
      expect(plan.steps.every((s) => !s.needsRoot)).toBe(true);
      expect(plan.userInstall).toEqual({ prefix: '~/.local/share/gpu-desk/turbovnc-3.3_virtualgl-3.1.4', diskMB: rhel ? 90 : 115, windowManager: rhel ? 'none' : 'openbox' });
      if (rhel) expect(plan.notes.join(' ')).toMatch(/EPEL.*bare/);
      for (const s of plan.steps) {
        const all = `${s.check}\n${s.apply}`;
        expect(all).not.toMatch(/\bsudo\b|apt-get (-\S+ )*install -y|dnf install|usermod|>\s*"?\/(etc|opt|usr)\//);
      }
      const tv = plan.steps[0].apply;
      expect(tv).toContain(rhel ? 'rpm2cpio "$1" | cpio -idm' : 'dpkg-deb -x "$1" "$2"');
      expect(tv).toContain(rhel ? 'turbovnc-3.3.x86_64.rpm' : 'turbovnc_3.3_amd64.deb');
      await expect(formatPlan(plan)).toMatchFileSnapshot(snap(key));
    });
  }

  it('the distribution packages follow the release (Ubuntu calls TurboJPEG libturbojpeg)', () => {
    expect(userDependencyPackages('ubuntu-22.04').virtualgl).toContain('libturbojpeg');
    expect(userDependencyPackages('debian-12').virtualgl).toContain('libturbojpeg0');
    expect(userDependencyPackages('rhel-9').turbovnc).toContain('xorg-x11-xkb-utils');
    const deps = buildSetupPlan(noSudo('os-release-debian-12.txt'), { userInstall: true }).steps.find((s) => s.id === 'user-deps')!;
    expect(deps.apply).toContain('apt-get "$@" download $need');
    expect(deps.apply).toContain('-o Dir::State::Lists="$A/lists"');
    const rpm = buildSetupPlan(noSudo('os-release-rocky-9.txt'), { userInstall: true }).steps.find((s) => s.id === 'user-deps')!;
    expect(rpm.apply).toContain('dnf -q download --resolve');
  });

  it('a server with a window manager gets none; aarch64 gets arm64 packages; an unknown architecture is a one-line error', () => {
    const withWm = buildUserInstallPlan(report({ ...configured(), sudo: 'unknown' }));
    expect(withWm.steps.map((s) => s.id)).not.toContain('user-window-manager');
    expect(withWm.userInstall.windowManager).toBe('existing');
    const arm = buildUserInstallPlan(report({ ...freshGpu('os-release-ubuntu-24.04.txt'), arch: 'aarch64' }));
    expect(arm.steps[1].apply).toContain('virtualgl_3.1.4_arm64.deb');
    expect(() => buildUserInstallPlan(report({ ...freshGpu('os-release-debian-12.txt'), arch: 'ppc64le' }))).toThrow(/no packages for this server's architecture \(ppc64le\)/);
  });

  it('an unknown architecture stops before any step with one line naming it and the fix', () => {
    for (const arch of ['sparc64', 'riscv32']) {
      let err: unknown;
      try { buildUserInstallPlan(report({ ...freshGpu('os-release-debian-12.txt'), arch, sudo: 'unknown' })); } catch (e) { err = e; }
      expect(err).toBeInstanceOf(GpuDeskError);
      const line = (err as GpuDeskError).toLine();
      expect(line).not.toContain('\n');
      expect(line).toContain(`architecture (${arch})`);
      expect((err as GpuDeskError).fix).toMatch(/x86_64 or aarch64 server/);
    }
    // The same where the CLI and the app choose the home install by themselves (no sudo).
    const sparc = report({ ...freshGpu('os-release-ubuntu-22.04.txt'), arch: 'sparc64', sudo: 'absent' });
    expect(() => buildSetupPlan(sparc, { userInstall: wantsUserInstall(sparc, undefined) })).toThrow(/architecture \(sparc64\)/);
  });

  describe('a package the distribution\'s mirror lacks (apt-get\'s own stderr)', () => {
    /** Runs the plan's check on `err` as apt's stderr; returns its exit status and what it said. */
    const lackOf = (err: string) => {
      const t = mkdtempSync(path.join(os.tmpdir(), 'apt-lack-'));
      try {
        writeFileSync(path.join(t, 'err'), err);
        const r = spawnSync('/bin/sh', ['-c', `t=${t}; say() { echo "gpu-desk: $*" >&2; }\n${APT_LACK_SH}\necho passed`], { encoding: 'utf8' });
        return { status: r.status, stderr: r.stderr, stdout: r.stdout };
      } finally { rmSync(t, { recursive: true, force: true }); }
    };

    it('"Unable to locate package", as this machine\'s apt-get writes it, names the package and the fix', () => {
      // Real apt-get text: the simulation the step runs, as a user, asking for a name no archive has.
      const apt = spawnSync('apt-get', ['-s', 'install', '--no-install-recommends', 'no-such-package-xyz'], { encoding: 'utf8' });
      expect(apt.stderr).toContain('E: Unable to locate package no-such-package-xyz');
      const r = lackOf(apt.stderr);
      expect(r.status).toBe(1);
      expect(r.stdout).not.toContain('passed');
      const lines = r.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^gpu-desk: the distribution's mirror has no package no-such-package-xyz: nothing was installed; ask the administrator to enable the repository that holds it/);
    });

    it('"has no installation candidate" (a name only other packages mention) names that package', () => {
      const r = lackOf([
        'Package libturbojpeg0 is not available, but is referred to by another package.',
        'This may mean that the package is missing, has been obsoleted, or',
        'is only available from another source',
        '',
        "E: Package 'libturbojpeg0' has no installation candidate",
      ].join('\n'));
      expect(r.status).toBe(1);
      expect(r.stderr.trim()).toMatch(/^gpu-desk: the distribution's mirror has no package libturbojpeg0: nothing was installed; ask the administrator/);
    });

    it('apt output without either message passes on', () => {
      const r = lackOf('NOTE: This is only a simulation!\n');
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('passed');
    });
  });

  it('chosen by itself without sudo; --user-install picks it where sudo exists; false keeps the system plan', () => {
    expect(wantsUserInstall({ sudo: 'absent' }, undefined)).toBe(true);
    expect(wantsUserInstall({ sudo: 'unknown' }, undefined)).toBe(true);
    expect(wantsUserInstall({ sudo: 'password' }, undefined)).toBe(false);
    expect(wantsUserInstall({ sudo: 'password' }, true)).toBe(true);
    expect(wantsUserInstall({ sudo: 'absent' }, false)).toBe(false);
    expect(buildSetupPlan(report(bedLike())).steps[0].id).toBe('gl-libraries');
  });

  it('uninstall is one step that removes the base directory and nothing else', () => {
    const plan = buildUserUninstallPlan(report(bedLike()));
    expect(plan.steps).toHaveLength(1);
    expect(plan.steps[0].apply).toBe('B="$HOME/.local/share/gpu-desk"\nrm -f -- "$B/current" && rm -rf -- "$B"');
    expect(plan.steps[0].needsRoot).toBe(false);
  });

  it('every script is valid POSIX sh', () => {
    const scripts = [USER_INSTALL_SH, envScript('x86_64-linux-gnu')];
    for (const [, file] of DISTROS) for (const s of buildSetupPlan(noSudo(file), { userInstall: true }).steps) scripts.push(s.check, s.apply);
    for (const script of scripts) {
      const r = spawnSync('/bin/sh', ['-n', '-c', script]);
      expect(r.status, `${r.stderr}\n${script.slice(0, 200)}`).toBe(0);
    }
  });
});

describe('packages carried by the desk: the sum a directory vouches for', () => {
  it('reads sha256sum lines (binary marker, directory part) and only the asset named', async () => {
    const { sumFor } = await import('../../../src/core/remote/userInstallCarry');
    const sums = `${'a'.repeat(64)}  turbovnc_3.3_amd64.deb\n${'B'.repeat(64)} *dl/virtualgl_3.1.4_amd64.deb\nnot a line\n`;
    expect(sumFor(sums, 'turbovnc_3.3_amd64.deb')).toBe('a'.repeat(64));
    expect(sumFor(sums, 'virtualgl_3.1.4_amd64.deb')).toBe('b'.repeat(64));
    expect(sumFor(sums, 'turbovnc_3.3_arm64.deb')).toBeNull();
  });
});
