import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { probeServer, queryGpus } from '../../../src/core/remote/probe';
import { killSession, listSessions, startSession } from '../../../src/core/remote/vncSessions';
import { shellCommand } from '../../../src/core/remote/shellQuote';
import { applyPlan } from '../../../src/core/remote/planRunner';
import type { SetupPlan } from '../../../src/core/remote/types';
import { GpuDeskError } from '../../../src/core/errors';
import { HOSTILE_VALUES } from './hostile';
import { vncAuthenticates } from './rfb';

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

describe('probe on the real bed (Debian 12, no GPU, TigerVNC)', () => {
  // How long it takes is bench:probe's figure (timed assertions flake on a loaded machine).
  it('reports the OS, no NVIDIA GPU, the TigerVNC flavour and the findings', async () => {
    const r = await probeServer(conn);
    expect(r.os.distro).toBe('debian-12');
    expect(r.user).toBe(bed.user);
    expect(r.gpus).toEqual([]);
    expect(r.nvidia.driverLoaded).toBe(false);
    expect(r.vnc.flavor).toBe('tigervnc');
    expect(r.vnc.version).toMatch(/^1\.\d+/);
    expect(r.virtualgl.installed).toBe(false);
    const codes = r.findings.map((f) => f.code);
    expect(codes).toContain('NO_NVIDIA_DRIVER');
    expect(codes).toContain('VIRTUALGL_MISSING');
    expect(codes).not.toContain('NO_VNC_SERVER');
    expect(await queryGpus(conn)).toEqual([]);
  });

  it('is one SSH round trip (one remote command)', async () => {
    const commands: string[] = [];
    const counting = { ...conn, state: conn.state, endpoint: conn.endpoint, rttMs: conn.rttMs, exec: (c: string, o?: object) => { commands.push(c); return conn.exec(c, o); } };
    await probeServer(counting as unknown as typeof conn);
    expect(commands).toHaveLength(1);
    expect(commands[0]).toMatch(/^sh -c '/);
  });
});

describe('TigerVNC sessions on the real bed', () => {
  it('start → listed with display, port and pid, on 127.0.0.1 only, VncAuth only → kill → gone', async () => {
    const s = await startSession(conn, { geometry: '1024x768', windowManager: '/usr/bin/xterm' });
    started.push(s.display);
    expect(s.flavor).toBe('tigervnc');
    expect(s.port).toBe(5900 + s.display);
    expect(s.localhostOnly).toBe(true);
    expect(s.listenAddresses.length).toBeGreaterThan(0);
    for (const a of s.listenAddresses) expect(['127.0.0.1', '::1']).toContain(a);
    expect(s.passwordKind).toBe('session');
    expect(s.password).toMatch(/^[A-Za-z0-9]{8}$/);
    // Really listening, and asking for a VNC password (type 2) and nothing weaker.
    expect(await securityTypes(s.port)).toEqual([2]);
    // The password handed back is the one the server checks; a wrong one is refused.
    expect(await vncAuthenticates(s.port, 'wrongpw1')).toBe(false);
    expect(await vncAuthenticates(s.port, s.password!)).toBe(true);
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
    expect((await listSessions(conn)).find((x) => x.display === s.display)).toBeUndefined();
    expect(fs.existsSync(pf)).toBe(false);
    await expect(new Promise((res, rej) => net.connect(s.port, '127.0.0.1').on('connect', res).on('error', rej))).rejects.toThrow();
  });

  it('two sessions started at once get different displays; an explicit display is honoured', async () => {
    const [a, c] = await Promise.all([
      startSession(conn, { windowManager: '/usr/bin/xterm' }),
      startSession(conn, { windowManager: '/usr/bin/xterm' }),
    ]);
    started.push(a.display, c.display);
    expect(c.display).not.toBe(a.display);
    await killSession(conn, c.display);
    started.splice(started.indexOf(c.display), 1);
    let want = a.display + 7;
    // Other test files start X servers too: skip displays that are visibly taken on this machine.
    while (fs.existsSync(`/tmp/.X${want}-lock`) || fs.existsSync(`/tmp/.X11-unix/X${want}`)) want++;
    const b = await startSession(conn, { display: want, geometry: '800x600', windowManager: '/usr/bin/xterm' });
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
