import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll } from '../../bed';
import { dropbearOptions, startDropbear, type DropbearBed } from '../../bed/dropbear';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { probeServer } from '../../../src/core/remote/probe';
import { killSession, listSessions, startSession } from '../../../src/core/remote/vncSessions';
import { buildSetupPlan } from '../../../src/core/remote/setupPlan';
import { checkPlan } from '../../../src/core/remote/planRunner';
import { shScript } from '../../../src/core/remote/shellQuote';

// Dropbear ends the connection ("String too long") over an exec request longer than 9000 bytes: every
// script gpu-desk runs travels on the channel's stdin, so the probe (about 10 KB) and the rest work there.

let bed: DropbearBed;
let conn: SshConnection;
const started: number[] = [];

beforeAll(async () => {
  bed = await startDropbear();
  conn = await connectSsh(dropbearOptions(bed));
});
afterAll(async () => {
  for (const d of started) await killSession(conn, d).catch(() => {});
  await conn?.close();
  await cleanupAll();
});

describe('a Dropbear server (9000-byte command limit)', () => {
  it('runs a script far longer than the limit, with its arguments and the stdin that follows it', async () => {
    const filler = `# ${'x'.repeat(78)}\n`.repeat(250); // 20 KB of comment lines
    const r = await conn.exec(shScript(`${filler}read pw; printf '%s|%s|%s\\n' "$1" "$2" "$pw"`, ["it's", 'a b']), { stdin: 'secret\n', timeoutMs: 30_000 });
    expect(r).toMatchObject({ code: 0, stdout: "it's|a b|secret\n" });
    expect(conn.state).toBe('ready');
  });

  it('probes the server: the account, TurboVNC 3.3 and VirtualGL', async () => {
    const r = await probeServer(conn);
    expect(r.user).toBe(bed.user);
    expect(r.vnc).toMatchObject({ flavor: 'turbovnc', version: '3.3' });
    expect(r.virtualgl).toMatchObject({ installed: true, version: '3.1.4' });
    expect(conn.state).toBe('ready');
  });

  it('starts, lists and kills a TurboVNC session', async () => {
    const s = await startSession(conn, { flavor: 'turbovnc', transport: 'tcp', geometry: '800x600', windowManager: '/usr/bin/xterm', virtualgl: 'off' });
    started.push(s.display);
    expect((await listSessions(conn)).map((x) => x.display)).toContain(s.display);
    await killSession(conn, s.display);
    expect((await listSessions(conn)).map((x) => x.display)).not.toContain(s.display);
  });

  it("checks the set-up plan's steps on the server in one command", async () => {
    const plan = buildSetupPlan(await probeServer(conn));
    expect(plan.steps.length).toBeGreaterThan(0);
    const status = await checkPlan(conn, plan);
    expect(Object.keys(status).sort()).toEqual(plan.steps.map((s) => s.id).sort());
    // TurboVNC is installed on the bed: its step's check passes there.
    expect(status['vnc-server']).toBe('done');
    expect(conn.state).toBe('ready');
  });
});
