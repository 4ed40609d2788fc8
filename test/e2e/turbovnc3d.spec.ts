import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { differingPixels, serverScreen, windowViewable } from '../bed';
import { expect, test, type Env } from './fixtures';
import { connectAndStartDesktop, viewDesktop } from './desktopSteps';
import { typeOnRemote } from './typing';
import { bytesPerFrame, hudFps } from './viewerHud';
import { canvasDigest, canvasSize, pixelsUnlikeServer } from './viewerPixels';

const VGL = '/opt/VirtualGL/bin';

/** The TurboVNC server's log of one of the bed account's sessions (it logs each codec setting it takes). */
function sessionLog(env: Env, display: number): string {
  const dir = path.join(env.bed.home, '.vnc');
  const name = fs.readdirSync(dir).find((f) => f.endsWith(`:${display}.log`));
  return name ? fs.readFileSync(path.join(dir, name), 'utf8') : '';
}

/** Lines the server logged since `from` characters into its log. */
function loggedSince(env: Env, display: number, from: number): string {
  return sessionLog(env, display).slice(from);
}

async function setFine(page: Page, jpeg: string, subsampling: string): Promise<void> {
  const fine = page.getByTestId('codec-panel').getByRole('group', { name: /TurboVNC fine control/ });
  await fine.getByLabel('JPEG quality 1–100').fill(jpeg);
  await fine.getByLabel('Chroma subsampling').selectOption(subsampling);
}

test('a 3D program on a TurboVNC desktop renders through VirtualGL and is drawn in the viewer; TurboVNC JPEG quality and subsampling change bytes per frame', async ({ page, env }) => {
  // A 3D program rendered on the CPU, encoded and viewed on two cores shared with other work.
  test.setTimeout(720_000);
  expect(fs.existsSync(`${VGL}/glxspheres64`), 'VirtualGL is installed on the bed (.ci/run installs it)').toBe(true);
  // A desktop on the bed's real TurboVNC, with the bed's window manager and terminal.
  const { display, row } = await connectAndStartDesktop(page, env, 'gpu3d', '1024x768');
  await expect(row).toBeVisible();
  await viewDesktop(page, row, display);
  // JPEG rectangles are decoded by the WebAssembly decoder (the page's CSP lets it compile), not ImageDecoder.
  await expect(page.getByTestId('vnc-screen')).toHaveAttribute('data-jpeg-decoder', 'webassembly');
  await expect.poll(() => canvasSize(page)).toEqual({ w: 1024, h: 768 });
  await expect.poll(() => windowViewable(env.bed.home, display, env.desktop.terminalTitle), { timeout: 30_000 }).toBe(true);
  const full = { x: 0, y: 0, w: 1024, h: 768 };
  const desktopOnly = await serverScreen(env.bed.home, display, full);

  // glxspheres64, typed into the desktop's terminal, rendered by VirtualGL's EGL back end on the
  // bed's only EGL device (Mesa's llvmpipe: this machine has no GPU).
  const tag = `gd3d${Date.now().toString(36)}`;
  const pidFile = `/tmp/${tag}.pid`;
  const logFile = `/tmp/${tag}.log`;
  await page.locator('[data-testid="vnc-screen"] canvas').click({ position: { x: 200, y: 150 } });
  await typeOnRemote(page, `${VGL}/vglrun -d egl0 ${VGL}/glxspheres64 -w 400x300 > ${logFile} 2>&1 & echo $! > ${pidFile}`);
  await page.keyboard.press('Enter');
  await expect.poll(() => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''), { timeout: 60_000 }).toContain('OpenGL Renderer:');
  const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  try {
    // VirtualGL's faker is loaded into the program: its OpenGL went through VirtualGL, not Xvnc's GLX.
    expect(fs.readFileSync(`/proc/${pid}/maps`, 'utf8')).toContain('libvglfaker');

    // Moving pixels: the canvas shows new content frame after frame, and the HUD counts frames.
    const seen = new Set<string>();
    await expect.poll(async () => { seen.add(await canvasDigest(page)); return seen.size; }, { timeout: 60_000, message: 'distinct canvas contents while the spheres turn' }).toBeGreaterThanOrEqual(5);
    await expect.poll(() => hudFps(page), { timeout: 30_000 }).toBeGreaterThan(0);
    await env.shot(page, 'viewer-glxspheres');

    // Exactly what the server shows: with the codec lossless and the program paused (SIGSTOP), the
    // viewer's whole screen equals the server's own screenshot, and that screenshot holds the spheres
    // (it differs from the desktop as it was before the program started).
    await page.getByTestId('open-codec').click();
    const panel = page.getByTestId('codec-panel');
    const adaptive = panel.getByLabel(/Adaptive/);
    if (await adaptive.isChecked()) await adaptive.uncheck();
    await panel.getByLabel('Preset').selectOption('lossless');
    process.kill(pid, 'SIGSTOP');
    await expect.poll(() => pixelsUnlikeServer(page, env, display), { timeout: 30_000, message: 'pixels the viewer draws unlike the server\'s own screenshot' }).toBe(0);
    expect(differingPixels(await serverScreen(env.bed.home, display, full), desktopOnly)).toBeGreaterThan(0);
    process.kill(pid, 'SIGCONT');

    // TurboVNC's fine-grained JPEG quality, then its chroma subsampling, each sent live: the server
    // logs the setting it took, and the bytes each frame costs fall.
    let logAt = sessionLog(env, display).length;
    await panel.getByLabel('Preset').selectOption('perceptual');
    await expect.poll(() => loggedSince(env, display, logAt)).toContain('Using JPEG quality 95');
    const bpf95 = await bytesPerFrame(page, 3, 1);
    logAt = sessionLog(env, display).length;
    await setFine(page, '30', '1x');
    await expect.poll(() => loggedSince(env, display, logAt)).toMatch(/Using JPEG quality 30\n(.*\n)*.*Using JPEG subsampling 0/);
    const bpf30 = await bytesPerFrame(page, 3, 1);
    logAt = sessionLog(env, display).length;
    await setFine(page, '30', 'gray');
    await expect.poll(() => loggedSince(env, display, logAt)).toContain('Using JPEG subsampling 3');
    const bpfGray = await bytesPerFrame(page, 3, 1);
    await env.shot(page, 'viewer-glxspheres-jpeg30-gray');
    test.info().annotations.push({ type: 'bytes per frame', description: `JPEG 95 1X ${Math.round(bpf95)} B, JPEG 30 1X ${Math.round(bpf30)} B, JPEG 30 gray ${Math.round(bpfGray)} B` });
    expect(bpf30).toBeLessThan(bpf95);
    expect(bpfGray).toBeLessThan(bpf30);
  } finally {
    try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
    fs.rmSync(pidFile, { force: true });
    fs.rmSync(logFile, { force: true });
  }

  await page.getByRole('button', { name: 'Back to the server' }).click();
  await row.getByRole('button', { name: `Stop display ${display}` }).click();
  await page.getByRole('dialog', { name: `Stop display :${display}?` }).getByRole('button', { name: 'Stop desktop' }).click();
  await expect(page.getByTestId(`session-${display}`)).toHaveCount(0, { timeout: 180_000 });
  await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
});
