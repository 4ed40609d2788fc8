import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { queryGpus } from '../../../src/core/remote/gpuFigures';
import { probeServer } from '../../../src/core/remote/probe';
import { displayEndpoint, killSession, listSessions, newOneTimePassword, startSession } from '../../../src/core/remote/vncSessions';
import { shellCommand } from '../../../src/core/remote/shellQuote';
import { applyPlan } from '../../../src/core/remote/planRunner';
import type { SetupPlan } from '../../../src/core/remote/types';
import { GpuDeskError } from '../../../src/core/errors';
import { HOSTILE_VALUES } from './hostile';
import { vncAuthenticates } from './rfb';
import { localVideoEncoders } from './localEncoders';

let bed: SshdBed;
let conn: SshConnection;
const started: number[] = [];

beforeAll(async () => {
  bed = await startSshd();
  conn = await connectSsh(bedOptions(bed));
});
afterAll(async () => {
  for (const d of started) await killSession(conn, d).catch(() => {});
  await conn?.close();
  await cleanupAll();
});

/** The RFB security types a server offers (RFB 3.8: count byte, then one byte per type). */
async function securityTypes(port: number): Promise<number[]> {
  const s = net.connect({ host: '127.0.0.1', port });
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    s.on('error', reject);
    s.on('data', (d) => {
      chunks.push(d);
      const b = Buffer.concat(chunks);
      if (b.length === 12) s.write('RFB 003.008\n');
      if (b.length > 12 && b.length >= 13 + b[12]) {
        s.destroy();
        resolve([...b.subarray(13, 13 + b[12])]);
      }
    });
  });
}

