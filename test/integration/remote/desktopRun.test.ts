/**
 * "Run in desktop…" over real SSH into a real TurboVNC desktop on the bed: the program runs in the
 * session's display, apart from the channel that started it, its output and exit status come back,
 * Stop ends it and what it started, and VirtualGL's vglrun wraps it on the EGL device when asked.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { killSession, startSession } from '../../../src/core/remote/vncSessions';
import { desktopRunState, runInDesktop, stopDesktopRun, type DesktopRun } from '../../../src/core/remote/desktopRun';
import { GpuDeskError } from '../../../src/core/errors';
import { until } from '../../helpers/until';

let bed: SshdBed;
let conn: SshConnection;
let display: number;

beforeAll(async () => {
  bed = await startSshd();
  conn = await connectSsh(bedOptions(bed));
  display = (await startSession(conn, { geometry: '640x480', windowManager: '/usr/bin/xterm' })).display;
}, 120_000);
afterAll(async () => {
  if (display !== undefined) await killSession(conn, display).catch(() => undefined);
  await conn?.close();
  await cleanupAll();
});

function ended(run: DesktopRun) {
  return until(() => desktopRunState(conn, run), (s) => !s.running, 'the program to end');
}

describe('Run in desktop (real sshd, TurboVNC)', { timeout: 120_000 }, () => {
  it('runs the command line in the desktop’s display, in the home folder; output and exit status come back; the log is private', async () => {
    // Quotes, $ and a redirection are the command line's own: it is a shell command, as typed in a terminal.
    const run = await runInDesktop(conn, display, `echo "display=$DISPLAY pwd=$(pwd)"; echo 'it''s "quoted" $HOME' >&2; exit 3`, null);
    expect(run.vglrun).toBeNull();
    const s = await ended(run);
    expect(s.exitCode).toBe(3);
    expect(s.output).toBe(`display=:${display} pwd=${bed.home}\nits "quoted" $HOME\n`);
    expect(s.truncated).toBe(false);
    expect(run.log.startsWith(`${bed.home}/.vnc/gpu-desk-runs/`)).toBe(true);
    expect(fs.statSync(run.log).mode & 0o777).toBe(0o600);
  });

  it('keeps running after the channel that started it closed; Stop ends the program and its children', async () => {
    // A child of the command line's shell: Stop must reach it too (the whole process group).
    const run = await runInDesktop(conn, display, 'sleep 300 & echo child=$!; wait', null);
    const s = await until(() => desktopRunState(conn, run), (x) => /child=\d+/.test(x.output), 'the child’s pid in the output', 30_000);
    expect(s.running).toBe(true);
    const child = Number(/child=(\d+)/.exec(s.output)![1]);
    expect(fs.existsSync(`/proc/${child}`)).toBe(true);
    await stopDesktopRun(conn, run);
    const after = await ended(run);
    expect(after.exitCode).not.toBe(0);
    await until(() => !fs.existsSync(`/proc/${child}`) || fs.readFileSync(`/proc/${child}/stat`, 'utf8').split(' ')[2] === 'Z', (gone) => gone, 'the child gone', 30_000);
  });

  it('with VirtualGL asked for, OpenGL renders through vglrun on the EGL device (glxinfo says so)', async () => {
    const run = await runInDesktop(conn, display, 'VGL_VERBOSE=1 /opt/VirtualGL/bin/glxinfo -B', 'egl0');
    expect(run.vglrun).toMatch(/\/vglrun$/);
    const s = await ended(run);
    expect(s.exitCode).toBe(0);
    expect(s.output).toMatch(/^\[VGL\] Opening EGL device egl0$/m);
    expect(s.output).toMatch(/^OpenGL renderer string: llvmpipe/m);
  });

  it('a display that is not running, and an empty command line: one-line errors with the fix', async () => {
    const err = await runInDesktop(conn, 97, 'true', null).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GpuDeskError);
    expect((err as GpuDeskError).message).toBe('Display :97 is not running on the server');
    const empty = await runInDesktop(conn, display, '  ', null).catch((e: unknown) => e);
    expect((empty as GpuDeskError).message).toBe('The command line is empty');
  });
});
