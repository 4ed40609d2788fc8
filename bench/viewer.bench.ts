/**
 * npm run bench:viewer — gpu-desk's viewer (headless Chromium, the real harness, SSH tunnel through
 * the bed's sshd) against TigerVNC's native viewer (xtigervncviewer through OpenSSH's ssh -L), in one
 * run on this machine, on TigerVNC's Xvnc and on TurboVNC 3.3's (--servers TigerVNC,TurboVNC):
 *   1. full-motion pixel rate (ffplay testsrc2 1280x720 and 1920x1080 at 60 fps) and the CPU each
 *      viewer spends per Mpixel drawn, alternating the viewers, same duration;
 *   2. key-to-screen latency (median of 50), loopback and through a 50 ms-each-way delaying proxy, beside
 *      the server's own floor (bench/viewer/keyFloor.ts: a bare RFB client through ssh -L);
 *   3. connect time: Connect (TigerVNC) or "View display N" (TurboVNC, after the probe) clicked →
 *      first frame drawn;
 *   4. adaptive vs fixed quality 9 through a 10 Mbit/s link (user-space rate-limiting proxy): fps
 *      (TigerVNC only).
 * Judged lines (PASS/FAIL, GD_BENCH_STRICT=1 exits non-zero on a miss) are ratios within this run:
 * the server, the workload and both viewers share the CPUs.
 *
 * How the motion figures count (see docs/bench-viewer.md):
 * - native: the server's own per-connection pixel count (TigerVNC's EncodeManager statistics,
 *   TurboVNC's raw-equivalent bytes) over the viewer's whole life, and the CPU over that life of
 *   xtigervncviewer, the Xvfb showing its window and its ssh -L client;
 * - gpu-desk: the viewer's own count of rectangle pixels over a window that starts once the first
 *   frame is drawn (connecting goes through the UI and, on TurboVNC, a probe: neither is drawing),
 *   and the CPU in that window of the Chromium process tree plus the harness process (gpu-desk's
 *   tunnel and byte channel, the Electron main process's part). The server's count for the whole
 *   connection is printed beside it as a check.
 * CPU is read from /proc for these processes only: other people's Chromium or Xvfb do not count.
 * --variant '&flag=1' adds a second gpu-desk viewer with those page query flags to the motion runs,
 * alternating with the others (e.g. '&smooth=1'); --plain adds plain noVNC 1.7 on the same path.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { affinityOf, cleanupAll, freePort, freeXDisplay, makeTempDir, placeSelfOnDesk, placementFromArgs, startSshd, waitForPort } from '../test/bed';
import { measureBareFloor } from './viewer/barePage';
import { judgeFirstConnect, judgeKeyToScreen, judgeViewDisplay, judgeViewer } from './judgedLines';
import type { LoginTiming } from '../src/shared/models';
import { startProxy } from './tunnel/procs';
import { runNativeViewer, stop } from './viewer/nativeViewer';
import { keyFloor } from './viewer/keyFloor';
import { BrowserViewer } from './viewer/browserViewer';
import { cpuDiff, cpuSnapshot, treeCpu, VIEWER_PROCS } from './viewer/cpu';
import { measureChannel } from './viewer/channel';
import { benchProfile, COMPRESSION, QUALITY, startViewerBed } from './viewer/setup';
import { startBenchDesktop, type BenchDesktop, type Flavour } from './viewer/desktops';

const SHOW_CPU = process.argv.includes('--cpu');

const args = process.argv.slice(2);
const SECONDS = Number(argOf('--seconds') ?? 12);
const ROUNDS = Number(argOf('--rounds') ?? 2);
const only = argOf('--only')?.split(',');
/** Two machines on one (issue 30): desk (this process and all it spawns) and server (sshd, Xvnc, ffplay, the link proxy) on CPUs of their own; --cpus shared for the old layout. */
const placement = placementFromArgs(args);
const SERVER_WRAP = placement.serverWrap;
const NATIVE_DIRECT = args.includes('--native-direct');
const VARIANT = argOf('--variant');
const SERVERS = (argOf('--servers') ?? 'TigerVNC,TurboVNC').split(',') as Flavour[];
/** Last measured before this work (issue 19): judged so that neither gets worse. */
const KEY_MS = 9.9;
const CONNECT_MS = 91;

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
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const misses: string[] = [];
function judge(text: string, ok: boolean): void {
  line(`${text} ${ok ? 'PASS' : 'FAIL'}`);
  if (!ok) misses.push(text);
}

