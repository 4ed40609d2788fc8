/**
 * GPU paths end to end over real SSH, with shims for what cannot exist here (NVIDIA GPU, VirtualGL,
 * TurboVNC) — see test/shims/README.md. The sshd, the account, the probe script and the X server
 * behind the TurboVNC shim are real.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { execFileSync, spawn } from 'node:child_process';
import { vncAuthenticates } from './rfb';
import { probeServer, queryGpus } from '../../../src/core/remote/probe';
import { buildSetupPlan, formatPlan } from '../../../src/core/remote/setupPlan';
import { checkPlan } from '../../../src/core/remote/planRunner';
import { killSession, listSessions, newOneTimePassword, startSession } from '../../../src/core/remote/vncSessions';

const SHIMS = path.resolve(__dirname, '../../shims');
const OPT = path.join(SHIMS, 'opt');
let bed: SshdBed;
let conn: SshConnection;
const started: number[] = [];

beforeAll(async () => {
  bed = await startSshd({ extraConfig: [`SetEnv PATH=${SHIMS}/bin:/usr/local/bin:/usr/bin:/bin`] });
  conn = await connectSsh(bedOptions(bed));
});
afterAll(async () => {
  for (const d of started) await killSession(conn, d, { optRoot: OPT, flavor: 'turbovnc' }).catch(() => {});
  await conn?.close();
  await cleanupAll();
});

describe('shim: GPU server probe → findings → plan over SSH', () => {
  it('shim nvidia-smi, VirtualGL 3 and TurboVNC are found; findings and the GLX plan follow', async () => {
    const r = await probeServer(conn, { optRoot: OPT });
    expect(r.gpus.map((g) => [g.index, g.name, g.driverVersion])).toEqual([
      [0, 'NVIDIA A100-SXM4-80GB', '535.183.01'],
      [1, 'NVIDIA A100-SXM4-80GB', '535.183.01'],
    ]);
    expect(r.nvidia.driverLoaded).toBe(true);
    expect(r.virtualgl).toMatchObject({ installed: true, hasEglBackend: true, binDir: `${OPT}/VirtualGL/bin`, eglUsable: false });
    expect(r.vnc).toMatchObject({ flavor: 'turbovnc', version: '3.1.1', vncserverPath: `${OPT}/TurboVNC/bin/vncserver` });
    expect(r.vnc.tigervnc.installed).toBe(true);
    // No /dev/dri/card here, so only the GLX back end is possible, and there is no 3D X server on :0.
    const codes = r.findings.map((f) => f.code);
    expect(codes).toContain('NO_3D_X_SERVER');
    expect(codes).not.toContain('NO_NVIDIA_DRIVER');
    expect(codes).not.toContain('VIRTUALGL_MISSING');
    expect(codes).not.toContain('NO_VNC_SERVER');

    const plan = buildSetupPlan(r, { optRoot: OPT });
    expect(plan.backend).toBe('glx');
    const ids = plan.steps.map((s) => s.id);
    expect(ids).toEqual(['gl-libraries', 'window-manager', 'virtualgl', 'glx-xserver', 'vnc-server', 'vnc-localhost']);
    expect(plan.steps.find((s) => s.id === 'glx-xserver')!.apply).toContain('--busid PCI:7:0:0');
    expect(formatPlan(plan)).toContain(`${OPT}/VirtualGL/bin/vglserver_config -config -s -f -t`);

    // The checks run on the server: the shim VirtualGL and TurboVNC count as installed.
    const status = await checkPlan(conn, plan);
    expect(status.virtualgl).toBe('done');
    expect(status['vnc-server']).toBe('done');
    expect(status['glx-xserver']).toBe('pending');
    expect(status['vnc-localhost']).toBe('pending');
  });

  it('shim: queryGpus samples just the GPUs in one cheap call', async () => {
    const g = await queryGpus(conn);
    expect(g.map((x) => [x.index, x.utilizationPct, x.memoryUsedMiB])).toEqual([[0, 0, 4], [1, 97, 18213]]);
  });

  it('shim: without VirtualGL on the server, the missing-VirtualGL finding is an error on a GPU server', async () => {
    const r = await probeServer(conn, { optRoot: '/nonexistent-opt' });
    expect(r.gpus).toHaveLength(2);
    const f = r.findings.find((x) => x.code === 'VIRTUALGL_MISSING');
    expect(f?.severity).toBe('error');
    expect(r.vnc.flavor).toBe('tigervnc');
  });
});

describe('shim: the window manager runs under VirtualGL when VirtualGL can render', () => {
  it('shim: refuses virtualgl "on" with the reason when it cannot render here', async () => {
    const e = await startSession(conn, { optRoot: OPT, virtualgl: 'on', windowManager: 'xterm' }).catch((x) => x);
    expect(e.code).toBe('VNC_SESSION_FAILED');
    expect(e.message).toContain('VirtualGL cannot render here: no /dev/dri/card');
  });

  it('shim: TurboVNC gets -vgl with VGL_DISPLAY=egl when the EGL back end is usable', async () => {
    const r = await probeServer(conn, { optRoot: OPT });
    // This machine has no GPU: take the probe's report and mark EGL usable, as on a configured server.
    const report = { ...r, virtualgl: { ...r.virtualgl, eglUsable: true, eglReason: 'renders through /dev/dri/card1' } };
    const s = await startSession(conn, { optRoot: OPT, report, windowManager: 'xterm' });
    started.push(s.display);
    const rec = fs.readFileSync(`${bed.home}/.vnc/${execFileSync('uname', ['-n']).toString().trim()}:${s.display}.shim`, 'utf8');
    expect(rec).toContain('wm=xterm vgl=1 VGL_DISPLAY=egl args= -localhost');
    await killSession(conn, s.display, { optRoot: OPT });
    started.splice(started.indexOf(s.display), 1);
  });

  it('shim: TigerVNC runs the window manager through vglrun -d egl +wm', async () => {
    const r = await probeServer(conn, { optRoot: OPT });
    const report = { ...r, virtualgl: { ...r.virtualgl, eglUsable: true } };
    const s = await startSession(conn, { optRoot: OPT, report, flavor: 'tigervnc', windowManager: 'xterm' });
    try {
      expect(s.flavor).toBe('tigervnc');
      // The wrapper stays alive for the session; its command line shows the session command.
      const wrapper = execFileSync('ps', ['-u', bed.user, '-o', 'args=']).toString().split('\n').find((l) => l.includes(`tigervncserver :${s.display} `) || l.includes(`vncserver :${s.display} `));
      expect(wrapper).toContain(`-xstartup ${OPT}/VirtualGL/bin/vglrun -- -d egl +wm xterm`);
    } finally {
      await killSession(conn, s.display, { optRoot: OPT, flavor: 'tigervnc' });
    }
  });
});

describe('shim: TurboVNC sessions with one-time passwords', () => {
  it('start (OTP, -localhost, -wm) → list → new OTP → kill, with a real X server behind the shim', async () => {
    const s = await startSession(conn, { optRoot: OPT, geometry: '800x600', windowManager: 'xterm' });
    started.push(s.display);
    expect(s.flavor).toBe('turbovnc');
    expect(s.passwordKind).toBe('otp');
    expect(s.password).toMatch(/^\d{8}$/);
    expect(s.localhostOnly).toBe(true);
    expect(s.port).toBe(5900 + s.display);
    await new Promise<void>((res, rej) => net.connect(s.port, '127.0.0.1').on('connect', function (this: net.Socket) { this.destroy(); res(); }).on('error', rej));
    // No VNC password file was written by gpu-desk: TurboVNC's ~/.vnc/passwd does not exist.
    expect(fs.existsSync(`${bed.home}/.vnc/passwd`)).toBe(false);

    const listed = (await listSessions(conn, { optRoot: OPT })).find((x) => x.display === s.display);
    expect(listed).toMatchObject({ flavor: 'turbovnc', localhostOnly: true });

    expect(await vncAuthenticates(s.port, s.password!)).toBe(true);
    const otp = await newOneTimePassword(conn, s.display, { optRoot: OPT });
    expect(otp).toMatch(/^\d{8}$/);
    // (The shim emulates OTPs with a password file: the new one replaces the old.)
    expect(await vncAuthenticates(s.port, otp)).toBe(true);

    await killSession(conn, s.display, { optRoot: OPT });
    started.splice(started.indexOf(s.display), 1);
    expect((await listSessions(conn, { optRoot: OPT })).find((x) => x.display === s.display && x.flavor === 'turbovnc')).toBeUndefined();
  });

  it('a display whose wrapper is still stopping (pid file left, X lock gone) is not picked by the next start', async () => {
    // TigerVNC's wrapper removes its pid file only once its X server is dead, after the X lock is gone;
    // a start on that display meanwhile was killed by the old wrapper's clean-up (both share ~/.vnc).
    const host = execFileSync('uname', ['-n']).toString().trim();
    const taken = (n: number) => fs.existsSync(`/tmp/.X${n}-lock`) || fs.existsSync(`/tmp/.X11-unix/X${n}`) || fs.readdirSync(`${bed.home}/.vnc`).some((f) => f.endsWith(`:${n}.pid`));
    let d = 1;
    while (taken(d)) d++;
    const stopping = spawn('sleep', ['60'], { stdio: 'ignore' });
    const pidFile = `${bed.home}/.vnc/${host}:${d}.pid`;
    fs.writeFileSync(pidFile, `${stopping.pid}\n`);
    let s: Awaited<ReturnType<typeof startSession>> | undefined;
    try {
      s = await startSession(conn, { optRoot: OPT, geometry: '800x600', windowManager: 'xterm' });
      started.push(s.display);
      expect(s.display).not.toBe(d);
    } finally {
      fs.rmSync(pidFile, { force: true });
      stopping.kill('SIGKILL');
      if (s) {
        await killSession(conn, s.display, { optRoot: OPT });
        started.splice(started.indexOf(s.display), 1);
      }
    }
  });
});
