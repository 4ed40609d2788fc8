/**
 * A bare Chrome DevTools Protocol connection to Debian's Chromium over --remote-debugging-pipe,
 * for the viewer benchmark. Why not Playwright here: Playwright enables the Network domain on
 * every page, so Chromium mirrors each WebSocket frame (payload base64-encoded into JSON) to the
 * driver. For the viewer's VNC byte channel that is ~10 MB/s of extra encoding in the browser and
 * JSON parsing in the driver — CPU the native viewer's run never pays. This client enables no
 * domain; it only evaluates script, dispatches input and reads the trace it is asked for.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { viewerSwitchArgs } from '../../src/shared/chromiumSwitches';

type Json = Record<string, unknown>;
interface Pending { resolve(v: Json): void; reject(e: Error): void; method: string }

export class CdpBrowser {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<(params: Json, sessionId?: string) => void>>();
  private buf = '';

  private constructor(private readonly proc: ChildProcess, private readonly userDataDir: string) {
    const out = proc.stdio[4] as Readable;
    out.setEncoding('utf8');
    out.on('data', (d: string) => this.onData(d));
    proc.once('exit', () => {
      for (const p of this.pending.values()) p.reject(new Error(`chromium exited during ${p.method}`));
      this.pending.clear();
    });
  }

  /** The browser process (its renderers, GPU and utility processes are its descendants). */
  get pid(): number {
    return this.proc.pid!;
  }

  static async launch(args: string[]): Promise<CdpBrowser> {
    const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-bench-chromium-'));
    const proc = spawn('/usr/bin/chromium', [
      '--headless', '--remote-debugging-pipe', `--user-data-dir=${userDataDir}`, '--no-first-run', '--no-default-browser-check',
      '--mute-audio', '--hide-scrollbars',
      // The switches the app ships with (a headless tab counts as hidden: they also keep it scheduled
      // like the visible window a user looks at).
      ...viewerSwitchArgs(),
      ...args, 'about:blank',
    ], { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] });
    const b = new CdpBrowser(proc, userDataDir);
    await b.send('Browser.getVersion');
    return b;
  }

  private onData(d: string): void {
    this.buf += d;
    for (let i = this.buf.indexOf('\0'); i >= 0; i = this.buf.indexOf('\0')) {
      const msg = JSON.parse(this.buf.slice(0, i)) as { id?: number; result?: Json; error?: { message: string }; method?: string; params?: Json; sessionId?: string };
      this.buf = this.buf.slice(i + 1);
      if (msg.id !== undefined) {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error) p?.reject(new Error(`${p.method}: ${msg.error.message}`));
        else p?.resolve(msg.result ?? {});
      } else if (msg.method) {
        for (const l of this.listeners.get(msg.method) ?? []) l(msg.params ?? {}, msg.sessionId);
      }
    }
  }

  send(method: string, params: Json = {}, sessionId?: string): Promise<Json> {
    const id = this.nextId++;
    const p = new Promise<Json>((resolve, reject) => this.pending.set(id, { resolve, reject, method }));
    (this.proc.stdio[3] as Writable).write(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }) + '\0');
    return p;
  }

  on(method: string, fn: (params: Json, sessionId?: string) => void): () => void {
    const set = this.listeners.get(method) ?? new Set();
    set.add(fn);
    this.listeners.set(method, set);
    return () => set.delete(fn);
  }

  /** A new tab showing `url`, attached with a flat session. */
  async newPage(url: string, viewport: { width: number; height: number }): Promise<CdpPage> {
    const { targetId } = (await this.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
    const { sessionId } = (await this.send('Target.attachToTarget', { targetId, flatten: true })) as { sessionId: string };
    const page = new CdpPage(this, sessionId);
    await page.send('Emulation.setDeviceMetricsOverride', { width: viewport.width, height: viewport.height, deviceScaleFactor: 1, mobile: false });
    await page.goto(url);
    return page;
  }

  /** Chromium's trace of `categories` while `during` runs, written as a trace-viewer JSON file. */
  async trace(file: string, categories: string[], during: () => Promise<void>): Promise<void> {
    const events: unknown[] = [];
    const offData = this.on('Tracing.dataCollected', (p) => { events.push(...(p.value as unknown[])); });
    const done = new Promise<void>((r) => { const off = this.on('Tracing.tracingComplete', () => { off(); r(); }); });
    await this.send('Tracing.start', { traceConfig: { includedCategories: categories }, transferMode: 'ReportEvents' });
    try {
      await during();
    } finally {
      await this.send('Tracing.end');
      await done;
      offData();
      fs.writeFileSync(file, JSON.stringify({ traceEvents: events }));
    }
  }

  async close(): Promise<void> {
    const gone = new Promise((r) => this.proc.once('exit', r));
    try { await Promise.race([this.send('Browser.close'), gone]); } catch { /* already gone */ }
    await Promise.race([gone, new Promise((r) => setTimeout(r, 3000))]);
    if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
    fs.rmSync(this.userDataDir, { recursive: true, force: true });
  }
}