function playMotion(d: BenchDesktop, w: number, h: number): ChildProcess {
  // SDL's default renderer here is OpenGL on llvmpipe (two busy threads); its software renderer
  // draws the same frames for less CPU, which both viewers then compete less with.
  return d.run(['ffplay', '-loglevel', 'quiet', '-an', '-noborder', '-left', '0', '-top', '0', '-f', 'lavfi', '-i', `testsrc2=size=${w}x${h}:rate=60`], { SDL_RENDER_DRIVER: 'software' });
}

/** OpenSSH's own -L forward to the Xvnc port through the bed's sshd (the tunnel reference). */
/** OpenSSH's own login against the bed (key, no agent, nothing run): the floor a first connect's SSH login is judged against. */
async function opensshLogins(bed: Awaited<ReturnType<typeof startSshd>>, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await new Promise<void>((resolve, reject) => {
      const p = spawn('ssh', ['-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR', '-F', '/dev/null', '-p', String(bed.port), '-i', bed.userKeyPath, `${bed.user}@127.0.0.1`, 'true'], { stdio: 'ignore' });
      p.once('error', reject);
      p.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`ssh -o BatchMode=yes true exited ${code}`))));
    });
    out.push(performance.now() - t0);
  }
  return out;
}

async function opensshForward(bed: Awaited<ReturnType<typeof startSshd>>, remotePort: number): Promise<{ proc: ChildProcess; port: number }> {
  const port = await freePort();
  const proc = spawn('ssh', ['-N', '-L', `127.0.0.1:${port}:127.0.0.1:${remotePort}`, '-p', String(bed.port), '-i', bed.userKeyPath,
    '-o', 'IdentitiesOnly=yes', '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR',
    `${bed.user}@127.0.0.1`], { stdio: 'ignore', detached: true });
  await waitForPort(port, 10_000);
  return { proc, port };
}

/** One viewer's motion run: Mpixels drawn, its seconds, and CPU seconds by part. */
interface Run { pixels: number; seconds: number; cpu: Record<string, number>; note: string }
const cpuOf = (r: Run) => Object.values(r.cpu).reduce((a, b) => a + b, 0);
const cpuText = (r: Run) => Object.entries(r.cpu).map(([k, v]) => `${k} ${fmt((v / r.seconds) * 100, 0)}%`).join(' + ');

/** The bed's sshd, from its pid file: for the header's check that placement held. */
function sshdPid(dir: string): number | null {
  try {
    return Number(fs.readFileSync(path.join(dir, 'sshd.pid'), 'utf8').trim());
  } catch {
    return null;
  }
}

