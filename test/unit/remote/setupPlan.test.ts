import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildSetupPlan, formatPlan } from '../../../src/core/remote/setupPlan';
import { ensureLinesScript, atomicWriteScript } from '../../../src/core/remote/remoteFile';
import { bedLike, configured, freshGpu, glxOnlyGpu, report } from './reports';

const DISTROS = [
  ['ubuntu-20.04', 'os-release-ubuntu-20.04.txt'],
  ['ubuntu-22.04', 'os-release-ubuntu-22.04.txt'],
  ['ubuntu-24.04', 'os-release-ubuntu-24.04.txt'],
  ['debian-12', 'os-release-debian-12.txt'],
  ['rhel-8', 'os-release-rocky-8.txt'],
  ['rhel-9', 'os-release-rocky-9.txt'],
] as const;

const snap = (name: string) => path.join(__dirname, '__snapshots__', `plan-${name}.txt`);

describe('set-up plan per distribution (snapshots of every command the user reviews)', () => {
  for (const [key, file] of DISTROS) {
    it(`${key}, EGL back end`, async () => {
      const plan = buildSetupPlan(report(freshGpu(file)));
      expect(plan.distro).toBe(key);
      expect(plan.backend).toBe('egl');
      expect(plan.steps.map((s) => s.id)).toEqual(['gl-libraries', 'window-manager', 'virtualgl', 'virtualgl-egl', 'vnc-server', 'vnc-localhost', 'ffmpeg', 'vulkan']);
      await expect(formatPlan(plan)).toMatchFileSnapshot(snap(`${key}-egl`));
    });
    it(`${key}, GLX back end (old driver, no DRI card)`, async () => {
      const plan = buildSetupPlan(report(glxOnlyGpu(file)));
      expect(plan.backend).toBe('glx');
      const glx = plan.steps.find((s) => s.id === 'glx-xserver')!;
      expect(glx.apply).toContain('nvidia-xconfig -a --allow-empty-initial-configuration --use-display-device=None --virtual=1920x1080 --busid PCI:59:0:0');
      expect(glx.apply).toContain('/opt/VirtualGL/bin/vglserver_config -config -s -f -t');
      expect(glx.apply).toMatch(/systemctl stop display-manager[\s\S]*vglserver_config[\s\S]*systemctl start display-manager/);
      await expect(formatPlan(plan)).toMatchFileSnapshot(snap(`${key}-glx`));
    });
  }

  it('package names follow the release', () => {
    const gl = (file: string) => buildSetupPlan(report(freshGpu(file))).steps[0].apply;
    expect(gl('os-release-ubuntu-20.04.txt')).toContain('libgl1-mesa-glx');
    expect(gl('os-release-ubuntu-24.04.txt')).not.toContain('libgl1-mesa-glx');
    expect(gl('os-release-ubuntu-24.04.txt')).toContain('libglut-dev');
    expect(gl('os-release-rocky-9.txt')).toContain('dnf install -y gcc');
    expect(gl('os-release-rocky-9.txt')).toContain('crb enable');
    expect(gl('os-release-rocky-8.txt')).toContain('powertools');
    const vnc = (file: string) => buildSetupPlan(report(freshGpu(file))).steps.find((s) => s.id === 'vnc-localhost')!.apply;
    expect(vnc('os-release-ubuntu-20.04.txt')).toContain('/etc/vnc.conf');
    expect(vnc('os-release-debian-12.txt')).toContain('/etc/tigervnc/vncserver-config-mandatory');
    expect(vnc('os-release-debian-12.txt')).toContain('/etc/turbovncserver-security.conf');
  });

  it('EGL is preferred; the GLX recipe only when the driver cannot do EGL', () => {
    const egl = buildSetupPlan(report(freshGpu('os-release-ubuntu-22.04.txt')));
    expect(egl.steps.find((s) => s.id === 'virtualgl-egl')!.apply).toContain('vglserver_config -config +egl');
    expect(egl.steps.some((s) => s.id === 'glx-xserver')).toBe(false);
    expect(egl.steps.find((s) => s.id === 'virtualgl')!.apply).toContain('https://github.com/VirtualGL/virtualgl/releases/download/3.1.4/virtualgl_3.1.4_amd64.deb');
    const arm = buildSetupPlan(report({ ...freshGpu('os-release-rocky-9.txt'), arch: 'aarch64' }));
    expect(arm.steps.find((s) => s.id === 'virtualgl')!.apply).toContain('VirtualGL-3.1.4.aarch64.rpm');
  });

  it('no GPU (the bed): VirtualGL is installed for its software EGL device, nothing GPU-specific is configured, and a note says why', async () => {
    const plan = buildSetupPlan(report(bedLike()));
    expect(plan.backend).toBe('none');
    expect(plan.steps.map((s) => s.id)).toEqual(['gl-libraries', 'window-manager', 'virtualgl', 'vnc-server', 'vnc-localhost', 'ffmpeg', 'vulkan']);
    expect(plan.notes.join(' ')).toMatch(/No GPU with a working driver.*software EGL device/);
    await expect(formatPlan(plan)).toMatchFileSnapshot(snap('debian-12-nogpu'));
  });

  it('a server that already has a window manager gets no window-manager step', () => {
    expect(buildSetupPlan(report(configured())).steps.map((s) => s.id)).not.toContain('window-manager');
  });

  it('openbox instead of Xfce on request', () => {
    const plan = buildSetupPlan(report(bedLike()), { windowManager: 'openbox' });
    const wm = plan.steps.find((s) => s.id === 'window-manager')!;
    expect(wm.apply).toContain('openbox');
    expect(wm.check).toContain('openbox-session');
  });

  it('every step is complete and every step needing root says so', () => {
    for (const [, file] of DISTROS) {
      for (const plan of [buildSetupPlan(report(freshGpu(file))), buildSetupPlan(report(glxOnlyGpu(file)))]) {
        const ids = plan.steps.map((s) => s.id);
        expect(new Set(ids).size).toBe(ids.length);
        for (const s of plan.steps) {
          expect(s.title && s.why && s.check && s.apply).toBeTruthy();
          expect(typeof s.needsRoot).toBe('boolean');
        }
      }
    }
  });

  it('refuses an OS without a recipe with a clear error', () => {
    expect(() => buildSetupPlan(report({ ...bedLike(), os: 'os-release-fedora-40.txt' }))).toThrow(/no set-up recipe for Fedora Linux 40/);
  });

  it('plan scripts are valid POSIX sh', () => {
    for (const [, file] of DISTROS) {
      for (const plan of [buildSetupPlan(report(freshGpu(file))), buildSetupPlan(report(glxOnlyGpu(file)))]) {
        for (const s of plan.steps) {
          for (const script of [s.check, s.apply]) {
            const r = spawnSync('/bin/sh', ['-n', '-c', script]);
            expect(r.status, `${s.id}: ${r.stderr}`).toBe(0);
          }
        }
      }
    }
  });
});

