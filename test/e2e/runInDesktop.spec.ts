/**
 * "Run in desktop…" on a real TurboVNC desktop of the bed: a command line's output and Stop, then the
 * seed's kind of program — vkcube, drawing with Vulkan on Mesa's lavapipe (the bed's stand-in for a
 * GPU's Vulkan driver) and presenting into Xvnc — drawn by the viewer exactly as the server's own
 * screenshot shows it. vkcube spins, so it is paused (SIGSTOP) for the comparison.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { differingPixels, serverScreen } from '../bed';
import { expect, test, type Env } from './fixtures';
import { connectAndStartDesktop, stopAndDisconnect, viewDesktop } from './desktopSteps';
import { canvasSize, chooseLossless, pixelsUnlikeServer } from './viewerPixels';

const SIZE = { w: 640, h: 480 };

/**
 * The bed account's processes in this desktop (DISPLAY=:N in their environment) whose whole command
 * line matches `re` (pgrep -f): other tests' desktops run as the same account at the same time.
 */
function pids(env: Env, display: number, re: string): number[] {
  let all: number[];
  try {
    all = execFileSync('pgrep', ['-u', env.bed.user, '-f', re], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return all.filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`DISPLAY=:${display}`);
    } catch {
      return false; // gone since
    }
  });
}

async function screen(env: Env, display: number): Promise<Buffer> {
  return serverScreen(env.bed.home, display, { x: 0, y: 0, ...SIZE });
}

test('Run in desktop: a command line’s output and Stop; vkcube (Vulkan) drawn in the viewer exactly as the server shows it', async ({ page, env }) => {
  test.setTimeout(300_000);
  const { display, row } = await connectAndStartDesktop(page, env, 'run', `${SIZE.w}x${SIZE.h}`);
  await row.getByRole('button', { name: `Run a program in display ${display}` }).click();
  const dlg = page.getByRole('dialog', { name: `Run in desktop :${display}` });
  // The bed's VirtualGL renders on Mesa's EGL device: offered, and on, as the desktop itself uses it.
  await expect(dlg.getByTestId('run-vgl')).toBeChecked();

  // A command line as typed in a terminal: its output comes back while it runs; Stop ends it.
  await dlg.getByTestId('run-command').fill('echo "on $DISPLAY"; exec sleep 299');
  await dlg.getByTestId('run-start').click();
  await expect(dlg.getByTestId('run-output')).toContainText(`on :${display}`, { timeout: 30_000 });
  await expect(dlg.getByTestId('run-status')).toHaveAttribute('data-running', 'true');
  await expect.poll(() => pids(env, display, '^sleep 299$').length, { timeout: 30_000 }).toBe(1);
  await dlg.getByTestId('run-stop').click();
  await expect(dlg.getByTestId('run-status')).toHaveAttribute('data-running', 'false', { timeout: 30_000 });
  await expect(dlg.getByTestId('run-status')).toHaveText('Ended (stopped by a signal) · under VirtualGL');
  expect(pids(env, display, '^sleep 299$')).toEqual([]);

  // vkcube: it spins (the server's screen keeps changing), so it presents into Xvnc.
  const before = await screen(env, display);
  await dlg.getByTestId('run-command').fill('vkcube');
  await dlg.getByRole('button', { name: 'Run again' }).click();
  await expect(dlg.getByTestId('run-status')).toHaveAttribute('data-running', 'true', { timeout: 30_000 });
  // vkcube's window has no name to wait for: its frames show as the server's screen changing, again and again.
  let last = await screen(env, display);
  let changes = 0;
  await expect.poll(async () => {
    const now = await screen(env, display);
    if (differingPixels(now, last) > 0) changes++;
    last = now;
    return changes;
  }, { timeout: 60_000, message: 'vkcube’s frames changing the server’s screen' }).toBeGreaterThanOrEqual(3);
  const [cube] = pids(env, display, '(^|/)vkcube$');
  expect(cube, 'vkcube’s process').toBeGreaterThan(0);

  // Paused, its last frame stays: the server's screen stops changing, and shows the cube (not what was there before).
  process.kill(cube, 'SIGSTOP');
  try {
    last = await screen(env, display);
    await expect.poll(async () => {
      const now = await screen(env, display);
      const still = differingPixels(now, last) === 0;
      last = now;
      return still;
    }, { timeout: 30_000, message: 'the server’s screen still after SIGSTOP' }).toBe(true);
    expect(differingPixels(last, before), 'vkcube’s frame on the server').toBeGreaterThan(0);

    // The dialog closes; the program goes on (it is the desktop's, not the dialog's).
    await dlg.getByRole('button', { name: 'Close' }).click();
    await expect(dlg).toHaveCount(0);
    expect(pids(env, display, '(^|/)vkcube$')).toEqual([cube]);

    await viewDesktop(page, row, display);
    await chooseLossless(page);
    await expect.poll(async () => (await canvasSize(page)).w, { timeout: 30_000 }).toBe(SIZE.w);
    await expect.poll(() => pixelsUnlikeServer(page, env, display), { timeout: 60_000, message: 'pixels the viewer draws unlike the server’s own screenshot' }).toBe(0);
  } finally {
    process.kill(cube, 'SIGCONT');
  }
  await page.getByRole('button', { name: 'Back to the server' }).click();
  await page.getByRole('tab', { name: 'Desktops' }).click();
  await stopAndDisconnect(page, row, display);
});