async function main(): Promise<void> {
  placeSelfOnDesk(placement);
  const app = await startViewerBed('gd-bench-viewer-', { wrap: SERVER_WRAP });
  const { home, bed, harness } = app;
  const work = makeTempDir('gd-bench-viewer-');
  line(`bench:viewer — ${os.cpus().length} CPUs, ${SECONDS} s per run, ${ROUNDS} rounds alternating, quality ${QUALITY}, compression ${COMPRESSION}, Tight; servers ${SERVERS.join(', ')}`);
  line(placement.describe);
  line(`sshd on CPUs ${affinityOf(sshdPid(bed.dir) ?? 0) ?? '?'} / bench on CPUs ${affinityOf(process.pid)} (allowed CPUs as /proc reports them)`);
  const children: ChildProcess[] = [];
  try {
    if (want('channel')) {
      const c = await measureChannel();
      line(`viewer byte channel (token-guarded loopback WebSocket, no SSH): 64-byte round trip ${fmt(c.channelRttUs, 0)} us vs ${fmt(c.directRttUs, 0)} us direct TCP; bulk ${fmt(c.channelMiBs, 0)} MiB/s vs ${fmt(c.directMiBs, 0)} MiB/s (ratio ${fmt(c.channelMiBs / c.directMiBs, 2)}x)`);
    }
    for (const flavour of SERVERS) {
      if (flavour !== 'TigerVNC' && flavour !== 'TurboVNC') throw new Error(`--servers: "${flavour}" is not a server; use TigerVNC and/or TurboVNC`);
      const sizes = ([[1280, 720], [1920, 1080]] as const).filter(([w]) => want('motion') || (w === 1280 && (want('latency') || want('connect') || (want('adaptive') && flavour === 'TigerVNC'))));
      for (const [w, h] of sizes) {
        const desk = await startBenchDesktop(flavour, bed, `${w}x${h}`, SERVER_WRAP);
        const viewer = await BrowserViewer.launch(harness, { width: w + 40, height: h + 120 });
        line(`${flavour} ${w}x${h}: Xvnc on CPUs ${affinityOf(desk.pid() ?? 0) ?? '?'}, Chromium on CPUs ${affinityOf(viewer.browser.pid) ?? '?'}`);
        const name = `${flavour}-${w}`;
        await desk.addProfile(viewer, name, bed.port);
        if (want('motion')) await motion(desk, viewer, name, w, h, bed, children, work);
        if (w === 1280 && (want('latency') || want('connect'))) await keysAndConnect(flavour, viewer, bed, home);
        if (w === 1280 && flavour === 'TigerVNC' && want('adaptive')) await adaptiveRun(desk, viewer, bed, home, children);
        await viewer.close();
        await desk.stop();
      }
    }
  } finally {
    for (const c of children) await stop(c);
    fs.rmSync(work, { recursive: true, force: true });
    await app.close();
  }
  if (misses.length > 0 && process.env.GD_BENCH_STRICT === '1') {
    process.stderr.write(`bench:viewer: ${misses.length} target(s) missed\n`);
    process.exit(2);
  }
}