describe('probe on the real bed (Debian 12, no GPU, TurboVNC 3.3, VirtualGL 3.1.4, TigerVNC)', () => {
  // How long it takes is bench:probe's figure (timed assertions flake on a loaded machine).
  it('reports the OS, no NVIDIA GPU, TurboVNC 3.3 and TigerVNC, VirtualGL 3.1.4 on the software EGL device egl0, and the findings', async () => {
    const r = await probeServer(conn);
    expect(r.os.distro).toBe('debian-12');
    expect(r.user).toBe(bed.user);
    expect(r.gpus).toEqual([]);
    expect(r.nvidia.driverLoaded).toBe(false);
    expect(r.vnc).toMatchObject({ flavor: 'turbovnc', version: '3.3', vncserverPath: '/opt/TurboVNC/bin/vncserver' });
    expect(r.vnc.tigervnc).toMatchObject({ installed: true, version: expect.stringMatching(/^1\.\d+/) });
    expect(r.virtualgl).toMatchObject({ installed: true, version: '3.1.4', binDir: '/opt/VirtualGL/bin', hasEglBackend: true, eglUsable: true, eglDevice: 'egl0' });
    // Mesa's EGL device on this GPU-less machine: VirtualGL's own eglinfo lists it and names llvmpipe.
    expect(r.virtualgl.eglDevices[0]).toMatchObject({ id: 'egl0', kind: 'software', gpuVendor: null, renderer: expect.stringMatching(/llvmpipe/) });
    expect(r.virtualgl.eglReason).toMatch(/^renders on egl0 \(llvmpipe.*\), a software renderer: on the CPU/);
    const codes = r.findings.map((f) => f.code);
    expect(codes).toContain('NO_NVIDIA_DRIVER');
    expect(codes).not.toContain('VIRTUALGL_MISSING');
    expect(codes).not.toContain('NO_VNC_SERVER');
    const sw = r.findings.find((f) => f.code === 'EGL_SOFTWARE_RENDERER');
    expect(sw?.severity).toBe('warning');
    expect(sw?.message).toMatch(/egl0 is llvmpipe .*render on the CPU, not a GPU, because no GPU driver is loaded/);
    expect(await queryGpus(conn)).toEqual([]);
  });

  it("video mode's encoders: exactly those that encode a frame with this machine's ffmpeg, each failing one with ffmpeg's own reason, and the findings for them", async () => {
    const want = localVideoEncoders(bed.user);
    const r = await probeServer(conn);
    expect(r.video.encoders).toEqual(want.encoders);
    const best = want.encoders.find((e) => e.works)?.name ?? null;
    expect(r.video.best).toBe(best);
    const codes = r.findings.map((f) => f.code);
    if (!want.ffmpeg) {
      expect(r.video.ffmpeg).toBeNull();
      expect(codes).toContain('NO_FFMPEG');
      return;
    }
    expect(r.video.ffmpeg).toEqual({ path: expect.stringMatching(/\/ffmpeg$/), version: expect.stringMatching(/^ffmpeg version /) });
    expect(codes).not.toContain('NO_FFMPEG');
    // Video mode is optional: nothing about it is an error.
    for (const f of r.findings.filter((x) => ['NO_VIDEO_ENCODER', 'VIDEO_CPU_ONLY', 'NVENC_UNAVAILABLE', 'VAAPI_UNAVAILABLE', 'NO_RENDER_NODE'].includes(x.code))) expect(f.severity).not.toBe('error');
    if (best === 'libx264') expect(r.findings.find((f) => f.code === 'VIDEO_CPU_ONLY')?.severity).toBe('info');
    if (best === null) expect(codes).toContain('NO_VIDEO_ENCODER');
    // No NVIDIA driver on the bed: NVENC failing is expected there, and no finding.
    expect(codes).not.toContain('NVENC_UNAVAILABLE');
    if (!r.video.renderNode) expect(r.video.encoders.find((e) => e.name === 'h264_vaapi')).toEqual({ name: 'h264_vaapi', works: false, error: 'no /dev/dri/renderD* device' });
  });

  it('is one SSH round trip (one remote command)', async () => {
    const commands: string[] = [];
    const counting = { ...conn, state: conn.state, endpoint: conn.endpoint, rttMs: conn.rttMs, exec: (c: string, o?: object) => { commands.push(c); return conn.exec(c, o); } };
    await probeServer(counting as unknown as typeof conn);
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatch(/^sh -c '/);
  });
});

// Sessions start real X servers: on a machine shared by several test runs that can take minutes.
describe('TigerVNC sessions on the real bed', { timeout: 300_000 }, () => {
  it('start → listed with display, port and pid, on 127.0.0.1 only, VncAuth only → kill → gone', async () => {
    const s = await startSession(conn, { flavor: 'tigervnc', geometry: '1024x768', windowManager: '/usr/bin/xterm' });
    started.push(s.display);
    expect(s.flavor).toBe('tigervnc');
    expect(s.port).toBe(5900 + s.display);
    expect(s.localhostOnly).toBe(true);
    expect(s.listenAddresses.length).toBeGreaterThan(0);
    for (const a of s.listenAddresses) expect(['127.0.0.1', '::1']).toContain(a);
    expect(s.passwordKind).toBe('session');
    expect(s.password).toMatch(/^[A-Za-z0-9]{8}$/);
    // Really listening, and asking for a VNC password (type 2) and nothing weaker.
    expect(await securityTypes(s.port!)).toEqual([2]);
    // The password handed back is the one the server checks; a wrong one is refused.
    expect(await vncAuthenticates(s.port!, 'wrongpw1')).toBe(false);
    expect(await vncAuthenticates(s.port!, s.password!)).toBe(true);
    // The password file lives only in the server account's ~/.vnc, private.
    const pf = `${bed.home}/.vnc/gpu-desk-${s.display}.passwd`;
    expect(fs.statSync(pf).mode & 0o777).toBe(0o600);

    const listed = await listSessions(conn);
    const mine = listed.find((x) => x.display === s.display)!;
    expect(mine).toMatchObject({ display: s.display, port: s.port, flavor: 'tigervnc', localhostOnly: true });
    expect(mine.pid).toBeGreaterThan(1);
    expect(fs.existsSync(`/proc/${mine.pid}`)).toBe(true);

    const r = await probeServer(conn);
    expect(r.sessions.find((x) => x.display === s.display)).toMatchObject({ port: s.port, localhostOnly: true });
    // (Other test files may run open sessions at the same time: look only at ours.)
    expect(r.findings.filter((f) => f.code === 'SESSION_LISTENS_ON_ALL_INTERFACES' && f.message.includes(`:${s.display} `))).toEqual([]);

    await killSession(conn, s.display);
    started.splice(started.indexOf(s.display), 1);
    // This session gone: another test's desktop of the same account may take the freed number at once.
    const after = await listSessions(conn);
    expect(after.find((x) => x.display === s.display && x.pid === mine.pid)).toBeUndefined();
    if (!after.some((x) => x.display === s.display)) expect(fs.existsSync(pf)).toBe(false);
    await expect(new Promise((res, rej) => net.connect(s.port!, '127.0.0.1').on('connect', res).on('error', rej))).rejects.toThrow();
  });

  it('two sessions started at once get different displays; an explicit display is honoured', async () => {
    const [a, c] = await Promise.all([
      startSession(conn, { flavor: 'tigervnc', windowManager: '/usr/bin/xterm' }),
      startSession(conn, { flavor: 'tigervnc', windowManager: '/usr/bin/xterm' }),
    ]);
    started.push(a.display, c.display);
    expect(c.display).not.toBe(a.display);
    await killSession(conn, c.display);
    started.splice(started.indexOf(c.display), 1);
    let want = a.display + 7;
    // Other test files start X servers too: skip displays that are visibly taken on this machine.
    while (fs.existsSync(`/tmp/.X${want}-lock`) || fs.existsSync(`/tmp/.X11-unix/X${want}`)) want++;
    const b = await startSession(conn, { flavor: 'tigervnc', display: want, geometry: '800x600', windowManager: '/usr/bin/xterm' });
    started.push(b.display);
    expect(b.display).toBe(want);
    expect(b.port).toBe(5900 + want);
    expect(b.password).not.toBe(a.password);
    const ds = (await listSessions(conn)).map((x) => x.display);
    expect(ds).toEqual(expect.arrayContaining([a.display, b.display]));
    for (const d of [a.display, b.display]) {
      await killSession(conn, d);
      started.splice(started.indexOf(d), 1);
    }
  });

  it('bad input is refused with a one-line error before anything runs', async () => {
    const err = (p: Promise<unknown>) => p.then(() => null, (e) => e as GpuDeskError);
    expect((await err(startSession(conn, { display: 100 })))?.code).toBe('DISPLAY_OUT_OF_RANGE');
    expect((await err(startSession(conn, { geometry: '1024x768; id' })))?.code).toBe('BAD_ARGUMENT');
    expect((await err(startSession(conn, { windowManager: '$(id)' })))?.code).toBe('BAD_ARGUMENT');
    const k = await err(killSession(conn, 98));
    expect(k?.code).toBe('VNC_SESSION_FAILED');
    expect(k?.message).toContain(':98');
  });
});

/** Listening TCP sockets of one process, from the machine's own `ss` (the bed runs on this machine). */
function tcpListenersOf(pid: number): string[] {
  return execFileSync('ss', ['-Hltnp']).toString().split('\n').filter((l) => l.includes(`pid=${pid},`));
}

describe('TurboVNC 3.3 sessions on the real bed', { timeout: 300_000 }, () => {
  it('start → a Unix socket only (mode 0600, no TCP port) → OTP works once → a fresh OTP → kill removes the socket', async () => {
    const s = await startSession(conn, { geometry: '800x600', windowManager: '/usr/bin/xterm' });
    started.push(s.display);
    expect(s).toMatchObject({ flavor: 'turbovnc', passwordKind: 'otp', port: null, unixPath: `${bed.home}/.vnc/gpu-desk-${s.display}.sock`, localhostOnly: true, listenAddresses: [] });
    expect(s.password).toMatch(/^\d{8}$/);
    const sock = fs.statSync(s.unixPath!);
    expect(sock.isSocket()).toBe(true);
    expect(sock.mode & 0o777).toBe(0o600);
    expect(s.pid).toBeGreaterThan(1);
    expect(fs.readlinkSync(`/proc/${s.pid}/exe`)).toBe('/opt/TurboVNC/bin/Xvnc');
    expect(tcpListenersOf(s.pid!)).toEqual([]);
    // No VNC password file anywhere: TurboVNC's ~/.vnc/passwd was never written.
    expect(fs.existsSync(`${bed.home}/.vnc/passwd`)).toBe(false);

    // Through SSH's stream-local forward, as the tunnel reaches it: the OTP opens one connection only.
    expect(await vncAuthenticates(await conn.forwardOutUnix(s.unixPath!), 'wrongpw1')).toBe(false);
    const otp1 = s.password!;
    expect(await vncAuthenticates(await conn.forwardOutUnix(s.unixPath!), otp1)).toBe(true);
    expect(await vncAuthenticates(await conn.forwardOutUnix(s.unixPath!), otp1)).toBe(false);
    const otp2 = await newOneTimePassword(conn, s.display);
    expect(otp2).toMatch(/^\d{8}$/);
    expect(await vncAuthenticates(await conn.forwardOutUnix(s.unixPath!), otp2)).toBe(true);

    const listed = (await listSessions(conn)).filter((x) => x.display === s.display);
    expect(listed).toEqual([expect.objectContaining({ flavor: 'turbovnc', pid: s.pid, port: null, unixPath: s.unixPath, localhostOnly: true })]);
    expect(await displayEndpoint(conn, s.display)).toEqual({ kind: 'unix', path: s.unixPath, flavor: 'turbovnc', owner: { kind: 'mine' } });

    await killSession(conn, s.display);
    started.splice(started.indexOf(s.display), 1);
    expect(fs.existsSync(`/proc/${s.pid}`)).toBe(false);
    // Another test's desktop of the same account may take the freed number at once, with the same socket
    // path and file names: what is left is judged by whose it is, not by its name.
    const after = await listSessions(conn);
    expect(after.find((x) => x.display === s.display && x.pid === s.pid)).toBeUndefined();
    if (!after.some((x) => x.display === s.display)) {
      expect(fs.existsSync(s.unixPath!)).toBe(false);
      expect(fs.readdirSync(`${bed.home}/.vnc`).filter((f) => new RegExp(`:${s.display}\\.(pid|udspath)$`).test(f))).toEqual([]);
    }
  });

  it('with VirtualGL present the window manager runs under vglrun on the EGL device from eglinfo -e', async () => {
    const s = await startSession(conn, { geometry: '800x600', windowManager: '/usr/bin/xterm' });
    started.push(s.display);
    // The window manager (here xterm) is a child of the session's xstartup: find it by its DISPLAY.
    const wm = await waitFor(() => ownProcesses(bed.user).find((p) => p.exe === '/usr/bin/xterm' && p.env.DISPLAY?.endsWith(`:${s.display}`)));
    expect(wm.env.VGL_DISPLAY).toBe('egl0');
    expect(wm.env.LD_PRELOAD).toMatch(/libvglfaker/);
    await killSession(conn, s.display);
    started.splice(started.indexOf(s.display), 1);
  });

  it('--tcp: a TurboVNC session on 127.0.0.1:5900+n when asked for', async () => {
    const s = await startSession(conn, { transport: 'tcp', windowManager: '/usr/bin/xterm', virtualgl: 'off' });
    started.push(s.display);
    expect(s).toMatchObject({ flavor: 'turbovnc', port: 5900 + s.display, unixPath: null, localhostOnly: true });
    for (const a of s.listenAddresses) expect(['127.0.0.1', '::1']).toContain(a);
    expect(await vncAuthenticates(s.port!, s.password!)).toBe(true);
    expect(await displayEndpoint(conn, s.display)).toEqual({ kind: 'tcp', host: '127.0.0.1', port: s.port, flavor: 'turbovnc', owner: { kind: 'mine' } });
    await killSession(conn, s.display);
    started.splice(started.indexOf(s.display), 1);
  });

  it('a multi-screen geometry: TurboVNC starts with one RandR monitor per screen, TigerVNC at their bounding box', async () => {
    const geometry = '640x480+0+0,400x300+640+0';
    const [t, g] = await Promise.all([
      startSession(conn, { flavor: 'turbovnc', geometry, windowManager: '/usr/bin/xterm', virtualgl: 'off' }),
      startSession(conn, { flavor: 'tigervnc', geometry, windowManager: '/usr/bin/xterm', virtualgl: 'off' }),
    ]);
    started.push(t.display, g.display);
    const monitors = async (d: number) => (await conn.exec(`DISPLAY=:${d} xrandr --listmonitors`)).stdout.match(/\d+\/\d+x\d+\/\d+\+\d+\+\d+/g)?.map((m) => m.replace(/\/\d+/g, ''));
    expect(await monitors(t.display)).toEqual(['640x480+0+0', '400x300+640+0']);
    expect(await monitors(g.display)).toEqual(['1040x480+0+0']);
    for (const d of [t.display, g.display]) {
      await killSession(conn, d);
      started.splice(started.indexOf(d), 1);
    }
  });

  it('a TigerVNC session beside a TurboVNC one: each is listed once, with its own flavour', async () => {
    const [t, g] = await Promise.all([
      startSession(conn, { flavor: 'turbovnc', windowManager: '/usr/bin/xterm', virtualgl: 'off' }),
      startSession(conn, { flavor: 'tigervnc', windowManager: '/usr/bin/xterm', virtualgl: 'off' }),
    ]);
    started.push(t.display, g.display);
    const list = await listSessions(conn);
    // Both wrappers report every pid file in the shared ~/.vnc: still one entry per session.
    expect(list.filter((x) => x.display === t.display)).toEqual([expect.objectContaining({ flavor: 'turbovnc', pid: t.pid, unixPath: t.unixPath })]);
    expect(list.filter((x) => x.display === g.display)).toEqual([expect.objectContaining({ flavor: 'tigervnc', pid: g.pid, port: 5900 + g.display, unixPath: null })]);
    // The viewer's quick look at one display (its pid file, process and listeners) says what the whole listing says.
    expect(await displayEndpoint(conn, t.display)).toEqual({ kind: 'unix', path: t.unixPath, flavor: 'turbovnc', owner: { kind: 'mine' } });
    expect(await displayEndpoint(conn, g.display)).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 5900 + g.display, flavor: 'tigervnc', owner: { kind: 'mine' } });
    for (const d of [t.display, g.display]) expect(await displayEndpoint(conn, d)).toEqual(await displayEndpoint(conn, d, { fullListing: true }));
    const r = await probeServer(conn);
    expect(r.sessions.filter((x) => x.display === t.display || x.display === g.display).map((x) => [x.display, x.flavor])).toEqual(
      [[t.display, 'turbovnc'], [g.display, 'tigervnc']].sort((a, b) => (a[0] as number) - (b[0] as number)),
    );
    // kill finds each session's flavour by itself.
    for (const d of [t.display, g.display]) {
      await killSession(conn, d);
      started.splice(started.indexOf(d), 1);
    }
    const after = await listSessions(conn);
    expect(after.filter((x) => x.display === t.display || x.display === g.display)).toEqual([]);
  });

  it('a display whose wrapper is still stopping (pid file left, X lock gone) is not picked by the next start', async () => {
    // A wrapper removes its pid file only once its X server is dead, after the X lock is gone; a start
    // on that display meanwhile was killed by the old wrapper's clean-up (both flavours share ~/.vnc).
    const host = execFileSync('uname', ['-n']).toString().trim();
    const taken = (n: number) => fs.existsSync(`/tmp/.X${n}-lock`) || fs.existsSync(`/tmp/.X11-unix/X${n}`) || fs.readdirSync(`${bed.home}/.vnc`).some((f) => f.endsWith(`:${n}.pid`));
    let d = 1;
    while (taken(d)) d++;
    const stopping = spawn('sleep', ['600'], { stdio: 'ignore' });
    const pidFile = `${bed.home}/.vnc/${host}:${d}.pid`;
    fs.writeFileSync(pidFile, `${stopping.pid}\n`);
    let s: Awaited<ReturnType<typeof startSession>> | undefined;
    try {
      s = await startSession(conn, { geometry: '800x600', windowManager: '/usr/bin/xterm', virtualgl: 'off' });
      started.push(s.display);
      expect(s.display).not.toBe(d);
      // A pid file whose process is another account's (here root's sleep), then one whose process is
      // gone, is no session, for the viewer's quick look as for the whole listing.
      // Nothing listens on its port either: no desktop there at all.
      expect(await displayEndpoint(conn, d)).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 5900 + d, flavor: null, owner: { kind: 'none' } });
      expect(await displayEndpoint(conn, d, { fullListing: true })).toEqual({ kind: 'tcp', host: '127.0.0.1', port: 5900 + d, flavor: null, owner: { kind: 'none' } });
      const gone = spawn('true');
      await new Promise((r) => gone.once('exit', r));
      fs.writeFileSync(pidFile, `${gone.pid}\n`);
      expect(await displayEndpoint(conn, d)).toEqual(await displayEndpoint(conn, d, { fullListing: true }));
    } finally {
      fs.rmSync(pidFile, { force: true });
      stopping.kill('SIGKILL');
      if (s) {
        await killSession(conn, s.display);
        started.splice(started.indexOf(s.display), 1);
      }
    }
  });
});

