import { CdpBrowser } from './cdp';
import { CHROMIUM_ARGS } from './browserViewer';
import { treeCpu } from './cpu';

/* eslint-disable @typescript-eslint/no-explicit-any */
declare const document: any;
declare const window: any;

export interface BareFloor {
  /** Chromium's CPU per Mpixel put on screen by a page that does nothing else (ms). */
  msPerMpixel: number;
  /** Chromium's CPU per composited frame of that page (ms). */
  msPerFrame: number;
  frames: number;
}

/**
 * The desk's floor, measured in the same run (issue 30): a bare page in the same Chromium (same
 * switches, a viewport of the viewer's size) that puts `rect` pixels of fresh content on one canvas
 * `fps` times a second and does nothing else: no bytes, no RFB, no decoding. Its CPU per Mpixel is
 * what any viewer in this browser pays to get pixels on screen, so the viewer's ratio can be read
 * against it.
 */
export async function measureBareFloor(size: { width: number; height: number }, rect: { w: number; h: number }, fps: number, seconds: number): Promise<BareFloor> {
  const browser = await CdpBrowser.launch(CHROMIUM_ARGS);
  try {
    const page = await browser.newPage('data:text/html,<title>floor</title><body></body>', size);
    await page.evaluate((a: { width: number; height: number; w: number; h: number; fps: number }) => {
      const c = document.createElement('canvas');
      c.width = a.width;
      c.height = a.height;
      document.body.style.margin = '0';
      document.body.appendChild(c);
      const ctx = c.getContext('2d');
      // Two images ready beforehand, so each tick is only the put and the frame it causes.
      const imgs = [0, 1].map((k) => {
        const img = ctx.createImageData(a.w, a.h);
        for (let i = 0; i < img.data.length; i += 4) { img.data[i] = (i >> 4) & 255; img.data[i + 1] = k * 200; img.data[i + 2] = (i >> 10) & 255; img.data[i + 3] = 255; }
        return img;
      });
      const w = window;
      w.__frames = 0;
      w.__run = true;
      const tick = () => {
        if (!w.__run) return;
        ctx.putImageData(imgs[w.__frames % 2], (w.__frames * 37) % Math.max(1, a.width - a.w), (w.__frames * 23) % Math.max(1, a.height - a.h));
        w.__frames++;
        setTimeout(tick, 1000 / a.fps);
      };
      tick();
    }, { ...size, ...rect, fps });
    // Past the first frames (the page's own start).
    await new Promise((r) => setTimeout(r, 1000));
    const f0 = await page.evaluate(() => window.__frames as number);
    const c0 = treeCpu([browser.pid]);
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const c1 = treeCpu([browser.pid]);
    const f1 = await page.evaluate(() => { window.__run = false; return window.__frames as number; });
    const frames = f1 - f0;
    const cpuMs = (c1 - c0) * 1000;
    return { msPerMpixel: cpuMs / ((frames * rect.w * rect.h) / 1e6), msPerFrame: cpuMs / Math.max(1, frames), frames };
  } finally {
    await browser.close();
  }
}