async function motion(desk: BenchDesktop, viewer: BrowserViewer, name: string, w: number, h: number, bed: Awaited<ReturnType<typeof startSshd>>, children: ChildProcess[], work: string): Promise<void> {
  const { flavour } = desk;
  const play = playMotion(desk, w, h);
  children.push(play);
  // The native viewer reaches the session the way its users do: OpenSSH's ssh -L to the same sshd.
  const tunnel = NATIVE_DIRECT ? null : await opensshForward(bed, desk.port);
  if (tunnel) children.push(tunnel.proc);
  const variant = VARIANT ? await BrowserViewer.launch(viewer.harnessRef, { width: w + 40, height: h + 120 }, { query: VARIANT }) : null;
  const plain = args.includes('--plain') ? await BrowserViewer.launch(viewer.harnessRef, { width: w + 40, height: h + 120 }, { plain: true }) : null;
  // Same harness, same profile store: the profile is saved already.
  for (const v of [variant, plain]) if (v) await v.showProfile(name);
  await sleep(1500);
  const runs: Record<string, Run[]> = {};
  const add = (k: string, r: Run) => (runs[k] ??= []).push(r);

  const runNative = async (): Promise<Run> => {
    const mark = desk.mark();
    const passwordFile = await desk.nativePasswordFile(work);
    let c0 = { viewer: 0, xvfb: 0, ssh: 0 };
    let c1 = c0;
    let t0 = 0;
    let t1 = 0;
    const m0 = cpuSnapshot(VIEWER_PROCS);
    const read = (p: { viewer: number; xvfb: number }) => ({ viewer: treeCpu([p.viewer]), xvfb: treeCpu([p.xvfb]), ssh: tunnel ? treeCpu([tunnel.proc.pid!]) : 0 });
    await runNativeViewer({
      port: tunnel?.port ?? desk.port, width: w, height: h, quality: QUALITY, compression: COMPRESSION, seconds: SECONDS, xvfbDisplay: await freeXDisplay(), passwordFile,
      afterStart: (p) => { c0 = read(p); t0 = performance.now(); },
      beforeStop: (p) => {
        c1 = read(p);
        t1 = performance.now();
        if (SHOW_CPU) line(`    cpu, machine-wide by name (native viewer): ${cpuDiff(m0, cpuSnapshot(VIEWER_PROCS), SECONDS)}`);
      },
    });
    if (passwordFile) fs.rmSync(passwordFile, { force: true });
    const n = await desk.countSince(mark);
    const cpu: Record<string, number> = { xtigervncviewer: c1.viewer - c0.viewer, Xvfb: c1.xvfb - c0.xvfb };
    if (tunnel) cpu['ssh -L'] = c1.ssh - c0.ssh;
    return { pixels: n.pixels, seconds: (t1 - t0) / 1000, cpu, note: `${n.updates} updates` };
  };

  const runOurs = async (v: BrowserViewer): Promise<Run> => {
    const mark = desk.mark();
    await desk.open(v, name);
    await sleep(1000);
    const m0 = cpuSnapshot(VIEWER_PROCS);
    const p0 = await v.pixelsReceived();
    const c0 = treeCpu([v.browser.pid]);
    const h0 = process.cpuUsage();
    const t0 = performance.now();
    await sleep(SECONDS * 1000);
    const p1 = await v.pixelsReceived();
    const c1 = treeCpu([v.browser.pid]);
    const h1 = process.cpuUsage(h0);
    const t1 = performance.now();
    if (SHOW_CPU) line(`    cpu, machine-wide by name (browser viewer): ${cpuDiff(m0, cpuSnapshot(VIEWER_PROCS), SECONDS)}`);
    await v.disconnect();
    const st = await desk.countSince(mark);
    return { pixels: p1 - p0, seconds: (t1 - t0) / 1000, cpu: { chromium: c1 - c0, harness: (h1.user + h1.system) / 1e6 }, note: `server counted ${fmt(st.pixels / 1e6)} Mpixels in ${st.updates} updates over the whole connection` };
  };

  // Video mode: the same motion as H.264 from the server's ffmpeg, decoded by WebCodecs in
  // native code; desk CPU per Mpixel of frames drawn, for the line beside the CPU ratio.
  const runVideo = async (v: BrowserViewer): Promise<{ msPerMpixel: number; fps: number } | string> => {
    await desk.open(v, name);
    try {
      await v.chooseCodec('video');
      const deadline = Date.now() + 20_000;
      let codec = await v.hudCodec();
      while (!/H\.264/.test(codec ?? '') && Date.now() < deadline) { await sleep(250); codec = await v.hudCodec(); }
      if (!/H\.264/.test(codec ?? '')) return `video mode did not start (HUD codec: ${codec ?? 'none'})`;
      await sleep(2000);
      const f0 = await v.framesDrawn();
      const c0 = treeCpu([v.browser.pid]);
      const h0 = process.cpuUsage();
      const t0 = performance.now();
      await sleep(SECONDS * 1000);
      const f1 = await v.framesDrawn();
      const c1 = treeCpu([v.browser.pid]);
      const h1 = process.cpuUsage(h0);
      const secs = (performance.now() - t0) / 1000;
      const cpu = c1 - c0 + (h1.user + h1.system) / 1e6;
      const mpx = ((f1 - f0) * w * h) / 1e6;
      return mpx > 0 ? { msPerMpixel: (cpu * 1000) / mpx, fps: (f1 - f0) / secs } : 'video mode drew no frame';
    } finally {
      // The codec is kept per server: back to VNC for the runs after this one.
      await v.chooseCodec('vnc').catch(() => {});
      await v.disconnect();
    }
  };

  const rate = (r: Run) => `${fmt(r.pixels / r.seconds / 1e6)} Mpixel/s (${cpuText(r)})`;
  for (let round = 0; round < ROUNDS; round++) {
    // The order flips each round, so drifting load from elsewhere hits both alike.
    const order = round % 2 === 0 ? ['native', 'gpu-desk'] : ['gpu-desk', 'native'];
    const got: Record<string, Run> = {};
    for (const k of order) got[k] = k === 'native' ? await runNative() : await runOurs(viewer);
    if (variant) got.variant = await runOurs(variant);
    if (plain) got.plain = await runOurs(plain);
    for (const [k, r] of Object.entries(got)) add(k, r);
    line(`  ${flavour} ${w}x${h} round ${round + 1}: ${Object.entries(got).map(([k, r]) => `${k} ${rate(r)}, ${r.note}`).join('; ')}`);
  }
  const video = await runVideo(viewer);
  if (typeof video !== 'string') line(`  ${flavour} ${w}x${h} video mode: ${fmt(video.fps)} frames/s drawn, ${fmt(video.msPerMpixel)} ms desk CPU per Mpixel (chromium + harness)`);
  await plain?.close();
  await variant?.close();
  if (tunnel) await stop(tunnel.proc);
  await stop(play);

  const sum = (k: string) => {
    const rs = runs[k];
    const px = rs.reduce((a, r) => a + r.pixels, 0);
    const secs = rs.reduce((a, r) => a + r.seconds, 0);
    const cpu = rs.reduce((a, r) => a + cpuOf(r), 0);
    const parts: Record<string, number> = {};
    for (const r of rs) for (const [p, v] of Object.entries(r.cpu)) parts[p] = (parts[p] ?? 0) + v;
    return { rate: px / secs / 1e6, msPerMpixel: (cpu * 1000) / (px / 1e6), cpuShare: cpu / secs, parts, secs };
  };
  const nat = sum('native');
  const ours = sum('gpu-desk');
  const partsText = (x: ReturnType<typeof sum>) => Object.entries(x.parts).map(([k, v]) => `${k} ${fmt((v / x.secs) * 100, 0)}%`).join(' + ');
  line(`${flavour} motion ${w}x${h}: native${NATIVE_DIRECT ? ' (direct)' : ' (via ssh -L)'} ${fmt(nat.rate)} Mpixel/s at ${fmt(nat.cpuShare * 100, 0)}% of a core (${partsText(nat)}), gpu-desk ${fmt(ours.rate)} Mpixel/s at ${fmt(ours.cpuShare * 100, 0)}% (${partsText(ours)})` +
    (runs.variant ? `; variant ${VARIANT} ${fmt(sum('variant').rate)} Mpixel/s, ${fmt(sum('variant').msPerMpixel)} ms CPU/Mpixel` : '') +
    (runs.plain ? `; plain noVNC 1.7 ${fmt(sum('plain').rate)} Mpixel/s, ${fmt(sum('plain').msPerMpixel)} ms CPU/Mpixel` : ''));
  const nativeNoSsh = (nat.msPerMpixel * (nat.cpuShare - (nat.parts['ssh -L'] ?? 0) / nat.secs)) / nat.cpuShare;
  // The desk's floor in this run: a bare page in the same Chromium putting whole frames of this size
  // (ffplay's testsrc2 changes the whole screen each frame) at the rate gpu-desk drew them.
  const fps = Math.max(1, Math.round((ours.rate * 1e6) / (w * h)));
  const floor = await measureBareFloor({ width: w, height: h }, { w, h }, fps, SECONDS);
  const floorLabel = `a bare page in the same Chromium putting ${w}x${h} frames at ${fps}/s, measured in this run: ${fmt(floor.msPerFrame)} ms CPU per composited frame`;
  // Issue 30: judged at both sizes in the two-machine layout, the floor and video mode printed beside the CPU ratio.
  const [px, cpu] = judgeViewer({
    pixelRate: { ours: ours.rate, native: nat.rate },
    cpuPerMpx: { ours: ours.msPerMpixel, native: nat.msPerMpixel, floor: floor.msPerMpixel, floorLabel: floorLabel, video: typeof video === 'string' ? null : video.msPerMpixel, videoLabel: typeof video === 'string' ? video : undefined },
  });
  line(`${flavour} ${w}x${h} native without its ssh -L: ${fmt(nativeNoSsh)} ms CPU per Mpixel`);
  judge(`${flavour} ${w}x${h} ${cpu.text}`, cpu.ok);
  judge(`${flavour} ${w}x${h} ${px.text}`, px.ok);
}

