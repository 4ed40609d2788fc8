import fs from 'node:fs';
import type { Page } from '@playwright/test';
import { signalGroup, startXvnc, windowViewable } from '../bed';
import { expect, test, type Env } from './fixtures';
import { connectAndStartDesktop, viewDesktop, viewXvnc } from './desktopSteps';
import { typeOnRemote } from './typing';
import { canvasDigest, canvasSize, pixelsUnlikeServer } from './viewerPixels';
import { LOSSLESS_IDLE_MS } from '../../src/renderer/viewer/lossless';

const VGL = '/opt/VirtualGL/bin';
const SPHERES = [`${VGL}/vglrun`, '-d', 'egl0', `${VGL}/glxspheres64`, '-w', '400x300'];

/** The viewer's own count of lossless refreshes: "N auto, M asked" (rfbSession.ts). */
async function refreshes(page: Page): Promise<{ auto: number; asked: number }> {
  const v = (await page.getByTestId('vnc-screen').getAttribute('data-lossless-refreshes')) ?? '0 auto, 0 asked';
  const m = /(\d+) auto, (\d+) asked/.exec(v)!;
  return { auto: Number(m[1]), asked: Number(m[2]) };
}

/** Waits until the canvas has shown `n` different pictures (the spheres turn). */
async function motion(page: Page, n = 5): Promise<void> {
  const seen = new Set<string>();
  await expect.poll(async () => { seen.add(await canvasDigest(page)); return seen.size; }, { timeout: 60_000, message: 'distinct canvas contents while the spheres turn' }).toBeGreaterThanOrEqual(n);
}

/**
 * Stops the motion (SIGSTOP to the program) and waits until the whole canvas equals the server's own
 * screenshot, exactly. How long that took (until the canvas that matched was read; the screenshot
 * that confirms it is taken just after) is printed and kept as the test's annotation: a figure to
 * read, not a limit (a busy machine takes longer; the test waits for the condition).
 */
async function exactAfterStop(page: Page, env: Env, display: number, stop: () => void, what: string): Promise<void> {
  stop();
  const t0 = Date.now();
  let readAt = t0;
  await expect.poll(() => { readAt = Date.now(); return pixelsUnlikeServer(page, env, display); }, { timeout: 60_000, intervals: [25], message: 'pixels the viewer draws unlike the server\'s own screenshot after motion stopped' }).toBe(0);
  const line = `${what}: exact ${readAt - t0} ms after the motion stopped`;
  console.log(line);
  test.info().annotations.push({ type: 'lossless refresh', description: line });
}

test('TigerVNC: after motion at low JPEG quality the viewer asks for a lossless refresh by itself, and the canvas equals the server\'s screen exactly', async ({ page, env }) => {
  test.setTimeout(300_000);
  const xvnc = await startXvnc({ geometry: '800x600' });
  const spheres = xvnc.run(SPHERES);
  try {
    // Quality level 1, adaptive off: TigerVNC sends the spheres as coarse JPEG.
    await viewXvnc(page, env, 'tigerlossy', xvnc.display, { quality: 1, scaling: 'off' });
    await expect.poll(() => canvasSize(page)).toEqual({ w: 800, h: 600 });
    await motion(page);
    // While it moves, JPEG: the canvas is not the server's picture.
    expect(await pixelsUnlikeServer(page, env, xvnc.display)).not.toBe(0);
    const before = await refreshes(page);

    // The viewer waits LOSSLESS_IDLE_MS (1 s) without updates, then asks for the whole screen without
    // JPEG: the canvas becomes exact, and the viewer counted a refresh of its own.
    await exactAfterStop(page, env, xvnc.display, () => process.kill(-spheres.pid!, 'SIGSTOP'), `TigerVNC (the viewer's own refresh after ${LOSSLESS_IDLE_MS} ms idle)`);
    expect((await refreshes(page)).auto).toBeGreaterThan(before.auto);
    await env.shot(page, 'viewer-lossless-tigervnc');

    // The toolbar button asks at once (moving again, then stopped: exact, and counted as asked).
    process.kill(-spheres.pid!, 'SIGCONT');
    await motion(page, 3);
    const button = page.getByRole('button', { name: /Lossless refresh/ });
    await expect(button).toHaveAttribute('aria-keyshortcuts', 'Control+Alt+Shift+L');
    await expect(button).toContainText('Ctrl+Alt+Shift+L');
    const asked = (await refreshes(page)).asked;
    await exactAfterStop(page, env, xvnc.display, () => {
      process.kill(-spheres.pid!, 'SIGSTOP');
      void button.click();
    }, 'TigerVNC (the toolbar button)');
    await expect.poll(async () => (await refreshes(page)).asked).toBe(asked + 1);
    // The shortcut does the same, and is caught before noVNC sends it.
    await page.locator('[data-testid="vnc-screen"] canvas').focus();
    await page.keyboard.press('Control+Alt+Shift+L');
    await expect.poll(async () => (await refreshes(page)).asked).toBe(asked + 2);
    await page.getByRole('button', { name: 'Back to the server' }).click();
    await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
  } finally {
    signalGroup(spheres, 'SIGKILL');
    await xvnc.stop();
  }
});

