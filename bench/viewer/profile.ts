/**
 * tsx bench/viewer/profile.ts [--size 1920x1080] [--seconds N] [--query '&x=1'] [--arg --flag ...] [--cpu-prof out.cpuprofile]
 * Where gpu-desk's viewer spends CPU in the motion workload: per Chromium process type and thread,
 * from /proc, while the viewer shows ffplay's testsrc2 at 1280x720 (same set-up as bench:viewer).
 * Take the bench lock first: flock /tmp/gpu-desk-bench.lock npx tsx bench/viewer/profile.ts
 */
import fs from 'node:fs';
import path from 'node:path';
import { cleanupAll, startXvnc } from '../../test/bed';
import { BrowserViewer } from './browserViewer';
import { benchProfile, startViewerBed } from './setup';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
declare const document: any;

const args = process.argv.slice(2);
const argOf = (n: string) => (args.indexOf(n) >= 0 ? args[args.indexOf(n) + 1] : undefined);
const SECONDS = Number(argOf('--seconds') ?? 8);
const extra = args.flatMap((a, i) => (args[i - 1] === '--arg' ? [a] : []));

function threads(): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let cmd: string;
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch { continue; }
    if (!cmd.startsWith('/usr/lib/chromium/chromium') && !/^(Xvnc|ffplay|sshd)/.test(path.basename(cmd.split('\0')[0])) && Number(pid) !== process.pid) continue;
    const type = Number(pid) === process.pid ? 'harness' : /--type=([a-z-]+)/.exec(cmd)?.[1] ?? path.basename(cmd.split('\0')[0]);
    let tids: string[] = [];
    try { tids = fs.readdirSync(`/proc/${pid}/task`); } catch { continue; }
    for (const tid of tids) {
      try {
        const st = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const comm = st.slice(st.indexOf('(') + 1, st.lastIndexOf(')')).replace(/\d+$/, '');
        const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
        const k = `${type}/${comm}`;
        out.set(k, (out.get(k) ?? 0) + (Number(f[11]) + Number(f[12])) / 100);
      } catch { /* gone */ }
    }
  }
  return out;
}

async function main(): Promise<void> {
  const app = await startViewerBed('gd-prof-');
  const { bed, harness } = app;
  const [w, h] = (argOf('--size') ?? '1280x720').split('x').map(Number);
  const xvnc = await startXvnc({ geometry: `${w}x${h}` });
  const viewer = await BrowserViewer.launch(harness, { width: w + 40, height: h + 120 }, { query: argOf('--query'), args: extra });
  const p = benchProfile('p', bed.port, bed.user, bed.userKeyPath, xvnc.display);
  await viewer.addProfile(p);
  if (argOf('--css')) await viewer.page.evaluate((css) => { const st = document.createElement('style'); st.textContent = css; document.head.append(st); }, argOf('--css'));
  const ff = args.includes('--idle') ? xvnc.run(['sleep', '600']) : xvnc.run(['env', 'SDL_RENDER_DRIVER=software', 'ffplay', '-loglevel', 'quiet', '-an', '-noborder', '-left', '0', '-top', '0', '-f', 'lavfi', '-i', `testsrc2=size=${w}x${h}:rate=60`]);
  try {
    await new Promise((r) => setTimeout(r, 1500));
    await viewer.connect('p');
    await new Promise((r) => setTimeout(r, 1500));
    const cdp = argOf('--cpu-prof') ? viewer.page : null;
    if (cdp) { await cdp.send('Profiler.enable'); await cdp.send('Profiler.setSamplingInterval', { interval: 200 }); await cdp.send('Profiler.start'); }
    if (args.includes('--geom')) console.log(await viewer.page.evaluate(`(() => { const c = document.querySelector('[data-testid="vnc-screen"] canvas'); const r = c.getBoundingClientRect(); const cs = getComputedStyle(c); let p = c, chain = []; while (p) { const s = getComputedStyle(p); chain.push(p.tagName + '.' + p.className + ' ' + s.transform + ' ' + s.willChange + ' ' + s.position + ' ov=' + s.overflow + ' op=' + s.opacity); p = p.parentElement; } return JSON.stringify({ r, dpr: devicePixelRatio, w: c.width, h: c.height, ir: cs.imageRendering, chain }); })()`));
    let f0 = 0;
    let f1 = 0;
    let a = new Map<string, number>();
    let b = a;
    const measure = async () => {
      f0 = await viewer.framesDrawn();
      a = threads();
      await new Promise((r) => setTimeout(r, SECONDS * 1000));
      b = threads();
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
    await viewer.disconnect();
  } finally {
    try { process.kill(-ff.pid!, 'SIGTERM'); } catch { /* gone */ }
    await viewer.close();
    await xvnc.stop();
    await app.close();
  }
}

main().then(() => process.exit(0), (e) => { console.error(e); void cleanupAll().finally(() => process.exit(1)); });