async function keysAndConnect(flavour: Flavour, viewer: BrowserViewer, bed: Awaited<ReturnType<typeof startSshd>>, home: string): Promise<void> {
  // A fresh desktop: after ffplay (SDL takes the X input focus) an X server without a window
  // manager is left with focus None and would drop the probe's keys.
  const keyDesk = await startBenchDesktop(flavour, bed, '1280x720', SERVER_WRAP);
  try {
    keyDesk.run(['xterm', '-geometry', '80x24+0+0', '-e', 'cat']);
    const name = `keys-${flavour}`;
    await keyDesk.addProfile(viewer, name, bed.port);
    await sleep(1000);
    const how = flavour === 'TigerVNC' ? 'Connect clicked' : '"View display N" clicked, after the probe,';
    if (want('connect')) {
      const times: number[] = [];
      const phases: Record<string, number>[] = [];
      const logins: LoginTiming[] = [];
      for (let i = 0; i < 5; i++) {
        times.push(flavour === 'TigerVNC' ? await viewer.connect(name) : await viewer.viewSession(name, keyDesk.display));
        phases.push(viewer.lastPhases);
        // The core's own record of the SSH login this connect made (the same figure the server page shows).
        const login = (await viewer.harnessRef.core.handlers()['connections.list']({})).find((c) => c.state === 'ready' && c.login)?.login;
        if (login) logins.push(login);
        await viewer.disconnect();
      }
      const phase = (k: string) => fmt(median(phases.map((p) => p[k] ?? NaN)), 0);
      line(`${flavour} connect phases (medians, ms after the click): ticket ${phase('ticket')}, channel open ${phase('wsopen')}, first bytes ${phase('firstmsg')}, RFB ready ${phase('rfbconnect')}, first frame ${fmt(median(times), 0)}`);
      const connectText = `${flavour} connect time (${how} -> first frame drawn, loopback): median ${fmt(median(times), 0)} ms of 5 [${times.map((x) => fmt(x, 0)).join(', ')}]`;
      if (flavour === 'TurboVNC') {
        const j = judgeViewDisplay(median(times));
        judge(`${connectText}; ${j.text}`, j.ok);
      } else {
        // Connect from the server list logs in first: judged against OpenSSH's own login to the same sshd, in this run.
        const openssh = median(await opensshLogins(bed, 5));
        line(`${flavour} OpenSSH login (ssh -o BatchMode=yes … true against the same sshd, the figure a first connect's login is judged against): median ${fmt(openssh, 0)} ms of 5`);
        line(`${connectText}; the former fixed target ${CONNECT_MS} ms ${median(times) <= CONNECT_MS ? 'met' : 'missed'}, not judged`);
        const fromMarks = (k: string) => median(phases.map((p) => p[k] ?? NaN));
        const j = judgeFirstConnect({
          handshake: logins.length ? median(logins.map((l) => l.handshakeMs)) : null,
          authentication: logins.length ? median(logins.map((l) => l.authMs)) : null,
          // sshd opens the forwarded channel to Xvnc, whose banner is the first byte the page sees.
          session: fromMarks('firstmsg') - fromMarks('wsopen'),
          rfb: median(times) - fromMarks('firstmsg'),
          total: median(times),
        }, openssh);
        judge(`${flavour} ${j.text}`, j.ok);
      }
    }
    if (want('latency')) {
      const region = { x: 0, y: 0, w: 490, h: 330 };
      await keyDesk.open(viewer, name);
      await sleep(500);
      await viewer.pointAt(200, 150);
      await sleep(300);
      const lat = await viewer.keyLatencies(50, region);
      await viewer.disconnect();
      const ok = lat.filter((x) => x >= 0);
      // The server's own floor through OpenSSH's tunnel: a bare RFB client, no decoding or drawing.
      const fwd = await opensshForward(bed, keyDesk.port);
      let floor: number[];
      try {
        floor = await keyFloor(fwd.port, await keyDesk.vncPassword(), 50);
      } finally {
        await stop(fwd.proc);
      }
      line(`${flavour} key-to-screen floor (a bare RFB client through ssh -L: the server's update after the key, nothing decoded or drawn): median ${fmt(median(floor))} ms of ${floor.length}`);
      const kj = judgeKeyToScreen(median(ok), median(floor));
      judge(`${flavour} ${kj.text}`, kj.ok);
      line(`${flavour} key-to-screen, loopback: median ${fmt(median(ok))} ms of ${ok.length} (p90 ${fmt(median(ok.slice().sort((a, b) => a - b).slice(Math.floor(ok.length * 0.8))))} ms${ok.length < lat.length ? `, ${lat.length - ok.length} not seen within 3 s` : ''}; ${fmt(median(ok) - median(floor))} ms above the floor; the former fixed target ${KEY_MS} ms ${median(ok) <= KEY_MS ? 'met' : 'missed'}, not judged)`);

      const proxy = await startProxy(bed.port, 50, {}, SERVER_WRAP);
      await keyDesk.addProfile(viewer, `delayed-${flavour}`, proxy.port);
      fs.appendFileSync(path.join(home, 'known_hosts'), `[127.0.0.1]:${proxy.port} ${bed.knownHostsLine.split(' ').slice(1).join(' ')}\n`);
      await keyDesk.open(viewer, `delayed-${flavour}`);
      await sleep(1000);
      await viewer.pointAt(200, 150);
      await sleep(500);
      const dl = (await viewer.keyLatencies(50, region)).filter((x) => x >= 0);
      await viewer.disconnect();
      await proxy.stop();
      line(`${flavour} key-to-screen, 50 ms each way (100 ms round trip): median ${fmt(median(dl))} ms of ${dl.length} (target <= 130 ms)`);
    }
  } finally {
    await keyDesk.stop();
  }
}

