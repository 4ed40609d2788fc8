import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { differingPixels, serverScreen, startXvnc, windowViewable } from '../bed';
import { expect, test } from './fixtures';
import { canvasSize } from './viewerPixels';

const CANVAS = '[data-testid="vnc-screen"] canvas';
const DESK = { w: 640, h: 400 };

/** A PNG (the page's screenshot) as packed RGB, decoded by ffmpeg; its size from the IHDR chunk. */
function pngToRgb(png: Buffer): Promise<{ w: number; h: number; rgb: Buffer }> {
  const w = png.readUInt32BE(16);
  const h = png.readUInt32BE(20);
  return new Promise((resolve, reject) => {
    const p = execFile('ffmpeg', ['-loglevel', 'error', '-f', 'png_pipe', '-i', '-', '-pix_fmt', 'rgb24', '-f', 'rawvideo', '-'], { encoding: 'buffer', maxBuffer: w * h * 3 + 1024 }, (err, out, stderr) => {
      if (err) reject(new Error(`decoding the screenshot failed: ${stderr.toString().trim() || err.message}`));
      else resolve({ w, h, rgb: out });
    });
    p.stdin!.end(png);
  });
}

/** Rows `rect` of a packed-RGB image `img.w` wide. */
function crop(img: { w: number; rgb: Buffer }, r: { x: number; y: number; w: number; h: number }): Buffer {
  const out = Buffer.alloc(r.w * r.h * 3);
  for (let y = 0; y < r.h; y++) img.rgb.copy(out, y * r.w * 3, ((r.y + y) * img.w + r.x) * 3, ((r.y + y) * img.w + r.x + r.w) * 3);
  return out;
}

/**
 * What the screen shows (the composited page in device pixels, as the display gets it) where the
 * viewer's canvas is, against the server's own screenshot: the count of pixels that differ, or -1
 * while the canvas does not cover exactly one device pixel per remote pixel.
 */
async function screenUnlikeServer(page: Page, home: string, display: number, dpr: number): Promise<number> {
  const box = await page.evaluate((sel) => {
    const r = document.querySelector(sel)!.getBoundingClientRect();
    return { x: r.left, y: r.top, w: r.width, h: r.height };
  }, CANVAS);
  // Layout lengths carry fractions (e.g. 639.98 device px for 640): whole device pixels are what count.
  if (Math.round(box.w * dpr) !== DESK.w || Math.round(box.h * dpr) !== DESK.h) return -1;
  const shot = await pngToRgb(await page.screenshot({ scale: 'device' }));
  // The viewer puts the canvas's origin on the device-pixel grid; rounding only drops float error.
  const shown = crop(shot, { x: Math.round(box.x * dpr), y: Math.round(box.y * dpr), ...DESK });
  return differingPixels(shown, await serverScreen(home, display, { x: 0, y: 0, ...DESK }));
}

for (const dpr of [1.25, 1.5]) {
  test.describe(`at ${dpr * 100} % (deviceScaleFactor ${dpr})`, () => {
    test.use({ deviceScaleFactor: dpr });

    test('"1:1" shows each remote pixel as one device pixel, exactly as the server shows it', async ({ page, env }) => {
      test.setTimeout(240_000);
      // Text and a solid block: any resampling blurs their edges into colours the server never drew.
      const xvnc = await startXvnc({ geometry: `${DESK.w}x${DESK.h}`, clients: [['xterm', '-geometry', '50x12+10+10', '-T', 'hidpi-term', '-e', 'sh', '-c', 'echo gpu-desk 1:1 at a fractional scale; exec cat']] });
      fs.writeFileSync(path.join(env.home, 'known_hosts'), `${env.bed.knownHostsLine}\n`);
      await env.app.invoke('profiles.save', {
        profile: {
          name: `hidpi-${dpr * 100}`, host: '127.0.0.1', port: env.bed.port, user: env.bed.user, jumpHosts: [], auth: { kind: 'key-file', path: env.bed.userKeyPath },
          display: { number: xvnc.display }, viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'off', adaptive: false }, forwards: [],
        },
      });
      await env.app.open(page);
      expect(await page.evaluate(() => devicePixelRatio)).toBe(dpr);
      await page.getByRole('button', { name: `Connect to hidpi-${dpr * 100}` }).click();
      await expect(page.getByTestId('viewer-phase')).toHaveText('connected', { timeout: 30_000 });
      await expect.poll(() => canvasSize(page)).toEqual({ w: DESK.w, h: DESK.h });
      await expect.poll(() => windowViewable(env.bed.home, xvnc.display, 'hidpi-term'), { timeout: 30_000 }).toBe(true);
      await expect(page.getByLabel('Scaling')).toHaveValue('native');

      // Lossless Tight: the server's pixels arrive unchanged, so any difference left is the display's.
      await page.getByTestId('open-codec').click();
      const panel = page.getByTestId('codec-panel');
      await panel.getByLabel('Preset').selectOption('lossless');
      await expect(panel.getByLabel('Lossless (no JPEG)')).toBeChecked();
      await panel.getByRole('button', { name: 'Close quality panel' }).click();
      await page.mouse.move(0, 0);

      await expect.poll(() => screenUnlikeServer(page, env.bed.home, xvnc.display, dpr), { timeout: 30_000, message: 'device pixels on screen unlike the server\'s own screenshot' }).toBe(0);
      await env.shot(page, `viewer-1to1-dpr${dpr}`);

      // Typed text arrives and is still exact (the canvas did not move off the grid when redrawn).
      const before = await serverScreen(env.bed.home, xvnc.display, { x: 0, y: 0, ...DESK });
      await page.locator(CANVAS).click({ position: { x: 100, y: 40 } });
      await page.keyboard.type('typed at a fractional scale');
      await page.mouse.move(0, 0);
      await expect.poll(async () => differingPixels(await serverScreen(env.bed.home, xvnc.display, { x: 0, y: 0, ...DESK }), before), { timeout: 30_000, message: 'the typed text on the server' }).toBeGreaterThan(0);
      await expect.poll(() => screenUnlikeServer(page, env.bed.home, xvnc.display, dpr), { timeout: 30_000 }).toBe(0);
      await page.getByRole('button', { name: 'Back to the server' }).click();
      await page.getByRole('button', { name: 'Disconnect', exact: true }).click();
      await xvnc.stop();
    });
  });
}
