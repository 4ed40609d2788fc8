/**
 * Issue 42: a GPU desktop where the account has no sudo. A fresh Debian 12 server (test/bed/freshServer.ts)
 * whose administrator installed only a GPU driver (Mesa's EGL/GL/Vulkan libraries stand for it), with a
 * render node only the render group may open, and an account in no administrator's group. The real CLI,
 * from nothing, in order on one server: probe → plan (into the home, no administrator) → a tampered
 * TurboVNC package and a cut-off VirtualGL download, each leaving nothing half-installed → the next apply
 * finishes → probe finds the user install → a second plan has every step done → a TurboVNC desktop through
 * gpu-desk's tunnel, where glxspheres64 under the user's vglrun (EGL back end) and vkcube (lavapipe) draw,
 * and an RFB viewer through the tunnel holds exactly what the server's own screenshot shows → no file
 * outside the user's home changed. The upstream packages come from the bed's mirror of ../shared/vendor;
 * the distribution's from Debian's archive, downloaded by the account itself.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, isRoot, listingChanges, makeTempDir, startFreshServer, startPackageMirror, VENDOR_DIR, type FreshServer, type PackageMirror } from '../../bed';
import { applyEvents, deskCli, desktop3d, type DeskCli } from '../../bed/userDesk';
import { until } from '../../helpers/until';
import { connectSsh } from '../../../src/core/ssh/connection';
import { desktopRunState, runInDesktop } from '../../../src/core/remote/desktopRun';

const TURBO_DEB = 'turbovnc_3.3_amd64.deb';
const VGL_DEB = 'virtualgl_3.1.4_amd64.deb';
const NAME = 'turbovnc-3.3_virtualgl-3.1.4';
const BASE = '.local/share/gpu-desk';
const STEPS = ['user-turbovnc', 'user-virtualgl', 'user-deps', 'user-window-manager', 'user-env'];
// Downloads from Debian's archive as the user and unpacks them, on 2 shared cores: minutes, not seconds.
const INSTALL_MS = 15 * 60_000;
/** The render node a GPU driver made for its group: the account may not open it. */
const RENDER_NODE = { path: '/dev/dri/renderD128', major: 226, minor: 128, group: 'render', mode: 0o660 };

let server: FreshServer;
let mirror: PackageMirror;
let desk: DeskCli;
let before: Map<string, string>;

if (!isRoot) console.log('userInstall.test.ts: not running as root, so no chroot server can be made; these tests cannot run here');

interface Report {
  sudo: string;
  dri: { path: string; kind: string; group: string | null; accessible: boolean }[];
  virtualgl: { installed: boolean; version: string | null; binDir: string | null; eglUsable: boolean; eglDevice: string | null };
  vnc: { flavor: string | null; turbovnc: { installed: boolean; version: string | null; binDir: string | null } };
  windowManagers: string[];
  findings: { severity: string; code: string; message: string; fix: string }[];
}