interface Proc { pid: number; exe: string; env: Record<string, string> }

/** The account's processes with their executables and environments (root reads them on this machine). */
function ownProcesses(user: string): Proc[] {
  const uid = Number(execFileSync('id', ['-u', user]).toString().trim());
  const out: Proc[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (fs.statSync(`/proc/${d}`).uid !== uid) continue;
      const env = Object.fromEntries(fs.readFileSync(`/proc/${d}/environ`, 'latin1').split('\0').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
      out.push({ pid: Number(d), exe: fs.readlinkSync(`/proc/${d}/exe`), env });
    } catch {
      // Gone meanwhile.
    }
  }
  return out;
}

async function waitFor<T>(f: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('plan runner on the real bed (no root needed)', () => {
  it('stopping (AbortSignal) ends the run before the next step, which never runs', async () => {
    const marker = `${bed.home}/gd-abort-${process.pid}`;
    const ac = new AbortController();
    const plan: SetupPlan = {
      distro: 'debian-12', backend: 'none', notes: [],
      steps: [
        { id: 'one', title: 'First', why: 't', check: 'true', apply: 'true', needsRoot: false },
        { id: 'two', title: 'Second', why: 't', check: `[ -e ${marker} ]`, apply: `touch ${marker}`, needsRoot: false },
      ],
    };
    // The user presses Stop while the first step is being checked.
    const r = await applyPlan(conn, plan, {
      signal: ac.signal,
      onProgress: (e) => { if (e.type === 'step-check' && e.stepId === 'one') ac.abort(); },
    });
    expect(r.ok).toBe(false);
    expect(r.error).toMatchObject({ code: 'CANCELLED', stepId: 'two' });
    expect(r.steps.map((s) => s.status)).toEqual(['skipped', 'not-run']);
    expect(fs.existsSync(marker)).toBe(false);
  });
});

describe('plan runner: a short sudo password in the run\'s own output', () => {
  it('is redacted as a whole token in the streamed output, the step\'s tail and the failure message; the same digits inside other words stay', async () => {
    const pin = '4821';
    const plan: SetupPlan = {
      distro: 'debian-12', backend: 'none', notes: [],
      // What a misbehaving tool does: echo what it read, then fail with it in its last line.
      steps: [{ id: 'echo', title: 'Echo', why: 't', check: 'false', apply: `echo "read ${pin} on port 5${pin}"; echo "bad code ${pin}" >&2; exit 3`, needsRoot: false }],
    };
    const streamed: string[] = [];
    const r = await applyPlan(conn, plan, { sudoPassword: pin, onProgress: (e) => { if (e.type === 'output') streamed.push(e.text); else if (e.type === 'step-failed') streamed.push(e.message); } });
    expect(r.ok).toBe(false);
    expect(r.steps[0].output).toContain('read [redacted] on port 54821');
    const everything = [...streamed, r.steps[0].output, r.error?.message ?? ''].join('\n');
    expect(everything).toContain('bad code [redacted]');
    expect(everything.replace(/54821/g, '')).not.toContain(pin);
  });
});

describe('hostile values over real SSH', () => {
  it('every hostile value reaches the server as one literal argument and runs nothing', async () => {
    const canary = `${bed.home}/gd-pwned`;
    fs.rmSync(canary, { force: true });
    const values = HOSTILE_VALUES(canary);
    for (const v of values) {
      const r = await conn.exec(shellCommand(['printf', '%s', v]));
      expect(r.stdout).toBe(v);
    }
    const all = await conn.exec(shellCommand(['printf', '<%s>', ...values]));
    expect(all.stdout).toBe(values.map((v) => `<${v}>`).join(''));
    expect(fs.existsSync(canary)).toBe(false);
  });
});
