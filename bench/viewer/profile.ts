/**
 * tsx bench/viewer/profile.ts [--size 1920x1080] [--seconds N] [--query '&x=1'] [--arg --flag ...]
 *   [--cpu-prof out.cpuprofile] [--trace out.json] [--rects] [--server TigerVNC|TurboVNC] [--spheres]
 *   [--eval EXPR] [--report EXPR] [--perf FILE] [--shaped] [--desk-nice N]
 * Where gpu-desk's viewer spends CPU in the motion workload: per Chromium process type and thread,
 * from /proc (the same sampler as bench:viewer, cpu.ts), while the viewer shows ffplay's testsrc2
 * (same set-up as bench:viewer; TigerVNC's Xvnc, or TurboVNC 3.3's with --server TurboVNC); --spheres:
 * bench:3d's vglrun glxspheres64 instead (TurboVNC only). --cpu-prof: the page's V8 profile; --trace:
 * Chromium's own trace; --rects: framebuffer updates per second, rectangles per update and their
 * Tight sub-encodings (fill, JPEG, basic = zlib copy/palette/gradient) with their areas.
 * --eval EXPR / --report EXPR: a page expression run before the measured seconds / one read after them
 * (ad-hoc probes, e.g. wrapping WebSocket.prototype.send to count the page's sends); --perf FILE: the
 * whole machine's samples over the measured seconds (`perf record -a -g`, for `perf report`).
 * Take the bench lock first: flock /tmp/gpu-desk-bench.lock npx tsx bench/viewer/profile.ts
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanupAll, signalGroup } from '../../test/bed';
import { BrowserViewer } from './browserViewer';
import { sampleProcs } from './cpu';
import { startBenchDesktop, type Flavour } from './desktops';
import { startViewerBed } from './setup';
import { startShapedLink } from '../3d/link';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const window: any;

const args = process.argv.slice(2);
const argOf = (n: string) => (args.indexOf(n) >= 0 ? args[args.indexOf(n) + 1] : undefined);
const SECONDS = Number(argOf('--seconds') ?? 8);
const extra = args.flatMap((a, i) => (args[i - 1] === '--arg' ? [a] : []));

/**
 * CPU seconds so far per process type (Chromium's --type, else the program) and thread name, for
 * the processes under `roots` (this viewer's browser, the workload) and the Xvnc of `display`:
 * other people's Chromium and Xvnc on a shared machine stay out.
 */
function threads(roots: number[], display: number): Map<string, number> {
  const procs = sampleProcs({ argv: true, threads: true });
  const parent = new Map(procs.map((p) => [p.pid, p.ppid]));
  const under = (pid: number) => {
    for (let q: number | undefined = pid, hops = 0; q !== undefined && q > 1 && hops < 64; q = parent.get(q), hops++) if (roots.includes(q)) return true;
    return false;
  };
  const out = new Map<string, number>();
  for (const p of procs) {
    const cmd = p.argv ?? [];
    const ours = p.pid === process.pid || under(p.pid) || (p.comm === 'Xvnc' && cmd.includes(`:${display}`));
    if (!ours) continue;
    const type = p.pid === process.pid ? 'harness' : cmd.join(' ').match(/--type=([a-z-]+)/)?.[1] ?? path.basename(cmd[0] ?? p.comm);
    for (const [comm, secs] of p.threads ?? []) out.set(`${type}/${comm}`, (out.get(`${type}/${comm}`) ?? 0) + secs);
  }
  return out;
}

/**
 * Page side of --rects: counts the rectangles of each framebuffer update by Tight sub-encoding
 * (fill, JPEG, basic = copy/palette/gradient through zlib) with their areas.
 */