test('TurboVNC: desktops gpu-desk starts run Xvnc with -alr 0.5, and after motion at JPEG quality 10 the canvas equals the server\'s screen exactly', async ({ page, env }) => {
  test.setTimeout(600_000);
  const { display, row } = await connectAndStartDesktop(page, env, 'alr', '1024x768');
  // The X server itself was started with automatic lossless refresh.
  const xvncArgs = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map((p) => {
    try { return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0'); } catch { return []; }
  }).find((a) => /Xvnc$/.test(a[0] ?? '') && a[1] === `:${display}`);
  expect(xvncArgs, `the Xvnc of :${display}`).toBeDefined();
  expect(xvncArgs!.join(' ')).toContain('-alr 0.5');

  await viewDesktop(page, row, display);
  await expect.poll(() => canvasSize(page)).toEqual({ w: 1024, h: 768 });
  await expect.poll(() => windowViewable(env.bed.home, display, env.desktop.terminalTitle), { timeout: 30_000 }).toBe(true);

  // A low fixed JPEG quality (TurboVNC's fine control), adaptive off.
  await page.getByTestId('open-codec').click();
  const panel = page.getByTestId('codec-panel');
  const adaptive = panel.getByLabel(/Adaptive/);
  if (await adaptive.isChecked()) await adaptive.uncheck();
  await panel.getByLabel('Preset').selectOption('low');
  const fine = panel.getByRole('group', { name: /TurboVNC fine control/ });
  await fine.getByLabel('JPEG quality 1–100').fill('10');
  await panel.getByRole('button', { name: 'Close quality panel' }).click();

  const tag = `gdalr${Date.now().toString(36)}`;
  const pidFile = `/tmp/${tag}.pid`;
  const logFile = `/tmp/${tag}.log`;
  await page.locator('[data-testid="vnc-screen"] canvas').click({ position: { x: 200, y: 150 } });
  await typeOnRemote(page, `${SPHERES.join(' ')} > ${logFile} 2>&1 & echo $! > ${pidFile}`);
  await page.keyboard.press('Enter');
  await expect.poll(() => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''), { timeout: 60_000 }).toContain('OpenGL Renderer:');
  const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  try {
    await motion(page);
    expect(await pixelsUnlikeServer(page, env, display)).not.toBe(0);
    // -alr 0.5 on the server (the viewer's own refresh comes after 1 s, should anything be left).
    await exactAfterStop(page, env, display, () => process.kill(pid, 'SIGSTOP'), 'TurboVNC (-alr 0.5)');
    await env.shot(page, 'viewer-lossless-turbovnc');
  } finally {
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    fs.rmSync(pidFile, { force: true });
    fs.rmSync(logFile, { force: true });
  }
  await page.getByRole('button', { name: 'Back to the server' }).click();
  await row.getByRole('button', { name: `Stop display ${display}` }).click();
  await page.getByRole('dialog', { name: `Stop display :${display}?` }).getByRole('button', { name: 'Stop desktop' }).click();
  await expect(page.getByTestId(`session-${display}`)).toHaveCount(0, { timeout: 180_000 });
  await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
});
