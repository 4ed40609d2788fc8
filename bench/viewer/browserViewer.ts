import type { Harness } from '../../src/harness/server';
import { profileInputSchema, type ProfileInput } from '../../src/shared/contract';
import { CdpBrowser, type CdpPage } from './cdp';

// The page functions below run in the browser; this Node-typed project only needs their names.
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const window: any;
declare const document: any;

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'];

const hasHeading = (name: string) => [...document.querySelectorAll('h1, h2')].some((h: any) => h.textContent.trim() === name);

/**
 * gpu-desk's viewer in headless Debian Chromium, driven through the real UI of the harness over a
 * bare CDP pipe (see cdp.ts: no Network domain, so no per-WebSocket-frame instrumentation).
 */
export class BrowserViewer {
  /** The last connect's phases (ms after the click): ticket, wsopen, firstmsg, rfbconnect. */
  lastPhases: Record<string, number> = {};

  private constructor(readonly browser: CdpBrowser, readonly page: CdpPage, private readonly harness: Harness) {}

  /** The harness this viewer's page talks to (another viewer of the same app may open beside it). */
  get harnessRef(): Harness {
    return this.harness;
  }

  static async launch(harness: Harness, viewport: { width: number; height: number }, opts: { plain?: boolean; query?: string; args?: string[] } = {}): Promise<BrowserViewer> {
    const browser = await CdpBrowser.launch([...CHROMIUM_ARGS, ...(opts.args ?? [])]);
    // ?debug exposes the live viewer as window.__gpuDeskViewer for the probes below.
    const page = await browser.newPage(harness.url.replace('/#', `/?debug=1${opts.plain ? '&plain=1' : ''}${opts.query ?? ''}#`), viewport);
    await page.waitFor(hasHeading, 'Servers', { what: 'the Servers screen' });
    return new BrowserViewer(browser, page, harness);
  }

  async addProfile(p: Omit<ProfileInput, 'id'>): Promise<string> {
    const saved = await this.harness.core.handlers()['profiles.save']({ profile: profileInputSchema.parse(p) });
    await this.page.reload();
    await this.page.waitFor((id) => document.querySelector(`[data-testid="${id}"]`) !== null, `server-${p.name}`, { what: `server ${p.name} in the list` });
    return saved.id;
  }

  /** Shows a profile that another viewer of the same harness saved (the profile store is the harness's). */
  async showProfile(name: string): Promise<void> {
    await this.page.reload();
    await this.page.waitFor((id) => document.querySelector(`[data-testid="${id}"]`) !== null, `server-${name}`, { what: `server ${name} in the list` });
  }

  /** Connect clicked → first frame drawn (the profile has a default display, so Connect opens it). */
  async connect(name: string): Promise<number> {
    await this.markClick();
    await this.page.clickButton(`Connect to ${name}`);
    return this.untilFirstFrame();
  }

  /**
   * Connect clicked → the server page's probe done → "View display N" → first frame drawn: how a
   * person opens a running session that the profile does not name (the probe is also how gpu-desk
   * learns the server is TurboVNC and fetches a one-time password for the viewer). Resolves with the
   * milliseconds from "View display N" clicked to the first frame.
   */
  async viewSession(name: string, display: number): Promise<number> {
    await this.page.clickButton(`Connect to ${name}`);
    // The page's status line gains "· <OS> (<arch>)" once the probe's report is in.
    await this.page.waitFor(() => /\(\w+\)\s*$/.test(document.querySelector('.server-page .muted')?.textContent ?? ''), undefined, { what: 'the server probe' });
    await this.markClick();
    await this.page.clickButton(`View display ${display}`);
    return this.untilFirstFrame();
  }

  /** The next click's time, for untilFirstFrame. */
  private async markClick(): Promise<void> {
    await this.page.evaluate(() => {
      const w = window as unknown as { __clickAt?: number };
      w.__clickAt = undefined;
      document.addEventListener('click', () => { w.__clickAt ??= performance.now(); }, { capture: true, once: true });
    });
  }