async function adaptiveRun(desk: BenchDesktop, viewer: BrowserViewer, bed: Awaited<ReturnType<typeof startSshd>>, home: string, children: ChildProcess[]): Promise<void> {
  const play = playMotion(desk, 1280, 720);
  children.push(play);
  const rate = 10e6 / 8;
  const proxy = await startProxy(bed.port, 1, { rateBytesPerSec: rate }, SERVER_WRAP);
  const keyLine = bed.knownHostsLine.split(' ').slice(1).join(' ');
  fs.appendFileSync(path.join(home, 'known_hosts'), `[127.0.0.1]:${proxy.port} ${keyLine}\n`);
  await viewer.addProfile(benchProfile('slow-fixed9', proxy.port, bed.user, bed.userKeyPath, desk.display, { quality: 9, adaptive: false }));
  await viewer.addProfile(benchProfile('slow-adaptive', proxy.port, bed.user, bed.userKeyPath, desk.display, { quality: 9, adaptive: true }));
  const result: Record<string, { fps: number; mbit: number; q: number }> = {};
  for (const p of ['slow-fixed9', 'slow-adaptive']) {
    await viewer.connect(p);
    await sleep(6000); // let the link queue and the controller settle
    const f0 = await viewer.framesDrawn();
    const b0 = await viewer.bytesIn();
    await sleep(15_000);
    const f1 = await viewer.framesDrawn();
    const b1 = await viewer.bytesIn();
    const q = await viewer.quality();
    await viewer.disconnect();
    result[p] = { fps: (f1 - f0) / 15, mbit: ((b1 - b0) * 8) / 15 / 1e6, q: q.quality };
  }
  await proxy.stop();
  await stop(play);
  const fx = result['slow-fixed9'];
  const ad = result['slow-adaptive'];
  line(`10 Mbit/s link: fixed quality 9 ${fmt(fx.fps)} fps (${fmt(fx.mbit)} Mbit/s), adaptive ${fmt(ad.fps)} fps (${fmt(ad.mbit)} Mbit/s, settled at quality ${ad.q}), ratio ${fmt(ad.fps / Math.max(fx.fps, 0.01), 2)}x (target >= 2x)`);
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`bench:viewer failed: ${(e as Error).stack ?? e}\n`);
    void cleanupAll().finally(() => process.exit(1));
  },
);
