/**
 * The whole set-up plan, run by the CLI through sudo as a normal account, on a fresh Debian 12 server
 * with nothing installed (test/bed/freshServer.ts: an mmdebstrap root with its own sshd in a chroot),
 * its VirtualGL and TurboVNC packages from a loopback mirror of ../shared/vendor with SHA256SUMS.
 * In order, on one server (each install is done once; a later test builds on the earlier ones):
 * probe → a run cut off mid-install → the next run finishes it and stops at a tampered package →
 * a run with the right package completes → probe clean → a run with nothing to do → a desktop under
 * VirtualGL.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDelayProxy } from '../../bed/delayProxy';
import { cleanupAll, isRoot, makeTempDir, registerCleanup, startFreshServer, startPackageMirror, VENDOR_DIR, type FreshServer, type PackageMirror } from '../../bed';
import { eventually } from '../../helpers/until';
import { deskCli, type CliRun } from '../../bed/userDesk';

const TURBO_DEB = 'turbovnc_3.3_amd64.deb';
// Installs from Debian's archive on 2 shared cores: minutes, not seconds.
const INSTALL_MS = 15 * 60_000;

let server: FreshServer;
let mirror: PackageMirror;
let home: string;

if (!isRoot) console.log('freshServer.test.ts: not running as root, so no chroot server can be made; these tests cannot run here');

/** The real CLI against the server, with this test's own home, key and known_hosts (test/bed/userDesk.ts). */
const cli = (args: string[], opts: { port?: number; stdin?: string; onLine?(line: string): void } = {}) => deskCli(server, home).run(args, opts);

const applyArgs = (...extra: string[]) => ['setup', '--apply', '--yes', '--sudo-password-stdin', '--packages-from', mirror.url, '--wm', 'openbox', ...extra];
const events = (out: string) => out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { type: string; stepId?: string; text?: string; ok?: boolean; applied?: string[] });
const audit = () => server.rootSh('dpkg --audit').out.trim();
const installed = (pkg: string) => server.rootSh(`dpkg-query -W -f='\${Status}' ${pkg} 2>/dev/null`, { allowFail: true }).out.includes('install ok installed');

