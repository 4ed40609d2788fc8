import { execFileSync, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, ensureShellAccount, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { probeServer } from '../../../src/core/remote/probe';
import { killSession, listSessions, startSession } from '../../../src/core/remote/vncSessions';
import { shScript } from '../../../src/core/remote/shellQuote';

// sshd runs every exec request as `<login shell> -c '<request>'`; tcsh and csh refuse a newline inside
// single quotes ("Unmatched '''"). gpu-desk's request is one fixed line and the script follows on stdin.

const TCSH_USER = 'gdtcsh';
let bed: SshdBed;
let conn: SshConnection;
const started: number[] = [];

beforeAll(async () => {
  ensureShellAccount(TCSH_USER, '/usr/bin/tcsh');
  bed = await startSshd();
  conn = await connectSsh(bedOptions(bed, { destination: `${TCSH_USER}@127.0.0.1` }));
});
afterAll(async () => {
  for (const d of started) await killSession(conn, d).catch(() => {});
  await conn?.close();
  await cleanupAll();
});

describe('an account whose login shell is tcsh', () => {
  it("is one: OpenSSH's ssh, given a multi-line sh -c, gets tcsh's Unmatched quote error there", () => {
    expect(execFileSync('getent', ['passwd', TCSH_USER]).toString().trim().split(':')[6]).toBe('/usr/bin/tcsh');
    const r = spawnSync('ssh', ['-F', '/dev/null', '-i', bed.userKeyPath, '-p', String(bed.port), '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', `${TCSH_USER}@127.0.0.1`, "sh -c 'echo one\necho two'"], { encoding: 'utf8' });
    expect(r.stderr).toMatch(/Unmatched '''/);
  });

  it('runs a multi-line script with quoted arguments, $ and ! in them', async () => {
    const r = await conn.exec(shScript('printf "%s\\n" "$1"\nprintf "%s\\n" "$2"', ["it's $HOME", 'line one\nline two!']), { timeoutMs: 30_000 });
    expect(r).toMatchObject({ code: 0, stdout: "it's $HOME\nline one\nline two!\n" });
  });

  it('probes the server as that account', async () => {
    const r = await probeServer(conn);
    expect(r.user).toBe(TCSH_USER);
    expect(r.vnc).toMatchObject({ flavor: 'turbovnc', version: '3.3' });
  });

  it('starts, lists and kills a session', async () => {
    const s = await startSession(conn, { flavor: 'turbovnc', geometry: '800x600', windowManager: '/usr/bin/xterm', virtualgl: 'off' });
    started.push(s.display);
    expect((await listSessions(conn)).map((x) => x.display)).toContain(s.display);
    await killSession(conn, s.display);
    expect((await listSessions(conn)).map((x) => x.display)).not.toContain(s.display);
  });
});
