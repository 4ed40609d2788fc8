import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { Page } from '@playwright/test';
import { serverScreen, windowViewable } from '../bed';
import { addProfile, expect, test, type Env } from './fixtures';
import { ssim } from './ssim';
import { typeOnRemote } from './typing';
import { canvasDigest, canvasRgb, canvasSize, pixelsUnlikeServer } from './viewerPixels';

const VGL = '/opt/VirtualGL/bin';

/** The bed account's encoder processes for a display (video mode's ffmpeg on the server). */
function encoders(env: Env, display: number): number[] {
  try {
    return execFileSync('pgrep', ['-u', env.bed.user, '-f', `^ffmpeg .*x11grab.* -i :${display} `], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

async function chooseCodec(page: Page, codec: 'vnc' | 'video' | 'auto'): Promise<void> {
  const panel = page.getByTestId('codec-panel');
  if (!(await panel.isVisible())) await page.getByTestId('open-codec').click();
  await panel.getByTestId('codec-choice').selectOption(codec);
}

/** How alike the viewer's canvas and the server's own screenshot are now (SSIM on luma). */
async function ssimWithServer(page: Page, env: Env, display: number): Promise<number> {
  const { w, h } = await canvasSize(page);
  const shown = await canvasRgb(page, { x: 0, y: 0, w, h });
  if (!shown) return 0;
  return ssim(shown, await serverScreen(env.bed.home, display, { x: 0, y: 0, w, h }), w, h);
}

async function distinctFrames(page: Page, n: number, message: string): Promise<void> {
  const seen = new Set<string>();
  await expect.poll(async () => { seen.add(await canvasDigest(page)); return seen.size; }, { timeout: 60_000, message }).toBeGreaterThanOrEqual(n);
}

test('video mode: a TurboVNC desktop as H.264 from the server\'s ffmpeg, drawn by WebCodecs; keys still go; back to VNC exactly; an encoder killed mid-stream falls back with its reason', async ({ page, env }) => {
  test.setTimeout(600_000);
  expect(fs.existsSync(`${VGL}/glxspheres64`), 'VirtualGL is installed on the bed (.ci/run installs it)').toBe(true);
  fs.writeFileSync(`${env.home}/known_hosts`, `${env.bed.knownHostsLine}\n`);
  await env.app.open(page);
  await addProfile(page, env, 'gpuvideo');
  await page.getByRole('button', { name: 'Connect to gpuvideo' }).click();
  await expect(page.getByRole('heading', { name: 'gpuvideo', level: 1 })).toBeVisible({ timeout: 30_000 });
  await page.getByRole('tab', { name: 'Desktops' }).click();
  await page.getByLabel('Size').fill('1024x768');
  await page.getByLabel('Window manager').selectOption(env.desktop.windowManager);
  await page.getByRole('button', { name: 'Start desktop' }).click();
  await expect(page.getByTestId('started-display')).toBeVisible({ timeout: 60_000 });
  const display = Number(await page.getByTestId('started-display').getAttribute('data-display'));
  const row = page.getByTestId(`session-${display}`).filter({ hasText: 'TurboVNC' });
  await row.getByRole('button', { name: `View display ${display}` }).click();
  await expect(page.getByTestId('viewer-phase')).toHaveText('connected', { timeout: 30_000 });
  await expect.poll(() => canvasSize(page)).toEqual({ w: 1024, h: 768 });
  await expect.poll(() => windowViewable(env.bed.home, display, env.desktop.terminalTitle), { timeout: 30_000 }).toBe(true);
  await expect(page.getByTestId('hud-codec')).toHaveText('VNC');

  // Video: the server's ffmpeg (libx264 here: the bed has no GPU encoder) draws the screen.
  await chooseCodec(page, 'video');
  await expect(page.getByTestId('hud-codec')).toHaveText('H.264 video', { timeout: 30_000 });
  await expect(page.getByTestId('hud-encoder')).toHaveText('x264');
  await expect(page.getByTestId('codec-now')).toHaveText('Now: H.264 · libx264');
  expect(encoders(env, display)).toHaveLength(1);
  await page.getByTestId('codec-panel').getByRole('button', { name: 'Close quality panel' }).click();

  // Keys typed in video mode reach the desktop's terminal (RFB still carries input): the command
  // they type starts glxspheres64 under VirtualGL, which writes its log only if it ran.
  const tag = `gdvid${Date.now().toString(36)}`;
  const pidFile = `/tmp/${tag}.pid`;
  const logFile = `/tmp/${tag}.log`;
  await page.locator('[data-testid="vnc-screen"] canvas').click({ position: { x: 200, y: 150 } });
  await typeOnRemote(page, `${VGL}/vglrun -d egl0 ${VGL}/glxspheres64 -w 600x450 > ${logFile} 2>&1 & echo $! > ${pidFile}`);
  await page.keyboard.press('Enter');
  await expect.poll(() => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : ''), { timeout: 60_000 }).toContain('OpenGL Renderer:');
  const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
  try {
    // The canvas moves with the spheres, frame after frame of decoded video.
    await distinctFrames(page, 5, 'distinct canvas contents while the spheres turn (video)');
    await expect(page.getByTestId('hud-codec')).toHaveText('H.264 video');
    await expect(page.getByTestId('hud-decode')).not.toHaveText('—');
    await env.shot(page, 'viewer-video-glxspheres');

    // The program paused: the canvas's frame and the server's own screenshot of that moment agree
    // to an SSIM of at least 0.98 (video is lossy; intra refresh sharpens a still screen within a cycle).
    process.kill(pid, 'SIGSTOP');
    await expect.poll(() => ssimWithServer(page, env, display), { timeout: 30_000, message: 'SSIM of the video frame against the server\'s screenshot' }).toBeGreaterThanOrEqual(0.98);

    // Back to VNC with the screen still: a lossless refresh gives the server's screenshot exactly,
    // and the server's encoder is gone.
    await chooseCodec(page, 'vnc');
    await expect(page.getByTestId('hud-codec')).toHaveText('VNC');
    await expect.poll(() => pixelsUnlikeServer(page, env, display), { timeout: 30_000, message: 'pixels unlike the server\'s screenshot after the lossless refresh' }).toBe(0);
    await expect.poll(() => encoders(env, display).length, { timeout: 10_000 }).toBe(0);
    process.kill(pid, 'SIGCONT');

    // Video again, then its ffmpeg killed on the server mid-stream: the viewer is back on VNC at once
    // with the reason, and the canvas keeps moving (never black, never frozen).
    await chooseCodec(page, 'video');
    await expect(page.getByTestId('hud-codec')).toHaveText('H.264 video', { timeout: 30_000 });
    await expect.poll(() => encoders(env, display).length).toBe(1);
    for (const p of encoders(env, display)) process.kill(p, 'SIGKILL');
    await expect(page.getByTestId('video-fallback')).toContainText('Video mode stopped: The server\'s encoder stopped', { timeout: 10_000 });
    await expect(page.getByTestId('hud-codec')).toHaveText('VNC');
    await distinctFrames(page, 3, 'distinct canvas contents after the fallback to VNC');
    await env.shot(page, 'viewer-video-fallback');
  } finally {
    try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
    fs.rmSync(pidFile, { force: true });
    fs.rmSync(logFile, { force: true });
  }

  await page.getByRole('button', { name: 'Back to the server' }).click();
  await expect.poll(() => encoders(env, display).length, { timeout: 10_000 }).toBe(0);
  await row.getByRole('button', { name: `Stop display ${display}` }).click();
  await page.getByRole('dialog', { name: `Stop display :${display}?` }).getByRole('button', { name: 'Stop desktop' }).click();
  await expect(page.getByTestId(`session-${display}`)).toHaveCount(0, { timeout: 180_000 });
  await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
});