async function probe() {
  const r = await cli(['probe', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as {
    os: { distro: string }; sudo: string; user: string;
    virtualgl: { installed: boolean; version: string | null };
    vnc: { flavor: string | null; version: string | null };
    windowManagers: string[];
    findings: { severity: string; code: string; message: string; fix: string }[];
  };
}

/** apt/dpkg processes left running inside the server (an orphan of a dropped connection). */
function packageProcesses(): number {
  return server.rootSh("ps -eo comm= | grep -cE '^(apt-get|dpkg|apt)$' || true", { allowFail: true }).out.trim() === '0' ? 0 : 1;
}

describe.runIf(isRoot)('the set-up plan on a fresh Debian 12 server (chroot bed, real apt, sudo, packages from a mirror)', () => {
  beforeAll(async () => {
    [server, mirror] = await Promise.all([startFreshServer(), startPackageMirror()]);
    home = makeTempDir('gd-freshcli-');
  }, INSTALL_MS);
  afterAll(cleanupAll, 120_000);

  it('probe: Debian 12 with no VirtualGL, no VNC server and no window manager, each finding with its fix', async () => {
    const r = await probe();
    expect(r.os.distro).toBe('debian-12');
    expect(r.user).toBe(server.user);
    expect(r.sudo).toBe('password');
    expect(r.virtualgl.installed).toBe(false);
    expect(r.vnc.flavor).toBeNull();
    expect(r.windowManagers).toEqual([]);
    const byCode = new Map(r.findings.map((f) => [f.code, f]));
    for (const code of ['NO_NVIDIA_DRIVER', 'VIRTUALGL_MISSING', 'NO_VNC_SERVER', 'NO_WINDOW_MANAGER', 'NO_FFMPEG']) {
      expect(byCode.get(code)?.fix, code).toMatch(/\w/);
    }
    expect(byCode.get('NO_VNC_SERVER')?.severity).toBe('error');
    const text = await cli(['probe']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/Debian GNU\/Linux 12/);
    expect(text.stdout).toMatch(/No VNC server is installed/);
  }, 120_000);

  it('a run cut off during a package install (the SSH connection dropped) stops with a clear error', async () => {
    const proxy = await startDelayProxy({ targetPort: server.port, delayMs: 0 });
    let cut = false;
    let killed = 0;
    const r = await cli(applyArgs('--json'), {
      port: proxy.port,
      stdin: `${server.password}\n`,
      onLine: (l) => {
        // Cut while dpkg is unpacking the GL libraries: half of the packages are in, half are not.
        if (!cut && l.startsWith('{') && /"stepId":"gl-libraries"/.test(l) && /Unpacking /.test(l)) {
          cut = true;
          void proxy.stop();
          // The worst case: the install dies with the connection, dpkg in the middle of unpacking.
          killed = server.killInside(['apt-get', 'dpkg', 'dpkg-deb', 'sudo']);
        }
      },
    });
    expect(cut).toBe(true);
    expect(r.code).not.toBe(0);
    expect(r.stderr.trim().split('\n').pop()).toMatch(/^error: The connection dropped during step "Install the OpenGL libraries"; the step may not have finished — Reconnect and run the plan again/);
    expect(r.stdout + r.stderr).not.toContain(server.password);
    expect(killed).toBeGreaterThan(0);
    await eventually('apt and dpkg in the server to be gone', () => packageProcesses() === 0, 60_000);
    // Halfway: dpkg has packages unpacked but not configured, and the step's packages are not all in.
    expect(audit()).not.toBe('');
    expect(installed('mesa-utils') && installed('libglew-dev') && installed('freeglut3-dev')).toBe(false);
  }, INSTALL_MS);

  it('the next run finishes the cut-off install; a package whose SHA-256 does not match stops its step and is not installed', async () => {
    const tampered = Buffer.from(fs.readFileSync(path.join(VENDOR_DIR, TURBO_DEB)));
    tampered[tampered.length - 64] ^= 0xff;
    mirror.override(TURBO_DEB, tampered);
    let r: CliRun;
    try {
      r = await cli(applyArgs('--json'), { stdin: `${server.password}\n` });
    } finally {
      mirror.override(TURBO_DEB, null);
    }
    expect(r.code, r.stderr).toBe(1);
    const ev = events(r.stdout);
    // On a miss, what the run said: its error line and the last lines of the steps' own output.
    const out = ev.filter((e) => e.type === 'output').map((e) => `${e.stepId}: ${e.text ?? ''}`);
    const said = `${r.stderr.trim()}\ndpkg's own complaints:\n${out.filter((l) => /dpkg: |error processing|inconsistent|half-installed/i.test(l)).join('\n')}\nthe last output:\n${out.slice(-30).join('\n')}`;
    expect(ev.filter((e) => e.type === 'step-done').map((e) => e.stepId), said).toEqual(['gl-libraries', 'window-manager', 'virtualgl']);
    expect(ev.filter((e) => e.type === 'step-failed').map((e) => e.stepId), said).toEqual(['vnc-server']);
    expect(ev.some((e) => e.type === 'output' && e.stepId === 'virtualgl' && /virtualgl_3\.1\.4_amd64\.deb: SHA-256 [0-9a-f]{64} matches/.test(e.text ?? ''))).toBe(true);
    const error = r.stderr.trim().split('\n').pop()!;
    expect(error).toMatch(/^error: Step "Install TurboVNC 3\.3[^"]*" failed with exit status 4: SHA-256 mismatch for turbovnc_3\.3_amd64\.deb: the download was deleted and nothing was installed; check the mirror, then run the plan again — /);
    expect(ev.some((e) => e.type === 'output' && e.stepId === 'vnc-server' && /SHA256SUMS says SHA-256 9d29270c[0-9a-f]{56}, the download has [0-9a-f]{64}/.test(e.text ?? ''))).toBe(true);
    // Nothing half-installed: dpkg is consistent, TurboVNC is absent, the download is gone.
    expect(audit()).toBe('');
    expect(installed('turbovnc')).toBe(false);
    expect(fs.existsSync(path.join(server.root, 'opt/TurboVNC'))).toBe(false);
    expect(server.rootSh(`find /tmp /var/tmp -name ${TURBO_DEB}`).out.trim()).toBe('');
    // The cut-off install was finished by this run.
    expect(installed('mesa-utils') && installed('libglew-dev') && installed('freeglut3-dev')).toBe(true);
  }, INSTALL_MS);

  it('with the right package the run completes step by step, and the report afterwards has no error but the missing GPU', async () => {
    const r = await cli(applyArgs(), { stdin: `${server.password}\n` });
    expect(r.code, r.stderr + r.stdout.slice(-2000)).toBe(0);
    const lines = r.stdout.split('\n');
    // The window manager is there now, so the plan has no step for it.
    expect(lines, r.stdout.slice(-3000)).toContain('[1/7] Install the OpenGL libraries: already done');
    expect(lines).toContain('[2/7] Install VirtualGL 3.1.4: already done');
    expect(lines.some((l) => /^\[3\/7\] Install TurboVNC 3\.3 .*: running…$/.test(l))).toBe(true);
    expect(lines.some((l) => /^\[3\/7\] Install TurboVNC 3\.3 .*: done \(\d+\.\d s\)$/.test(l))).toBe(true);
    expect(lines.some((l) => /^\[4\/7\] Keep VNC sessions on localhost: done \(\d+\.\d s\)$/.test(l))).toBe(true);
    // Debian's ffmpeg, whose libx264 then encodes the step's check frame.
    expect(lines.some((l) => /^\[5\/7\] Install ffmpeg for video mode: done \(\d+\.\d s\)$/.test(l))).toBe(true);
    // Debian's loader, vulkaninfo and Mesa's Vulkan drivers (no NVIDIA driver here), whose lavapipe the step's check lists.
    expect(lines.some((l) => /^\[6\/7\] Install Vulkan \(the loader, vulkaninfo and Mesa's Vulkan drivers\): done \(\d+\.\d s\)$/.test(l))).toBe(true);
    // xclip, for image copy and paste (the fresh root has none).
    expect(lines.some((l) => /^\[7\/7\] Install xclip for image copy and paste: done \(\d+\.\d s\)$/.test(l))).toBe(true);
    expect(r.stdout).toContain('The server is set up.');
    expect(r.stdout + r.stderr).not.toContain(server.password);
    expect(audit()).toBe('');

    const report = await probe();
    expect(report.virtualgl).toMatchObject({ installed: true, version: '3.1.4' });
    expect(report.vnc).toMatchObject({ flavor: 'turbovnc', version: '3.3' });
    expect(report.windowManagers).toContain('openbox-session');
    expect(report.findings.filter((f) => f.severity === 'error').map((f) => f.code)).toEqual(['NO_NVIDIA_DRIVER']);
  }, INSTALL_MS);

  it('a second apply runs no install command: every check passes', async () => {
    const r = await cli(applyArgs('--json'), { stdin: `${server.password}\n` });
    expect(r.code, r.stderr).toBe(0);
    const ev = events(r.stdout);
    // No xclip step: the probe before the plan finds xclip now (as the window manager, which has no step either).
    expect(ev.filter((e) => e.type === 'step-skip').map((e) => e.stepId)).toEqual(['gl-libraries', 'virtualgl', 'vnc-server', 'vnc-localhost', 'ffmpeg', 'vulkan']);
    expect(ev.filter((e) => e.type === 'step-start' || e.type === 'output')).toEqual([]);
    expect(ev.at(-1)).toEqual({ type: 'finished', ok: true, applied: [] });
  }, 120_000);

  it('sessions start gives a TurboVNC desktop with its window manager under VirtualGL: glxinfo in it reports VirtualGL on the EGL device', async () => {
    const r = await cli(['sessions', 'start', '--geometry', '800x600', '--json']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const s = JSON.parse(r.stdout) as { display: number; flavor: string; unixPath: string | null; port: number | null; localhostOnly: boolean; passwordKind: string };
    let killed = false;
    registerCleanup(async () => { if (!killed) await cli(['sessions', 'kill', String(s.display)]); });
    expect(s).toMatchObject({ flavor: 'turbovnc', port: null, localhostOnly: true, passwordKind: 'otp', unixPath: `${server.home}/.vnc/gpu-desk-${s.display}.sock` });

    // The desktop's window manager, found by the X display in its own environment.
    await eventually(`openbox on :${s.display}`, () => server.desktopEnv(s.display) !== null, 60_000);
    const env = server.desktopEnv(s.display)!;
    const envVar = (k: string) => env.find((e) => e.startsWith(`${k}=`))?.slice(k.length + 1);
    // vglrun +wm put VirtualGL's interposers in front of the window manager, on the EGL device the probe chose.
    expect(envVar('LD_PRELOAD')).toMatch(/libvglfaker/);
    expect(envVar('VGL_DISPLAY')).toBe('egl0');

    // A program started from the desktop inherits the window manager's environment: run glxinfo with
    // exactly that, as the session's user, and read what VirtualGL and Mesa themselves print.
    const glx = server.runAs([...env, 'VGL_VERBOSE=1'], 'exec glxinfo 2>&1').out;
    expect(glx).toMatch(/^\[VGL\] Opening EGL device egl0$/m);
    expect(glx).toMatch(/^server glx vendor string: VirtualGL$/m);
    expect(glx).toMatch(/^client glx vendor string: VirtualGL$/m);
    expect(glx).toMatch(/^direct rendering: Yes$/m);
    expect(glx).toMatch(/^OpenGL renderer string: llvmpipe/m);

    const k = await cli(['sessions', 'kill', String(s.display)]);
    expect(k.code, k.stderr).toBe(0);
    killed = true;
    const list = await cli(['sessions', 'list', '--json']);
    expect((JSON.parse(list.stdout) as { display: number }[]).map((x) => x.display)).not.toContain(s.display);
  }, 300_000);
});
