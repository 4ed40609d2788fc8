/**
 * npm run bench:viewer — gpu-desk's viewer (headless Chromium, the real harness, SSH tunnel through
 * the bed's sshd) against TigerVNC's native viewer, in one run on this machine:
 *   1. full-motion pixel rate (ffplay testsrc2 1280x720 and 1920x1080 at 60 fps), counted for both
 *      viewers by Xvnc's own per-connection EncodeManager statistics, same duration, alternating;
 *   2. key-to-screen latency (median of 50), loopback and through a 50 ms-each-way delaying proxy;
 *   3. connect time: Connect clicked → first frame drawn;
 *   4. adaptive vs fixed quality 9 through a 10 Mbit/s link (user-space rate-limiting proxy): fps.
 * Figures are ratios within this run; the server, the workload and both viewers share the CPUs.
 * --variant '&flag=1' adds a second gpu-desk viewer with those page query flags to the motion runs,
 * alternating with the others (e.g. '&smooth=1': the browser's default canvas sampling).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanupAll, freePort, freeXDisplay, startSshd, startXvnc, waitForPort, type XvncBed } from '../test/bed';
import { startDelayProxy } from '../test/bed/delayProxy';
import { parseEncodeStats } from './viewer/xvncLog';
import { runNativeViewer, stop } from './viewer/nativeViewer';
import { BrowserViewer } from './viewer/browserViewer';
import { cpuDiff, cpuSnapshot, VIEWER_PROCS } from './viewer/cpu';
import { measureChannel } from './viewer/channel';
import { benchProfile, COMPRESSION, QUALITY, startViewerBed } from './viewer/setup';

const SHOW_CPU = process.argv.includes('--cpu');

const args = process.argv.slice(2);
const SECONDS = Number(argOf('--seconds') ?? 12);
const ROUNDS = Number(argOf('--rounds') ?? 2);
const only = argOf('--only')?.split(',');
const NATIVE_DIRECT = args.includes('--native-direct');
const VARIANT = argOf('--variant');

function argOf(name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}
const want = (part: string) => !only || only.includes(part);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const line = (s: string) => process.stdout.write(`${s}\n`);
const fmt = (n: number, d = 1) => n.toFixed(d);

function playMotion(x: XvncBed, w: number, h: number): ChildProcess {
  // SDL's default renderer here is OpenGL on llvmpipe (two busy threads); its software renderer
  // draws the same frames for less CPU, which both viewers then compete less with.
  return x.run(['env', 'SDL_RENDER_DRIVER=software', 'ffplay', '-loglevel', 'quiet', '-an', '-noborder', '-left', '0', '-top', '0', '-f', 'lavfi', '-i', `testsrc2=size=${w}x${h}:rate=60`]);
}

/** New EncodeManager blocks appended to the Xvnc log after `offset`, waiting for `count` of them. */
async function newStats(logPath: string, offset: number, count = 1) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const stats = parseEncodeStats(fs.readFileSync(logPath, 'utf8').slice(offset));
    if (stats.length >= count || Date.now() > deadline) return stats;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** OpenSSH's own -L forward to the Xvnc port through the bed's sshd (the tunnel reference). */
async function opensshForward(bed: Awaited<ReturnType<typeof startSshd>>, remotePort: number): Promise<{ proc: ChildProcess; port: number }> {
  const port = await freePort();
  const proc = spawn('ssh', ['-N', '-L', `127.0.0.1:${port}:127.0.0.1:${remotePort}`, '-p', String(bed.port), '-i', bed.userKeyPath,
    '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR',
    `${bed.user}@127.0.0.1`], { stdio: 'ignore', detached: true });
  await waitForPort(port, 10_000);
  return { proc, port };
}