export class CdpPage {
  constructor(readonly browser: CdpBrowser, readonly sessionId: string) {}

  send(method: string, params: Json = {}): Promise<Json> {
    return this.browser.send(method, params, this.sessionId);
  }

  /**
   * Runs `fn(arg)` in the page and returns its (awaited, JSON) result. tsx (esbuild keepNames)
   * wraps named inner functions in __name(); the page gets an identity __name first.
   */
  async evaluate<A, R>(fn: ((arg: A) => R | Promise<R>) | string, arg?: A): Promise<R> {
    const expression = typeof fn === 'string' ? fn : `globalThis.__name ??= (f) => f; (${fn.toString()})(${JSON.stringify(arg ?? null)})`;
    const r = (await this.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true, userGesture: true })) as {
      result: { value?: R }; exceptionDetails?: { exception?: { description?: string }; text: string };
    };
    if (r.exceptionDetails) throw new Error(`page: ${r.exceptionDetails.exception?.description ?? r.exceptionDetails.text}`);
    return r.result.value as R;
  }

  /** Polls `fn(arg)` every `everyMs` until it returns something other than null/false. */
  async waitFor<A, R>(fn: (arg: A) => R | null | false, arg?: A, opts: { timeoutMs?: number; everyMs?: number; what?: string } = {}): Promise<R> {
    const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
    for (;;) {
      const v = await this.evaluate(fn, arg);
      if (v !== null && v !== false && v !== undefined) return v as R;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${opts.what ?? 'the page'}`);
      await new Promise((r) => setTimeout(r, opts.everyMs ?? 20));
    }
  }

  async goto(url: string): Promise<void> {
    await this.send('Page.navigate', { url });
    await this.waitFor(() => document.readyState === 'complete' && location.href !== 'about:blank', undefined, { what: `${url} to load` });
  }

  async reload(): Promise<void> {
    await this.evaluate(() => { location.reload(); });
    await new Promise((r) => setTimeout(r, 50));
    await this.waitFor(() => document.readyState === 'complete', undefined, { what: 'the reload' });
  }

  /** Clicks (in-page) the button whose accessible name (aria-label, else text) is `name`. */
  async clickButton(name: string): Promise<void> {
    await this.waitFor((n) => {
      const b = [...document.querySelectorAll('button')].find((x) => ((x.getAttribute('aria-label') ?? x.textContent ?? '').trim() === n) && !x.disabled);
      if (!b) return false;
      b.click();
      return true;
    }, name, { what: `button "${name}"` });
  }

  /** A real mouse click at page coordinates (input goes through the browser like a user's). */
  async mouseClick(x: number, y: number): Promise<void> {
    for (const type of ['mousePressed', 'mouseReleased']) {
      await this.send('Input.dispatchMouseEvent', { type, x, y, button: 'left', clickCount: 1 });
    }
  }
}

// Page functions run in the browser; this Node-typed project only needs their names.
/* eslint-disable @typescript-eslint/no-explicit-any */
declare const document: any;
declare const location: any;
