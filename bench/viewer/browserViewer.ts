import { chromium, type Browser, type Page } from 'playwright-core';
import type { Harness } from '../../src/harness/server';
import type { ProfileInput } from '../../src/shared/contract';

// The page functions below run in the browser; this Node-typed project only needs their names.
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const window: any;
declare const document: any;

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'];

/** gpu-desk's viewer in headless Debian Chromium, driven through the real UI of the harness. */
export class BrowserViewer {
  private constructor(private readonly browser: Browser, readonly page: Page, private readonly harness: Harness) {}

  static async launch(harness: Harness, viewport: { width: number; height: number }, opts: { plain?: boolean; query?: string; args?: string[] } = {}): Promise<BrowserViewer> {
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: [...CHROMIUM_ARGS, ...(opts.args ?? [])] });
    const page = await browser.newPage({ viewport });
    // tsx (esbuild keepNames) wraps named inner functions in __name(); the page functions below have some.
    await page.addInitScript('globalThis.__name = (f) => f;');
    // ?debug exposes the live viewer as window.__gpuDeskViewer for the probes below.
    await page.goto(harness.url.replace('/#', `/?debug=1${opts.plain ? '&plain=1' : ''}${opts.query ?? ''}#`));
    await page.getByRole('heading', { name: 'Servers' }).waitFor();
    return new BrowserViewer(browser, page, harness);
  }

  async addProfile(p: Omit<ProfileInput, 'id'>): Promise<string> {
    const saved = await this.harness.core.handlers()['profiles.save']({ profile: p as ProfileInput });
    await this.page.reload();
    await this.page.getByTestId(`server-${p.name}`).waitFor();
    return saved.id;
  }

  /** Connect clicked → first frame drawn (the profile has a default display, so Connect opens it). */
  async connect(name: string): Promise<number> {
    await this.page.evaluate(() => {
      const w = window as unknown as { __clickAt?: number };
      w.__clickAt = undefined;
      document.addEventListener('click', () => { w.__clickAt ??= performance.now(); }, { capture: true, once: true });
    });
    await this.page.getByRole('button', { name: `Connect to ${name}` }).click();
    const handle = await this.page.waitForFunction(() => {
      const w = window as unknown as { __clickAt?: number; __gpuDeskViewer?: { firstFrameAt: number | null } };
      const f = w.__gpuDeskViewer?.firstFrameAt;
      return f != null && w.__clickAt !== undefined && f > w.__clickAt ? f - w.__clickAt : null;
    }, null, { timeout: 30_000, polling: 5 });
    return (await handle.jsonValue()) as number;
  }

  /** Leaves the viewer and closes the SSH connection (the VNC connection closes with it). */
  async disconnect(): Promise<void> {
    await this.page.getByRole('button', { name: 'Back to the server' }).click();
    await this.page.getByRole('button', { name: 'Disconnect' }).first().click();
    await this.page.getByRole('heading', { name: 'Servers' }).waitFor();
    await this.page.evaluate(() => { delete (window as unknown as { __gpuDeskViewer?: unknown }).__gpuDeskViewer; });
  }

  async framesDrawn(): Promise<number> {
    return this.page.evaluate(() => (window as unknown as { __gpuDeskViewer: { framesDrawn: number } }).__gpuDeskViewer.framesDrawn);
  }

  async bytesIn(): Promise<number> {
    return this.page.evaluate(() => (window as unknown as { __gpuDeskViewer: { channel: { stats: { bytesIn: number } } } }).__gpuDeskViewer.channel.stats.bytesIn);
  }

  async quality(): Promise<{ quality: number; compression: number }> {
    return this.page.evaluate(() => (window as unknown as { __gpuDeskViewer: { currentQuality: { quality: number; compression: number } } }).__gpuDeskViewer.currentQuality);
  }

  /**
   * Key sent → the frame that shows its echo drawn, `n` times: each key is a RFB key event for 'a'
   * into an xterm running cat; a frame counts once the xterm's pixels differ from before the key.
   */
  async keyLatencies(n: number, region: { x: number; y: number; w: number; h: number }): Promise<number[]> {
    return this.page.evaluate(async ({ n, region }) => {
      type V = { frameListeners: Set<(now: number) => void>; sendCombo(k: number[]): void; rfb: unknown };
      const v = (window as unknown as { __gpuDeskViewer: V }).__gpuDeskViewer;
      const canvas = document.querySelector('[data-testid="vnc-screen"] canvas');
      const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
      const hash = () => {
        const d = ctx.getImageData(region.x, region.y, region.w, region.h).data;
        let h = 0;
        for (let i = 0; i < d.length; i += 4) h = (Math.imul(h, 31) + d[i] + (d[i + 1] << 8)) | 0;
        return h;
      };
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const before = hash();
        const t0 = performance.now();
        const ms = await new Promise<number>((resolve) => {
          const timer = setTimeout(() => { v.frameListeners.delete(l); resolve(-1); }, 3000);
          const l = (now: number) => {
            if (hash() === before) return;
            clearTimeout(timer);
            v.frameListeners.delete(l);
            resolve(now - t0);
          };
          v.frameListeners.add(l);
          v.sendCombo([0x61]);
        });
        out.push(ms);
        await new Promise((r) => setTimeout(r, 40));
      }
      return out;
    }, { n, region });
  }

  /** With no window manager X focus follows the pointer: put it over the window that should get keys. */
  async pointAt(x: number, y: number): Promise<void> {
    await this.page.locator('[data-testid="vnc-screen"] canvas').click({ position: { x, y } });
  }

  async close(): Promise<void> {
    await this.browser.close();
  }
}
