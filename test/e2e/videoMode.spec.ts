import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { Page } from '@playwright/test';
import { serverScreen, windowViewable } from '../bed';
import { startDelayProxy } from '../bed/delayProxy';
import { expect, test, type Env } from './fixtures';
import { startAndView, stopAndDisconnect } from './desktopSteps';
import { ssim } from './ssim';
import { typeOnRemote } from './typing';
import { canvasDigest, canvasRgb, canvasSize, chooseLossless, pixelsUnlikeServer } from './viewerPixels';

const VGL = '/opt/VirtualGL/bin';

/** The bed account's encoder processes for a display (video mode's ffmpeg on the server). */
function encoders(env: Env, display: number): number[] {
  try {
    return execFileSync('pgrep', ['-u', env.bed.user, '-f', `^ffmpeg .*x11grab.* -i :${display} `], { encoding: 'utf8' }).split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function encoderCommandLines(env: Env, display: number): string[] {
  try {
    return execFileSync('pgrep', ['-a', '-u', env.bed.user, '-f', `^ffmpeg .*x11grab.* -i :${display} `], { encoding: 'utf8' }).split('\n').filter(Boolean);
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
  const { display, row } = await startAndView(page, env, 'gpuvideo', '1024x768');
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

    // A lower ceiling: a new stream at that bitrate replaces the one drawing, with no fall back to VNC
    // on the way (the old stream runs until the new one draws), and only the new encoder is left.
    await page.getByTestId('open-codec').click();
    await page.getByTestId('video-max').fill('1.5');
    await expect.poll(() => encoderCommandLines(env, display).some((l) => l.includes('-maxrate 1500k')), { timeout: 30_000, message: 'an encoder at 1500 kbit/s' }).toBe(true);
    await expect.poll(() => encoders(env, display).length, { timeout: 30_000 }).toBe(1);
    await expect(page.getByTestId('hud-codec')).toHaveText('H.264 video');
    await expect(page.getByTestId('video-fallback')).toHaveCount(0);
    // A thin budget means fewer, sharper frames: the capture rate the HUD shows is the server's encoder's.
    const rate = /-framerate (\d+) /.exec(encoderCommandLines(env, display)[0] ?? '')?.[1];
    expect(rate).toBe('12');
    await expect(page.getByTestId('hud-capture')).toHaveText(`${rate} a second`);
    await distinctFrames(page, 3, 'distinct canvas contents after the bitrate change');
    await page.getByTestId('codec-panel').getByRole('button', { name: 'Close quality panel' }).click();

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

    // The desktop resized on the server (RandR): the viewer's canvas follows, and a new stream at the
    // new size replaces the old one (its encoder grabs 800x600).
    execFileSync('xrandr', ['-display', `:${display}`, '-s', '800x600'], { env: { ...process.env, XAUTHORITY: `${env.bed.home}/.Xauthority` } });
    await expect.poll(() => canvasSize(page), { timeout: 30_000 }).toEqual({ w: 800, h: 600 });
    await expect.poll(() => encoderCommandLines(env, display).some((l) => l.includes('-video_size 800x600')), { timeout: 30_000, message: 'an encoder grabbing 800x600' }).toBe(true);
    // The stream at the old size is gone (a second one at the new size may be starting: a new bitrate).
    await expect.poll(() => encoderCommandLines(env, display).filter((l) => !l.includes('-video_size 800x600')).length, { timeout: 30_000, message: 'encoders still grabbing the old size' }).toBe(0);
    await expect(page.getByTestId('hud-codec')).toHaveText('H.264 video');
    await distinctFrames(page, 3, 'distinct canvas contents in video mode after the resize');

    // Killed until the viewer falls back: a stream ending while its successor is on its way (a new
    // bitrate chosen that second) is a replacement, not a fault, and the successor is killed next.
    await expect(async () => {
      for (const p of encoders(env, display)) process.kill(p, 'SIGKILL');
      await expect(page.getByTestId('video-fallback')).toContainText('Video mode stopped: The server\'s encoder stopped', { timeout: 3_000 });
    }).toPass({ timeout: 60_000 });
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
  await stopAndDisconnect(page, row, display);
});

test('Auto: over a slow link, full-screen motion switches to video, and motion stopping switches back to VNC with a lossless refresh', async ({ page, env }) => {
  test.setTimeout(600_000);
  // A home link: 4 Mbit/s with 10 ms each way and a small bottleneck buffer, in front of the bed's sshd.
  const link = await startDelayProxy({ targetPort: env.bed.port, delayMs: 10, rateBytesPerSec: 4e6 / 8, maxQueuedBytes: 256 * 1024 });
  try {
    const { display, row } = await startAndView(page, env, 'slowlink', '1024x768', { port: link.port });
    await expect.poll(() => windowViewable(env.bed.home, display, env.desktop.terminalTitle), { timeout: 30_000 }).toBe(true);
    await chooseCodec(page, 'auto');
    await page.getByTestId('codec-panel').getByRole('button', { name: 'Close quality panel' }).click();
    await expect(page.getByTestId('hud-codec')).toHaveText('VNC');

    const tag = `gdauto${Date.now().toString(36)}`;
    const pidFile = `/tmp/${tag}.pid`;
    await page.locator('[data-testid="vnc-screen"] canvas').click({ position: { x: 200, y: 150 } });
    // Most of the screen moving: the spheres' window almost as large as the desktop.
    await typeOnRemote(page, `${VGL}/vglrun -d egl0 ${VGL}/glxspheres64 -w 1000x740 >/dev/null 2>&1 & echo $! > ${pidFile}`);
    await page.keyboard.press('Enter');
    await expect.poll(() => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').trim() !== '', { timeout: 60_000 }).toBe(true);
    const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
    try {
      // JPEG tiles cannot keep up on this link: Auto hands the screen to the server's encoder.
      await expect(page.getByTestId('hud-codec')).toHaveText('H.264 video', { timeout: 90_000 });
      expect(encoders(env, display)).toHaveLength(1);
      await distinctFrames(page, 3, 'distinct canvas contents in video mode on the slow link');
      // Motion stops: back to VNC, and the lossless refresh gives the server's screenshot exactly.
      process.kill(pid, 'SIGSTOP');
      await expect(page.getByTestId('hud-codec')).toHaveText('VNC', { timeout: 30_000 });
      await expect.poll(() => pixelsUnlikeServer(page, env, display), { timeout: 60_000, message: 'pixels unlike the server\'s screenshot after Auto\'s lossless refresh' }).toBe(0);
      await expect.poll(() => encoders(env, display).length, { timeout: 10_000 }).toBe(0);
    } finally {
      try { process.kill(pid, 'SIGKILL'); } catch { /* already gone */ }
      fs.rmSync(pidFile, { force: true });
    }
    await page.getByRole('button', { name: 'Back to the server' }).click();
    await stopAndDisconnect(page, row, display);
  } finally {
    await link.stop();
  }
});

test('a desk decoder that refuses the stream\'s H.264 profile: video mode falls back to VNC with the reason, VNC keeps drawing, and the server\'s encoder is gone', async ({ page, env }) => {
  test.setTimeout(300_000);
  // A stand-in for a desk whose decoder takes less than the server sends (a hardware decoder limited
  // to a profile or level): Debian's Chromium decodes every H.264 libx264 makes, so such a desk cannot
  // exist here. The page's WebCodecs is told to accept exactly the configuration gpu-desk's own
  // capability check asks about (avc1.42401f) and nothing else; the stream itself is real.
  await page.addInitScript(() => {
    const VD = (globalThis as unknown as { VideoDecoder?: { isConfigSupported(c: { codec: string }): Promise<unknown> } }).VideoDecoder;
    if (!VD) return;
    const real = VD.isConfigSupported.bind(VD);
    VD.isConfigSupported = async (c) => (c.codec === 'avc1.42401f' ? real(c) : { supported: false, config: c });
  });
  const { display, row } = await startAndView(page, env, 'gpuvideo2', '800x600');
  await expect.poll(() => windowViewable(env.bed.home, display, env.desktop.terminalTitle), { timeout: 30_000 }).toBe(true);

  await chooseCodec(page, 'video');
  await expect(page.getByTestId('video-fallback')).toContainText('the desk\'s decoder refuses this H.264 profile (avc1.', { timeout: 30_000 });
  await expect(page.getByTestId('hud-codec')).toHaveText('VNC');
  await expect.poll(() => encoders(env, display).length, { timeout: 10_000 }).toBe(0);
  // VNC still draws what the server shows: a line typed into the desktop's terminal, then (lossless
  // Tight, for exact pixels) the canvas equals the server's own screenshot.
  await page.getByTestId('codec-panel').getByRole('button', { name: 'Close quality panel' }).click();
  await page.locator('[data-testid="vnc-screen"] canvas').click({ position: { x: 200, y: 150 } });
  await typeOnRemote(page, 'echo still-vnc');
  await chooseLossless(page);
  await expect.poll(() => pixelsUnlikeServer(page, env, display), { timeout: 30_000, message: 'pixels unlike the server\'s screenshot after the fallback' }).toBe(0);

  await page.getByRole('button', { name: 'Back to the server' }).click();
  await stopAndDisconnect(page, row, display);
});

test('a reconnect in video mode: the SSH link drops, the viewer says so, the server\'s encoder ends, and once the server is back video draws again with one encoder', async ({ page, env }) => {
  test.setTimeout(300_000);
  const { display, row } = await startAndView(page, env, 'gpuvideo3', '800x600');
  await expect.poll(() => windowViewable(env.bed.home, display, env.desktop.terminalTitle), { timeout: 30_000 }).toBe(true);
  await chooseCodec(page, 'video');
  await expect(page.getByTestId('hud-codec')).toHaveText('H.264 video', { timeout: 30_000 });
  await page.getByTestId('codec-panel').getByRole('button', { name: 'Close quality panel' }).click();
  await expect.poll(() => ssimWithServer(page, env, display), { timeout: 30_000, message: 'SSIM of the video frame against the server\'s screenshot before the drop' }).toBeGreaterThanOrEqual(0.98);
  const { w, h } = await canvasSize(page);

  // The server's sshd goes away (its sessions with it: the encoder's channel closes, so ffmpeg ends);
  // the desktop itself (vncserver, detached) stays.
  await env.bed.kill();
  await expect(page.getByTestId('viewer-phase')).toHaveText('reconnecting', { timeout: 30_000 });
  // Meanwhile the last picture stays on screen (under the overlay), not a black box: still the server's screen.
  const lastPicture = '[data-testid="last-picture"] canvas';
  await expect(page.locator(lastPicture)).toHaveCount(1);
  const kept = await canvasRgb(page, { x: 0, y: 0, w, h }, lastPicture);
  expect(kept, 'the kept picture has the desktop\'s size').not.toBeNull();
  expect(ssim(kept!, await serverScreen(env.bed.home, display, { x: 0, y: 0, w, h }), w, h)).toBeGreaterThanOrEqual(0.98);
  await expect.poll(() => encoders(env, display).length, { timeout: 10_000 }).toBe(0);
  await env.bed.restart();
  await expect(page.getByTestId('viewer-phase')).toHaveText('connected', { timeout: 90_000 });
  // No question of an attempt that is over is left open over the viewer (a CI run once had a password dialog here).
  await expect(page.getByRole('dialog')).toHaveCount(0);
  // The codec chosen was Video: the new connection's viewer starts a stream of its own.
  await expect(page.getByTestId('hud-codec')).toHaveText('H.264 video', { timeout: 30_000 });
  await expect.poll(() => encoders(env, display).length, { timeout: 30_000 }).toBe(1);
  await expect.poll(() => ssimWithServer(page, env, display), { timeout: 30_000, message: 'SSIM of the video frame against the server\'s screenshot after the reconnect' }).toBeGreaterThanOrEqual(0.98);
  // The new viewer drew over it, and the kept picture is gone.
  await expect(page.locator(lastPicture)).toHaveCount(0, { timeout: 10_000 });

  await page.getByRole('button', { name: 'Back to the server' }).click();
  await expect.poll(() => encoders(env, display).length, { timeout: 10_000 }).toBe(0);
  await stopAndDisconnect(page, row, display);
});