async function probe(): Promise<Report> {
  const r = await desk.run(['probe', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Report;
}

interface PlanJson {
  steps: { id: string; needsRoot: boolean; status: string; title: string }[];
  notes: string[];
  userInstall?: { prefix: string; diskMB: number; windowManager: string };
}

async function plan(...extra: string[]): Promise<PlanJson> {
  const r = await desk.run(['setup', '--plan', '--json', '--packages-from', mirror.url, ...extra]);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as PlanJson;
}

const apply = (...extra: string[]) => desk.run(['setup', '--apply', '--yes', '--json', '--packages-from', mirror.url, ...extra]);
/** In the server, as a path on this machine. */
const inHome = (rel: string) => path.join(server.root, server.home, rel);
/** What a step leaves while it works (its temporary directory) or after a cut (a partial download): none may remain. */
const leftovers = () => server.rootSh(`find ${server.home}/${BASE} /tmp /var/tmp -maxdepth 2 \\( -name '.tmp-*' -o -name '*.deb' -o -name '*.part' \\) 2>/dev/null || true`).out.trim();

/** On a miss, what the run said: its error line and its steps' last output. */
function said(r: { stdout: string; stderr: string }): string {
  const out = applyEvents(r.stdout).filter((e) => e.type === 'output').map((e) => `${e.stepId}: ${e.text ?? ''}`);
  return `${r.stderr.trim()}\nthe last output:\n${out.slice(-30).join('\n')}`;
}

describe.runIf(isRoot)('a GPU desktop where the account has no sudo (fresh Debian 12, a GPU driver only, install into the home)', () => {
  beforeAll(async () => {
    [server, mirror] = await Promise.all([
      startFreshServer({ account: 'no-sudo', packages: 'gpu-driver', gpuNodes: [RENDER_NODE] }),
      startPackageMirror(),
    ]);
    desk = deskCli(server, makeTempDir('gd-userinst-'));
    before = server.listing();
  }, INSTALL_MS);
  afterAll(cleanupAll, 120_000);

  it('probe: no sudo, no TurboVNC or VirtualGL anywhere, the render node the account cannot open named with its group and who can fix it', async () => {
    const r = await probe();
    // sudo is there, but the account is in no group sudoers names: the probe does not ask it.
    expect(r.sudo).toBe('unknown');
    expect(r.virtualgl).toMatchObject({ installed: false, binDir: null });
    expect(r.vnc.flavor).toBeNull();
    expect(r.vnc.turbovnc).toMatchObject({ installed: false, binDir: null });
    expect(r.windowManagers).toEqual([]);
    expect(r.dri).toEqual([expect.objectContaining({ path: RENDER_NODE.path, kind: 'render', group: 'render', accessible: false })]);
    const node = r.findings.filter((f) => f.message.includes(RENDER_NODE.path));
    expect(node, JSON.stringify(r.findings)).toHaveLength(1);
    expect(node[0].message + node[0].fix).toMatch(/\brender\b/);
    expect(node[0].fix).toMatch(/administrator/i);
  }, 120_000);

  it('plan: chosen by itself for an account without sudo, every step as the user, into the home, no administrator; --user-install gives the same', async () => {
    const p = await plan();
    expect(p.steps.map((s) => s.id)).toEqual(STEPS);
    expect(p.steps.filter((s) => s.needsRoot)).toEqual([]);
    expect(p.steps.map((s) => s.status)).toEqual(STEPS.map(() => 'pending'));
    expect(p.userInstall).toMatchObject({ prefix: `~/${BASE}/${NAME}`, windowManager: 'openbox' });
    expect(p.userInstall!.diskMB).toBeGreaterThan(0);
    expect((await plan('--user-install')).steps.map((s) => s.id)).toEqual(STEPS);
    const text = await desk.run(['setup', '--plan', '--packages-from', mirror.url]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(new RegExp(`installs into your home \\(~/${BASE}/${NAME}\\); no administrator needed`, 'i'));
    expect(text.stdout).not.toMatch(/\bsudo\b/);
  }, 120_000);

  it('a TurboVNC package whose SHA-256 does not match stops its step with one line, and nothing of it is left', async () => {
    const tampered = Buffer.from(fs.readFileSync(path.join(VENDOR_DIR, TURBO_DEB)));
    tampered[tampered.length - 64] ^= 0xff;
    mirror.override(TURBO_DEB, tampered);
    let r;
    try {
      r = await apply();
    } finally {
      mirror.override(TURBO_DEB, null);
    }
    expect(r.code, said(r)).toBe(1);
    const ev = applyEvents(r.stdout);
    expect(ev.filter((e) => e.type === 'step-failed').map((e) => e.stepId), said(r)).toEqual(['user-turbovnc']);
    expect(ev.filter((e) => e.type === 'step-done')).toEqual([]);
    const lines = r.stderr.trim().split('\n');
    expect(lines.at(-1), said(r)).toMatch(/^error: .*SHA-256 mismatch for turbovnc_3\.3_amd64\.deb.*nothing was installed/);
    expect(fs.existsSync(inHome(`${BASE}/${NAME}/TurboVNC`))).toBe(false);
    expect(fs.existsSync(inHome(`${BASE}/current`))).toBe(false);
    expect(leftovers()).toBe('');
  }, INSTALL_MS);

  it('a VirtualGL download cut off halfway stops its step with one line; TurboVNC stays in, VirtualGL is not half there', async () => {
    const size = fs.statSync(path.join(VENDOR_DIR, VGL_DEB)).size;
    mirror.cut(VGL_DEB, Math.floor(size / 2));
    let r;
    try {
      r = await apply();
    } finally {
      mirror.cut(VGL_DEB, null);
    }
    expect(r.code, said(r)).toBe(1);
    const ev = applyEvents(r.stdout);
    expect(ev.filter((e) => e.type === 'step-done').map((e) => e.stepId), said(r)).toEqual(['user-turbovnc']);
    expect(ev.filter((e) => e.type === 'step-failed').map((e) => e.stepId), said(r)).toEqual(['user-virtualgl']);
    expect(r.stderr.trim().split('\n').at(-1), said(r)).toMatch(/^error: .*could not download virtualgl_3\.1\.4_amd64\.deb.*cut off.*nothing was installed/);
    expect(fs.existsSync(inHome(`${BASE}/${NAME}/TurboVNC/bin/Xvnc`))).toBe(true);
    expect(fs.existsSync(inHome(`${BASE}/${NAME}/VirtualGL`))).toBe(false);
    expect(leftovers()).toBe('');
  }, INSTALL_MS);

  it('the next apply finishes the install as the user, and the probe then finds it in the home', async () => {
    const r = await apply();
    expect(r.code, said(r)).toBe(0);
    const ev = applyEvents(r.stdout);
    expect(ev.filter((e) => e.type === 'step-skip').map((e) => e.stepId)).toEqual(['user-turbovnc']);
    expect(ev.filter((e) => e.type === 'step-done').map((e) => e.stepId), said(r)).toEqual(STEPS.slice(1));
    expect(ev.some((e) => e.stepId === 'user-virtualgl' && /virtualgl_3\.1\.4_amd64\.deb: SHA-256 [0-9a-f]{64} matches/.test(e.text ?? ''))).toBe(true);
    expect(ev.at(-1)).toMatchObject({ type: 'finished', ok: true });
    // Every file of the install is the account's own.
    expect(server.rootSh(`find ${server.home}/${BASE} ! -user ${server.user} | head -n 5`).out.trim()).toBe('');

    const report = await probe();
    const prefix = `${server.home}/${BASE}`;
    expect(report.vnc).toMatchObject({ flavor: 'turbovnc', turbovnc: { installed: true, version: '3.3' } });
    expect(report.vnc.turbovnc.binDir).toMatch(new RegExp(`^${prefix}/`));
    expect(report.virtualgl).toMatchObject({ installed: true, version: '3.1.4', eglUsable: true });
    expect(report.virtualgl.binDir).toMatch(new RegExp(`^${prefix}/`));
    expect(report.findings.filter((f) => f.severity === 'error').map((f) => f.code)).toEqual(['NO_NVIDIA_DRIVER']);
  }, INSTALL_MS);

  it('a second plan says every step is done, and a second apply runs nothing', async () => {
    const p = await plan();
    // The window manager is there now (the home install's Openbox, on the probe's PATH), so the plan has no step for it.
    expect(p.steps.map((s) => [s.id, s.status])).toEqual(STEPS.filter((id) => id !== 'user-window-manager').map((id) => [id, 'done']));
    const r = await apply();
    expect(r.code, r.stderr).toBe(0);
    const ev = applyEvents(r.stdout);
    expect(ev.filter((e) => e.type === 'step-start' || e.type === 'output')).toEqual([]);
    expect(ev.at(-1)).toEqual({ type: 'finished', ok: true, applied: [] });
  }, 120_000);

  it('a TurboVNC desktop from the home install, through the tunnel: glxspheres64 under vglrun -d egl and vkcube draw, and the viewer shows exactly the server\'s screen', async () => {
    const d = await desktop3d(server, desk, { vkcube: true });
    const ui = `${server.home}/${BASE}/${NAME}`;
    expect(d.session).toMatchObject({ flavor: 'turbovnc', port: null, localhostOnly: true, passwordKind: 'otp', unixPath: `${server.home}/.vnc/gpu-desk-${d.session.display}.sock` });
    expect(d.socketMode).toBe(0o600);
    // The X server is the home install's Xvnc, and vglrun's directory is on the desktop's PATH.
    expect(d.xvncExe).toEqual([`${ui}/TurboVNC/bin/Xvnc`]);
    expect(d.desktopPath).toContain(`${ui}/bin`);
    expect(d.viewerSize).toEqual({ w: 800, h: 600 });
    // glxspheres64 by its bare name under the user's vglrun: VirtualGL's EGL back end, the faker from the home.
    expect(d.spheresLog).toMatch(/^\[VGL\] Opening EGL device/m);
    expect(d.spheresLog).toMatch(/OpenGL Renderer: llvmpipe/);
    expect(d.fakerMapped.length).toBeGreaterThan(0);
    expect(d.fakerMapped.every((f) => f.startsWith(`${ui}/VirtualGL/lib/`))).toBe(true);
    expect(d.coloursSpheres).toBeGreaterThan(d.coloursBare);
    expect(d.spheresUnlike).toBe(0);
    // vkcube on the driver's Vulkan (lavapipe), drawn in the viewer as the server shows it.
    expect(d.vkcube?.log).toMatch(/Selected GPU \d+: llvmpipe/);
    expect(d.vkcube?.unlike).toBe(0);
  }, 600_000);

  it('"Run in desktop…" finds the home install\'s vglrun by itself (no PATH set by hand): OpenGL renders on the EGL device', async () => {
    const ui = `${server.home}/${BASE}/${NAME}`;
    const s = await desk.run(['sessions', 'start', '--geometry', '640x480', '--json']);
    expect(s.code, s.stderr).toBe(0);
    const { display } = JSON.parse(s.stdout) as { display: number };
    // The app's own path: a connection as the user, then desktopRun.ts's script in the session's display.
    const conn = await connectSsh({
      destination: `${server.user}@${server.host}`, port: server.port, identityFiles: [server.userKeyPath], sshConfigPath: null,
      userKnownHostsFiles: [], globalKnownHostsFiles: [], appKnownHostsFile: path.join(makeTempDir('gd-userinst-run-'), 'known_hosts'),
      agent: false, reconnect: { enabled: false }, callbacks: { onUnknownHostKey: async () => 'accept-once' },
    });
    try {
      const run = await runInDesktop(conn, display, `VGL_VERBOSE=1 ${ui}/VirtualGL/bin/glxinfo -B`, 'egl');
      expect(run.vglrun).toBe(`${server.home}/${BASE}/current/bin/vglrun`);
      const st = await until(() => desktopRunState(conn, run), (x) => !x.running, 'glxinfo to end', 120_000);
      expect(st.exitCode, st.output).toBe(0);
      expect(st.output).toMatch(/^\[VGL\] Opening EGL device/m);
      expect(st.output).toMatch(/^OpenGL renderer string: llvmpipe/m);
    } finally {
      await conn.close();
      await desk.run(['sessions', 'kill', String(display)]);
    }
  }, 300_000);

  it('no file outside the user\'s home changed', () => {
    expect(listingChanges(before, server.listing())).toEqual([]);
  });
});