type Fn = (...a: unknown[]) => boolean;
interface Census { updates: number; t0: number; m0: number; b0: number; kinds: Record<string, { n: number; px: number }> }
function installRectCensus(): void {
  const rfb = window.__gpuDeskViewer.rfb as { _decoders: Record<number, Record<string, Fn>>; _framebufferUpdate: () => boolean };
  const tight = rfb._decoders[7];
  const st = window.__gpuDeskViewer.channel.stats as { messagesIn: number; bytesIn: number };
  const c: Census = { updates: 0, t0: performance.now(), m0: st.messagesIn, b0: st.bytesIn, kinds: {} };
  window.__rectCensus = c;
  // `first`: where x, y, width, height start among the method's arguments (_basicRect takes ctl first).
  const wrap = (name: string, kind: string, first = 0) => {
    const orig = tight[name].bind(tight);
    tight[name] = (...a) => {
      const done = orig(...a);
      if (done) { const k = (c.kinds[kind] ??= { n: 0, px: 0 }); k.n++; k.px += (a[first + 2] as number) * (a[first + 3] as number); }
      return done;
    };
  };
  wrap('_fillRect', 'fill');
  wrap('_jpegRect', 'jpeg');
  wrap('_basicRect', 'basic', 1);
  const origFbu = rfb._framebufferUpdate.bind(rfb);
  rfb._framebufferUpdate = () => { const done = origFbu(); if (done) c.updates++; return done; };
}
function readRectCensus(): string {
  const c = window.__rectCensus as Census;
  const s = (performance.now() - c.t0) / 1000;
  const kinds = Object.entries(c.kinds);
  const rects = kinds.reduce((a, [, k]) => a + k.n, 0);
  const st = window.__gpuDeskViewer.channel.stats as { messagesIn: number; bytesIn: number };
  return `${((st.messagesIn - c.m0) / s).toFixed(0)} WebSocket messages/s (${((st.bytesIn - c.b0) / s / 1e6).toFixed(1)} MB/s), ${(c.updates / s).toFixed(1)} updates/s, ${(rects / Math.max(1, c.updates)).toFixed(1)} rects/update; ` +
    kinds.map(([name, k]) => `${name} ${(k.n / s).toFixed(0)}/s avg ${(k.px / Math.max(1, k.n)).toFixed(0)} px (${(k.px / s / 1e6).toFixed(2)} Mpx/s)`).join(', ');
}