async function main(): Promise<void> {
  const app = await startViewerBed('gd-bench-viewer-');
  const { home, bed, harness } = app;
  line(`bench:viewer — ${os.cpus().length} CPUs, ${SECONDS} s per run, ${ROUNDS} rounds alternating, quality ${QUALITY}, compression ${COMPRESSION}, Tight`);
  const children: ChildProcess[] = [];
  try {
    if (want('channel')) {
      const c = await measureChannel();
      line(`viewer byte channel (token-guarded loopback WebSocket, no SSH): 64-byte round trip ${fmt(c.channelRttUs, 0)} us vs ${fmt(c.directRttUs, 0)} us direct TCP; bulk ${fmt(c.channelMiBs, 0)} MiB/s vs ${fmt(c.directMiBs, 0)} MiB/s (ratio ${fmt(c.channelMiBs / c.directMiBs, 2)}x)`);
    }
    const sizes = ([[1280, 720], [1920, 1080]] as const).filter(([w]) => want('motion') || (w === 1280 && (want('latency') || want('connect') || want('adaptive'))));
    for (const [w, h] of sizes) {
      const xvnc = await startXvnc({ geometry: `${w}x${h}` });
      const viewer = await BrowserViewer.launch(harness, { width: w + 40, height: h + 120 });
      const name = `xvnc${w}`;
      await viewer.addProfile(benchProfile(name, bed.port, bed.user, bed.userKeyPath, xvnc.display));

      if (want('motion')) {
        const motion = playMotion(xvnc, w, h);
        children.push(motion);
        // The native viewer reaches the session the way its users do: OpenSSH's ssh -L to the same sshd.
        const tunnel = NATIVE_DIRECT ? null : await opensshForward(bed, xvnc.port);
        if (tunnel) children.push(tunnel.proc);
        // --variant '&flag=1': a second gpu-desk viewer with extra page query flags, alternating with the first.
        const variant = VARIANT ? await BrowserViewer.launch(harness, { width: w + 40, height: h + 120 }, { query: VARIANT }) : null;
        const plain = !args.includes('--no-plain') ? await BrowserViewer.launch(harness, { width: w + 40, height: h + 120 }, { plain: true }) : null;
        await new Promise((r) => setTimeout(r, 1500));
        const totals: Record<string, { pixels: number; updates: number }> = {};
        const add = (k: string, st: { pixels: number; updates: number }) => {
          totals[k] ??= { pixels: 0, updates: 0 };
          totals[k].pixels += st.pixels;
          totals[k].updates += st.updates;
        };
        const runOurs = async (v: BrowserViewer) => {
          const off = fs.statSync(xvnc.logPath).size;
          await v.connect(name);
          const c0 = cpuSnapshot(VIEWER_PROCS);
          await new Promise((r) => setTimeout(r, SECONDS * 1000));
          if (SHOW_CPU) line(`    cpu (browser viewer): ${cpuDiff(c0, cpuSnapshot(VIEWER_PROCS), SECONDS)}`);
          await v.disconnect();
          const o = (await newStats(xvnc.logPath, off))[0];
          if (!o) throw new Error('no EncodeManager statistics for the browser viewer in the Xvnc log');
          return o;
        };
        for (let round = 0; round < ROUNDS; round++) {
          const off = fs.statSync(xvnc.logPath).size;
          const c0 = cpuSnapshot(VIEWER_PROCS);
          await runNativeViewer({
            port: tunnel?.port ?? xvnc.port, width: w, height: h, quality: QUALITY, compression: COMPRESSION, seconds: SECONDS, xvfbDisplay: await freeXDisplay(),
            beforeStop: () => { if (SHOW_CPU) line(`    cpu (native viewer): ${cpuDiff(c0, cpuSnapshot(VIEWER_PROCS), SECONDS)}`); },
          });
          const n = (await newStats(xvnc.logPath, off))[0];
          if (!n) throw new Error('no EncodeManager statistics for the native viewer in the Xvnc log');
          add('native', n);
          const o = await runOurs(viewer);
          add('gpu-desk', o);
          let pl = '';
          if (variant) {
            const vr = await runOurs(variant);
            add('variant', vr);
            pl += `, variant ${fmt(vr.pixels / 1e6)} Mpixels (${vr.updates} updates)`;
          }
          if (plain) {
            const p = await runOurs(plain);
            add('plain', p);
            pl += `, plain noVNC ${fmt(p.pixels / 1e6)} Mpixels (${p.updates} updates)`;
          }
          line(`  ${w}x${h} round ${round + 1}: native ${fmt(n.pixels / 1e6)} Mpixels (${n.updates} updates), gpu-desk ${fmt(o.pixels / 1e6)} Mpixels (${o.updates} updates)${pl}`);
        }
        await plain?.close();
        await variant?.close();
        if (tunnel) await stop(tunnel.proc);
        await stop(motion);
        const t = SECONDS * ROUNDS;
        const rate = (k: string) => `${fmt(totals[k].pixels / t / 1e6)} Mpixel/s (${fmt(totals[k].updates / t)} updates/s)`;
        line(`motion ${w}x${h}: native${NATIVE_DIRECT ? ' (direct)' : ' (via ssh -L)'} ${rate('native')}, gpu-desk ${rate('gpu-desk')}, ratio ${fmt(totals['gpu-desk'].pixels / totals.native.pixels, 2)}x (target >= 0.9x)` +
          (totals.variant ? `; variant ${VARIANT} ${rate('variant')}, ratio ${fmt(totals.variant.pixels / totals.native.pixels, 2)}x` : '') +
          (totals.plain ? `; plain noVNC 1.7 on the same path ${rate('plain')}, ratio ${fmt(totals.plain.pixels / totals.native.pixels, 2)}x` : ''));
      }

      if (w === 1280 && (want('latency') || want('connect'))) {
        // A fresh session: after ffplay (SDL takes the X input focus) an X server without a window
        // manager is left with focus None and would drop the probe's keys.
        const keyDesk = await startXvnc({ geometry: `${w}x${h}`, clients: [['xterm', '-geometry', '80x24+0+0', '-e', 'cat']] });
        await viewer.addProfile(benchProfile('keys', bed.port, bed.user, bed.userKeyPath, keyDesk.display));
        const name = 'keys';
        await new Promise((r) => setTimeout(r, 1000));
        if (want('connect')) {
          const times: number[] = [];
          for (let i = 0; i < 5; i++) {
            times.push(await viewer.connect(name));
            await viewer.disconnect();
          }
          line(`connect time (Connect clicked -> first frame drawn, loopback): median ${fmt(median(times), 0)} ms of 5 [${times.map((x) => fmt(x, 0)).join(', ')}] (target <= 1000 ms)`);
        }
        if (want('latency')) {
          const region = { x: 0, y: 0, w: 490, h: 330 };
          await viewer.connect(name);
          await new Promise((r) => setTimeout(r, 500));
          await viewer.pointAt(200, 150);
          await new Promise((r) => setTimeout(r, 300));
          const lat = await viewer.keyLatencies(50, region);
          await viewer.disconnect();
          const ok = lat.filter((x) => x >= 0);
          line(`key-to-screen, loopback: median ${fmt(median(ok))} ms of ${ok.length} (p90 ${fmt(median(ok.slice().sort((a, b) => a - b).slice(Math.floor(ok.length * 0.8))))} ms${ok.length < lat.length ? `, ${lat.length - ok.length} not seen within 3 s` : ''}) (target <= 30 ms)`);

          const proxy = await startDelayProxy({ targetPort: bed.port, delayMs: 50 });
          await viewer.addProfile(benchProfile('delayed', proxy.port, bed.user, bed.userKeyPath, keyDesk.display));
          fs.appendFileSync(path.join(home, 'known_hosts'), `[127.0.0.1]:${proxy.port} ${bed.knownHostsLine.split(' ').slice(1).join(' ')}\n`);
          await viewer.connect('delayed');
          await new Promise((r) => setTimeout(r, 1000));
          await viewer.pointAt(200, 150);
          await new Promise((r) => setTimeout(r, 500));
          const dl = (await viewer.keyLatencies(50, region)).filter((x) => x >= 0);
          await viewer.disconnect();
          await proxy.stop();
          line(`key-to-screen, 50 ms each way (100 ms round trip): median ${fmt(median(dl))} ms of ${dl.length} (target <= 130 ms)`);
        }
        await keyDesk.stop();
      }

      if (w === 1280 && want('adaptive')) {
        const motion = playMotion(xvnc, w, h);
        children.push(motion);
        const rate = 10e6 / 8;
        const proxy = await startDelayProxy({ targetPort: bed.port, delayMs: 1, rateBytesPerSec: rate });
        const keyLine = bed.knownHostsLine.split(' ').slice(1).join(' ');
        fs.appendFileSync(path.join(home, 'known_hosts'), `[127.0.0.1]:${proxy.port} ${keyLine}\n`);
        await viewer.addProfile(benchProfile('slow-fixed9', proxy.port, bed.user, bed.userKeyPath, xvnc.display, { quality: 9, adaptive: false }));
        await viewer.addProfile(benchProfile('slow-adaptive', proxy.port, bed.user, bed.userKeyPath, xvnc.display, { quality: 9, adaptive: true }));
        const result: Record<string, { fps: number; mbit: number; q: number }> = {};
        for (const p of ['slow-fixed9', 'slow-adaptive']) {
          await viewer.connect(p);
          await new Promise((r) => setTimeout(r, 6000)); // let the link queue and the controller settle
          const f0 = await viewer.framesDrawn();
          const b0 = await viewer.bytesIn();
          await new Promise((r) => setTimeout(r, 15_000));
          const f1 = await viewer.framesDrawn();
          const b1 = await viewer.bytesIn();
          const q = await viewer.quality();
          await viewer.disconnect();
          result[p] = { fps: (f1 - f0) / 15, mbit: ((b1 - b0) * 8) / 15 / 1e6, q: q.quality };
        }
        await proxy.stop();
        await stop(motion);
        const fx = result['slow-fixed9'];
        const ad = result['slow-adaptive'];
        line(`10 Mbit/s link: fixed quality 9 ${fmt(fx.fps)} fps (${fmt(fx.mbit)} Mbit/s), adaptive ${fmt(ad.fps)} fps (${fmt(ad.mbit)} Mbit/s, settled at quality ${ad.q}), ratio ${fmt(ad.fps / Math.max(fx.fps, 0.01), 2)}x (target >= 2x)`);
      }
      await viewer.close();
      await xvnc.stop();
    }
  } finally {
    for (const c of children) await stop(c);
    await app.close();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`bench:viewer failed: ${(e as Error).stack ?? e}\n`);
    void cleanupAll().finally(() => process.exit(1));
  },
);