describe('hostile values in a report never become code', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-plan-'));
  const canary = path.join(dir, 'pwned');
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('a user name like $(touch …) stays a string in usermod/id', () => {
    const hostile = `$(touch ${canary});\`touch ${canary}\`'`;
    const plan = buildSetupPlan(report({ ...freshGpu('os-release-debian-12.txt'), user: hostile }));
    const step = plan.steps.find((s) => s.id === 'virtualgl-egl')!;
    spawnSync('/bin/sh', ['-c', step.check], { cwd: dir });
    // The apply line with usermod, but with `printf` in place of usermod so we see what it would receive.
    const line = step.apply.split('\n').find((l) => l.startsWith('usermod'))!.replace(/^usermod/, 'printf "[%s]"');
    const out = execFileSync('/bin/sh', ['-c', line], { cwd: dir }).toString();
    expect(out).toBe(`[-aG][vglusers][${hostile}]`);
    expect(fs.existsSync(canary)).toBe(false);
  });
});

describe('atomic config edits (run with the local /bin/sh)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-conf-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
  const sh = (script: string) => spawnSync('/bin/sh', ['-c', script], { encoding: 'utf8' });

  it('ensureLines inserts before the final "1;" of a Perl config, once, keeping mode and other lines', () => {
    const f = path.join(dir, 'vncserver-config-mandatory');
    fs.writeFileSync(f, '# comment\n$geometry = "800x600";\n1;\n', { mode: 0o640 });
    expect(sh(ensureLinesScript(f, ['$localhost = "yes";'], { beforeLine: '1;' })).status).toBe(0);
    expect(fs.readFileSync(f, 'utf8')).toBe('# comment\n$geometry = "800x600";\n$localhost = "yes";\n1;\n');
    expect(fs.statSync(f).mode & 0o777).toBe(0o640);
    const before = fs.statSync(f).mtimeMs;
    expect(sh(ensureLinesScript(f, ['$localhost = "yes";'], { beforeLine: '1;' })).status).toBe(0);
    expect(fs.statSync(f).mtimeMs).toBe(before);
    expect(fs.readdirSync(dir).filter((n) => n.includes('gpu-desk'))).toEqual([]);
  });

  it('creates a missing file and appends to one without a trailing newline', () => {
    const f = path.join(dir, 'sub', 'turbovncserver-security.conf');
    expect(sh(ensureLinesScript(f, ['no-remote-connections', 'a = b'])).status).toBe(0);
    expect(fs.readFileSync(f, 'utf8')).toBe('no-remote-connections\na = b\n');
    const g = path.join(dir, 'nonl.conf');
    fs.writeFileSync(g, 'x = 1');
    sh(ensureLinesScript(g, ['y = 2']));
    expect(fs.readFileSync(g, 'utf8')).toBe('x = 1\ny = 2\n');
  });

  it('hostile config lines and paths are data, not code', () => {
    const canary = path.join(dir, 'pwned');
    const f = path.join(dir, `we'ird $(touch ${canary}) dir`, 'x.conf');
    const line = `a = $(touch ${canary}) \`touch ${canary}\` '; touch ${canary}; '`;
    expect(sh(ensureLinesScript(f, [line])).status).toBe(0);
    expect(fs.readFileSync(f, 'utf8')).toBe(line + '\n');
    expect(sh(atomicWriteScript(f, line)).status).toBe(0);
    expect(fs.readFileSync(f, 'utf8')).toBe(line);
    expect(fs.existsSync(canary)).toBe(false);
  });

  it('atomicWrite: content with quotes, $() and newlines is written verbatim', () => {
    const f = path.join(dir, 'w.conf');
    const content = `a='$(id)'\n\`x\`\n"$HOME"\n`;
    expect(sh(atomicWriteScript(f, content)).status).toBe(0);
    expect(fs.readFileSync(f, 'utf8')).toBe(content);
  });

  it('a writer killed before the rename leaves the old file intact and removes its temp file', async () => {
    const f = path.join(dir, 'killed.conf');
    fs.writeFileSync(f, 'old\n');
    const { spawn } = await import('node:child_process');
    // Its own process group, killed as a whole: what sshd's session teardown does to a step.
    const p = spawn('/bin/sh', ['-c', atomicWriteScript(f, 'new\n', { beforeCommit: 'sleep 5' })], { detached: true });
    await new Promise((r) => setTimeout(r, 400));
    process.kill(-p.pid!, 'SIGTERM');
    await new Promise((r) => p.once('exit', r));
    await new Promise((r) => setTimeout(r, 200));
    expect(fs.readFileSync(f, 'utf8')).toBe('old\n');
    expect(fs.readdirSync(dir).filter((n) => n.startsWith('.gpu-desk'))).toEqual([]);
  });
});

describe('set-up plan: xclip for image copy and paste', () => {
  it('a server without xclip gets a step installing it, done once xclip is on PATH (EPEL first on RHEL); one with xclip gets none', () => {
    expect(buildSetupPlan(report({ ...freshGpu('os-release-debian-12.txt'), clip: 'xclip' })).steps.map((s) => s.id)).not.toContain('xclip');
    for (const file of ['os-release-ubuntu-22.04.txt', 'os-release-debian-12.txt', 'os-release-rocky-9.txt']) {
      const step = buildSetupPlan(report({ ...freshGpu(file), clip: 'xsel' })).steps.find((s) => s.id === 'xclip')!;
      expect(step.check).toBe('command -v xclip >/dev/null 2>&1');
      expect(step.apply).toMatch(/install -y .*xclip/);
      if (file.includes('rocky')) expect(step.apply).toMatch(/epel-release/);
      expect(step.text).toEqual({ key: 'xclip', params: {} });
    }
  });
});