async function main(): Promise<void> {
  const app = await startViewerBed('gd-prof-');
  const { bed, harness } = app;
  const [w, h] = (argOf('--size') ?? '1280x720').split('x').map(Number);
  const flavour = (argOf('--server') ?? 'TigerVNC') as Flavour;
  if (flavour !== 'TigerVNC' && flavour !== 'TurboVNC') throw new Error(`--server: "${flavour}" is not a server; use TigerVNC or TurboVNC`);
  const xvnc = await startBenchDesktop(flavour, bed, `${w}x${h}`);
  const viewer = await BrowserViewer.launch(harness, { width: w + 40, height: h + 120 }, { query: argOf('--query'), args: extra });
  // --shaped: through bench:3d's link (100 Mbit/s, 5 ms each way) instead of plain loopback.
  const link = args.includes('--shaped') ? await startShapedLink(bed, app.home) : null;
  await xvnc.addProfile(viewer, 'p', link?.port ?? bed.port);
  if (argOf('--css')) await viewer.page.evaluate((css) => { const st = document.createElement('style'); st.textContent = css; document.head.append(st); }, argOf('--css'));
  const ff = args.includes('--spheres') ? xvnc.run(['/opt/VirtualGL/bin/vglrun', '-d', 'egl0', '/opt/VirtualGL/bin/glxspheres64', '-w', '1240x900']) : args.includes('--idle') ? xvnc.run(['sleep', '600']) : xvnc.run(['ffplay', '-loglevel', 'quiet', '-an', '-noborder', '-left', '0', '-top', '0', '-f', 'lavfi', '-i', `testsrc2=size=${w}x${h}:rate=60`], { SDL_RENDER_DRIVER: 'software' });
  try {
    await new Promise((r) => setTimeout(r, 1500));
    await xvnc.open(viewer, 'p');
    await new Promise((r) => setTimeout(r, 1500));
    // --desk-nice N (diagnostic): every thread of the viewer's browser and the harness's main thread at nice N.
    if (argOf('--desk-nice')) {
      const n = Number(argOf('--desk-nice'));
      const procs = sampleProcs({ argv: false, threads: false });
      const kids = new Map<number, number[]>();
      for (const p of procs) kids.set(p.ppid, [...(kids.get(p.ppid) ?? []), p.pid]);
      const tree: number[] = [];
      for (const q = [viewer.browser.pid]; q.length;) { const x = q.pop()!; tree.push(x); q.push(...(kids.get(x) ?? [])); }
      const tids = tree.flatMap((pid) => { try { return fs.readdirSync(`/proc/${pid}/task`).map(Number); } catch { return []; } });
      for (const t of [...tids, process.pid]) { try { os.setPriority(t, n); } catch { /* gone */ } }
      console.log(`desk nice ${n}: ${tids.length} browser threads and the harness`);
    }
    const cdp = argOf('--cpu-prof') ? viewer.page : null;
    if (cdp) { await cdp.send('Profiler.enable'); await cdp.send('Profiler.setSamplingInterval', { interval: 200 }); await cdp.send('Profiler.start'); }
    if (args.includes('--geom')) console.log(await viewer.page.evaluate(`(() => { const c = document.querySelector('[data-testid="vnc-screen"] canvas'); const r = c.getBoundingClientRect(); const cs = getComputedStyle(c); let p = c, chain = []; while (p) { const s = getComputedStyle(p); chain.push(p.tagName + '.' + p.className + ' ' + s.transform + ' ' + s.willChange + ' ' + s.position + ' ov=' + s.overflow + ' op=' + s.opacity); p = p.parentElement; } return JSON.stringify({ r, dpr: devicePixelRatio, w: c.width, h: c.height, ir: cs.imageRendering, chain }); })()`));
    if (args.includes('--rects')) await viewer.page.evaluate(installRectCensus);
    // --eval: a page expression run before measuring, --report: one read after (ad-hoc probes).
    if (argOf('--eval')) await viewer.page.evaluate(argOf('--eval')!);
    const roots = [viewer.browser.pid, ff.pid!];
    let f0 = 0;
    let f1 = 0;
    let a = new Map<string, number>();
    let b = a;
    const measure = async () => {
      f0 = await viewer.framesDrawn();
      a = threads(roots, xvnc.display);
      const u0 = process.cpuUsage();
      // --perf FILE: the whole machine's samples over the measured seconds (perf record -a).
      const perf = argOf('--perf') ? spawn('perf', ['record', '-F', '1999', '-a', '-g', '-o', argOf('--perf')!, '--', 'sleep', String(SECONDS)], { stdio: 'ignore' }) : null;
      await new Promise((r) => setTimeout(r, SECONDS * 1000));
      if (perf) await new Promise((r) => perf.once('exit', r));
      const u1 = process.cpuUsage(u0);
      b = threads(roots, xvnc.display);
      console.log(`harness: user ${(u1.user / 1e4 / SECONDS).toFixed(1)}%, system ${(u1.system / 1e4 / SECONDS).toFixed(1)}%`);
      f1 = await viewer.framesDrawn();
    };
    const traceFile = argOf('--trace');
    if (traceFile) await viewer.browser.trace(traceFile, ['toplevel', 'viz', 'cc', 'blink', 'gpu', 'media', 'skia', 'disabled-by-default-devtools.timeline', 'benchmark', 'mojom'], measure);
    else await measure();
    if (cdp) {
      const { profile } = (await cdp.send('Profiler.stop')) as { profile: unknown };
      fs.writeFileSync(argOf('--cpu-prof')!, JSON.stringify(profile));
    }
    const rows = [...b].map(([k, v]) => [k, (v - (a.get(k) ?? 0)) / SECONDS] as const).filter(([, v]) => v > 0.005).sort((x, y) => y[1] - x[1]);
    const byType = new Map<string, number>();
    for (const [k, v] of rows) byType.set(k.split('/')[0], (byType.get(k.split('/')[0]) ?? 0) + v);
    const browserCpu = ['renderer', 'gpu-process', 'chromium', 'utility'].reduce((t, k) => t + (byType.get(k) ?? 0), 0) * SECONDS;
    console.log(`browser CPU per frame drawn ${(browserCpu * 1000 / Math.max(1, f1 - f0)).toFixed(2)} ms; frames drawn ${((f1 - f0) / SECONDS).toFixed(1)}/s; by process: ${[...byType].sort((x, y) => y[1] - x[1]).map(([k, v]) => `${k} ${(v * 100).toFixed(0)}%`).join(', ')}`);
    for (const [k, v] of rows.slice(0, 25)) console.log(`  ${k} ${(v * 100).toFixed(1)}%`);
    if (args.includes('--rects')) console.log(`rects: ${await viewer.page.evaluate(readRectCensus)}`);
    if (argOf('--report')) console.log(`report: ${await viewer.page.evaluate(argOf('--report')!)}`);
    await viewer.disconnect();
  } finally {
    signalGroup(ff, 'SIGTERM');
    await viewer.close();
    await xvnc.stop();
    await link?.stop();
    await app.close();
  }
}

main().then(() => process.exit(0), (e) => { console.error(e); void cleanupAll().finally(() => process.exit(1)); });