  /** Milliseconds from the marked click to the viewer's first frame drawn. */
  private async untilFirstFrame(): Promise<number> {
    const ms = await this.page.waitFor(() => {
      const w = window as unknown as { __clickAt?: number; __gpuDeskViewer?: { firstFrameAt: number | null } };
      const f = w.__gpuDeskViewer?.firstFrameAt;
      return f != null && w.__clickAt !== undefined && f > w.__clickAt ? f - w.__clickAt : null;
    }, undefined, { everyMs: 5, what: 'the first frame' });
    // The viewer's own marks (ViewerScreen, channel.ts, rfbSession.ts), in ms after the click.
    this.lastPhases = await this.page.evaluate(() => {
      const c = (window as unknown as { __clickAt: number }).__clickAt;
      const out: Record<string, number> = {};
      for (const m of performance.getEntriesByType('mark')) if (m.name.startsWith('gd:') && m.startTime >= c) out[m.name.slice(3)] ??= m.startTime - c;
      performance.clearMarks();
      return out;
    });
    return ms;
  }

  /** After a failed step: every connection closed and the page back on the Servers screen. */
  async reset(): Promise<void> {
    const h = this.harness.core.handlers();
    for (const c of await h['connections.list']({})) await h['connections.close']({ connectionId: c.id }).catch(() => {});
    await this.page.reload();
    await this.page.waitFor(hasHeading, 'Servers', { what: 'the Servers screen' });
  }

  /** Leaves the viewer and closes the SSH connection (the VNC connection closes with it). */
  async disconnect(): Promise<void> {
    await this.page.clickButton('Back to the server');
    await this.page.clickButton('Disconnect');
    await this.page.waitFor(hasHeading, 'Servers', { what: 'the Servers screen' });
    await this.page.evaluate(() => { delete (window as unknown as { __gpuDeskViewer?: unknown }).__gpuDeskViewer; });
  }

  /** The codec through the viewer's Quality panel, as a person picks it (test/e2e/videoMode.spec.ts). */
  async chooseCodec(codec: 'vnc' | 'video' | 'auto'): Promise<void> {
    await this.page.waitFor(() => document.querySelector('[data-testid="open-codec"]') !== null, undefined, { what: 'the Quality button' });
    await this.page.evaluate(() => { if (!document.querySelector('[data-testid="codec-panel"]')) document.querySelector('[data-testid="open-codec"]').click(); });
    await this.page.waitFor(() => { const o = document.querySelector('[data-testid="codec-choice"] option[value="video"]'); return o !== null && !o.disabled; }, undefined, { what: 'the codec choice with Video enabled (WebCodecs H.264)' });
    await this.page.evaluate((c) => {
      const sel = document.querySelector('[data-testid="codec-choice"]');
      sel.value = c;
      sel.dispatchEvent(new window.Event('change', { bubbles: true }));
      document.querySelector('[data-testid="codec-panel"] button[aria-label="Close quality panel"]')?.click();
    }, codec);
  }

  /** The HUD's codec line (e.g. "H.264 · x264"), or null without one. */
  async hudCodec(): Promise<string | null> {
    return this.page.evaluate(() => document.querySelector('[data-testid="hud-codec"]')?.textContent ?? null);
  }

  async framesDrawn(): Promise<number> {
    return this.page.evaluate(() => (window as unknown as { __gpuDeskViewer: { framesDrawn: number } }).__gpuDeskViewer.framesDrawn);
  }

  /** Area of the rectangles the viewer has received and drawn so far (pixel-carrying encodings). */
  async pixelsReceived(): Promise<number> {
    return this.page.evaluate(() => (window as unknown as { __gpuDeskViewer: { pixelsReceived: number } }).__gpuDeskViewer.pixelsReceived);
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
      // The viewer draws into the OffscreenCanvas the element carries (rfbPatches.ts, installOffscreen).
      const el = document.querySelector('[data-testid="vnc-screen"] canvas');
      const ctx = (el[Symbol.for('gpu-desk.viewer.offscreen')] ?? el).getContext('2d')!;
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
    const r = await this.page.evaluate(() => {
      const b = document.querySelector('[data-testid="vnc-screen"] canvas').getBoundingClientRect();
      return { left: b.left as number, top: b.top as number };
    });
    await this.page.mouseClick(r.left + x, r.top + y);
  }

  async close(): Promise<void> {
    await this.browser.close();
  }
}
