/**
 * npm run bench:3d — the product's headline, measured: glxspheres64 -w 1240x900 frames per second
 * seen on the desk, through the same link for every party, in one run:
 *   (a) X11 forwarding: `ssh -X` runs glxspheres64 on the server with its window on the desk's Xvfb;
 *       Mesa renders on the server's CPU and every frame crosses the link as X11 drawing requests;
 *   (b) VirtualGL (EGL, Mesa's software device egl0) + TurboVNC 3.3 + gpu-desk: the harness's real
 *       UI in headless Chromium, through gpu-desk's own tunnel;
 *   (c) the same session through OpenSSH `ssh -L` to TigerVNC's native xtigervncviewer;
 *   (r) reference, not a party: the same program in the same session with no viewer connected, i.e.
 *       what the server renders when nothing is encoded, sent or drawn. No viewer can draw more, so
 *       r/a is the highest b/a this machine allows: on a CPU-rendered server it says whether the b/a
 *       target is within reach of this hardware at all.
 * Links: the bed's delaying, rate-limiting proxy in front of its sshd (100 Mbit/s, 5 ms each way: a
 * campus network to a machine room), then plain loopback for reference.
 * Counted: the program's own figure (-bt 1) and frames drawn — the desk's X server's DAMAGE reports for
 * X11 forwarding, gpu-desk's viewer's frame counter, Xvnc's own update rate (TVNC_PROFILE) for the native
 * viewer (see docs/bench-3d.md). Judged on frames drawn, at the shaped link, desk and server on CPUs of their own (--cpus): b/c >= 1.0,
 * b >= 0.9 × r, b/a >= 0.9 × r/a (printed beside r/a) — bench/judgedLines.ts.
 * Every party runs alone (its own glxspheres64) and the order flips each round (r a b c, c b a r, …).
 * Options: --seconds N (measured per trial, default 20), --warmup N (default 4), --rounds N (default 2),
 * --links shaped,loopback, --cpu (each trial's CPU use by process kind), --cpus desk:server|shared (test/bed/placement.ts), --query '&flag=1' (page flags for gpu-desk's viewer). GD_BENCH_STRICT=1 makes a missed target exit non-zero.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanupAll, freeXDisplay, makeTempDir, placeSelfOnDesk, placementFromArgs } from '../test/bed';
import { judge3d } from './judgedLines';
import { BrowserViewer } from './viewer/browserViewer';
import { cpuDiff, cpuSnapshot, VIEWER_PROCS } from './viewer/cpu';
import { runNativeViewer, stop } from './viewer/nativeViewer';
import { benchProfile, COMPRESSION, QUALITY, startViewerBed } from './viewer/setup';
import { waitForX } from './viewer/x11';
import { startOpenssh, type Proc } from './tunnel/procs';
import { SHAPED_LINK, startShapedLink } from './3d/link';
import { logSize, profiledRates, statsSince } from './3d/turboLog';
import { startTurboSession, type TurboSession } from './3d/turboSession';
import { vncPasswdFile } from './3d/vncPasswd';
import { countDamage } from './3d/damageCounter';
import { SPHERES_SIZE, spheresInSession, spheresOverX11 } from './3d/spheres';

const args = process.argv.slice(2);
const argOf = (name: string) => (args.indexOf(name) >= 0 ? args[args.indexOf(name) + 1] : undefined);
const SECONDS = Number(argOf('--seconds') ?? 20);
const WARMUP = Number(argOf('--warmup') ?? 4);
const ROUNDS = Number(argOf('--rounds') ?? 2);
const LINKS = (argOf('--links') ?? 'shaped,loopback').split(',');
/** Page flags for gpu-desk's viewer (b), e.g. '&imagedecoder=1', to compare a viewer change in this bench. */
const QUERY = argOf('--query');
const SHOW_CPU = args.includes('--cpu');
/** Two machines on one (issue 30): --cpus desk:server (default the first two CPUs), --cpus shared for the old layout. */
const placement = placementFromArgs(args);
/** The processes worth watching here: bench:viewer's, the program and the X servers. */
const PROCS = new RegExp(`${VIEWER_PROCS.source}|^(glxspheres64|Xvnc|Xvfb)$`);

/** CPU use of each process kind over the measured seconds (--cpu). */
function cpuWatch(): () => string {
  const a = cpuSnapshot(PROCS);
  const t = performance.now();
  return () => (SHOW_CPU ? `; cpu ${cpuDiff(a, cpuSnapshot(PROCS), (performance.now() - t) / 1000)}` : '');
}

const SCREEN = { width: 1280, height: 960 };

const line = (s: string) => process.stdout.write(`${s}\n`);
const f1 = (x: number) => x.toFixed(1);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const misses: string[] = [];
function judge(text: string, ok: boolean): void {
  line(`${text} ${ok ? 'PASS' : 'FAIL'}`);
  if (!ok) misses.push(text);
}

type PartyName = 'a' | 'b' | 'c' | 'r';
const PARTY: Record<PartyName, string> = {
  a: 'X11 forwarding (ssh -X)',
  b: 'VirtualGL + TurboVNC + gpu-desk',
  c: 'VirtualGL + TurboVNC + ssh -L + xtigervncviewer',
  r: 'reference: VirtualGL in the TurboVNC session, no viewer',
};
interface Trial { program: number; drawn: number; note: string }

interface Link {
  name: string;
  /** The port the desk dials for the server's sshd. */
  port: number;
  proc: Proc | null;
  /** ssh -L to the session's VNC port through this link (party c). */
  tunnel: Proc;
  /** gpu-desk's profile for this link. */
  profile: string;
}

async function main(): Promise<void> {
  placeSelfOnDesk(placement);
  const app = await startViewerBed('gd-bench-3d-', { x11Forwarding: true, wrap: placement.serverWrap });
  const { home, bed, harness } = app;
  const children: ChildProcess[] = [];
  const work = makeTempDir('gd-bench-3d-');
  let session: TurboSession | null = null;
  let viewer: BrowserViewer | null = null;
  try {
    line(`bench:3d — ${os.cpus().length} CPUs; glxspheres64 -w ${SPHERES_SIZE}; ${SECONDS} s measured after ${WARMUP} s per trial, ${ROUNDS} rounds alternating; VNC quality ${QUALITY}, compression ${COMPRESSION}, Tight`);
    line(placement.describe);
    // The desk's screen for X11 forwarding (the native viewer brings its own, see runNativeViewer).
    const deskDisplay = await freeXDisplay();
    const desk = spawn('Xvfb', [`:${deskDisplay}`, '-screen', '0', `${SCREEN.width}x${SCREEN.height}x24`, '-nolisten', 'tcp'], { stdio: 'ignore', detached: true });
    children.push(desk);
    await waitForX(deskDisplay);

    session = await startTurboSession(bed, `${SCREEN.width}x${SCREEN.height}`, freeXDisplay);
    line(`TurboVNC session :${session.display} of ${bed.user} (one-time passwords, -localhost); log ${session.logPath}`);
    viewer = await BrowserViewer.launch(harness, { width: SCREEN.width + 40, height: SCREEN.height + 120 }, { query: QUERY });

    const summary: Record<string, Record<PartyName, Trial[]>> = {};
    for (const name of LINKS) {
      const link = await openLink(name, bed, session, home, viewer);
      const trials: Record<PartyName, Trial[]> = { a: [], b: [], c: [], r: [] };
      summary[name] = trials;
      line(`link ${name}: ${name === 'shaped' ? `${SHAPED_LINK.rateMbit} Mbit/s and ${SHAPED_LINK.delayMs} ms each way (delaying, rate-limiting proxy, ${SHAPED_LINK.bufferBytes / 1024} KiB buffer per direction)` : 'plain loopback to the sshd'}`);
      for (let round = 0; round < ROUNDS; round++) {
        const order: PartyName[] = round % 2 === 0 ? ['r', 'a', 'b', 'c'] : ['c', 'b', 'a', 'r'];
        for (const p of order) {
          let t: Trial | null = null;
          for (let attempt = 1; !t; attempt++) {
            if (p !== 'a' && !session.alive()) {
              const gone = session.display;
              const said = fs.readFileSync(session.logPath, 'utf8').trim().split('\n').slice(-2).join(' | ');
              session = await startTurboSession(bed, `${SCREEN.width}x${SCREEN.height}`, freeXDisplay);
              line(`  TurboVNC session :${gone} was ended from outside the bench (its log ends: ${said}); continuing on a new one, :${session.display}`);
              await link.tunnel.stop();
              link.tunnel = await startOpenssh(bed, link.port, session.port);
            }
            try {
              t = p === 'a' ? await trialX11(bed, link, deskDisplay) : p === 'b' ? await trialGpuDesk(bed, session, link, viewer) : p === 'c' ? await trialNative(bed, session, link, work) : await trialAlone(bed, session);
            } catch (e) {
              // Only a session that vanished under the trial is worth another try; anything else is a finding.
              if (p === 'a' || session.alive() || attempt >= 2) throw e;
              if (p === 'b') await viewer.reset();
            }
          }
          trials[p].push(t);
          line(`  ${name} round ${round + 1} (${p}) ${PARTY[p]}: drawn ${f1(t.drawn)} fps, program ${f1(t.program)} fps; ${t.note}`);
        }
      }
      await link.tunnel.stop();
      await link.proc?.stop();
    }

    for (const name of Object.keys(summary)) {
      const t = summary[name];
      const mean = (p: PartyName, k: 'drawn' | 'program') => t[p].reduce((s, x) => s + x[k], 0) / t[p].length;
      const fig = (p: PartyName) => `(${p}) ${f1(mean(p, 'drawn'))} fps drawn (program ${f1(mean(p, 'program'))})`;
      line(`${name}: ${fig('a')}, ${fig('b')}, ${fig('c')}`);
      const ba = mean('b', 'drawn') / Math.max(mean('a', 'drawn'), 0.01);
      const bc = mean('b', 'drawn') / Math.max(mean('c', 'drawn'), 0.01);
      const ra = mean('r', 'program') / Math.max(mean('a', 'drawn'), 0.01);
      line(`${name}: (r) the program alone, no viewer: ${f1(mean('r', 'program'))} fps; r/a ${f1(ra)}x is the most b/a this machine's rendering allows`);
      const figures = { r: mean('r', 'program'), a: mean('a', 'drawn'), b: mean('b', 'drawn'), c: mean('c', 'drawn') };
      if (name === 'shaped') {
        for (const j of judge3d(figures)) judge(`${name}${placement.shared ? ' (shared layout)' : ''}: ${j.text}`, j.ok);
      } else {
        line(`${name}: b/a ${f1(ba)}x beside r/a ${f1(ra)}x, b/c ${bc.toFixed(2)}x (reference, not judged)`);
      }
    }
  } finally {
    await viewer?.close();
    await session?.stop();
    for (const c of children) await stop(c);
    fs.rmSync(work, { recursive: true, force: true });
    await app.close();
  }
  if (misses.length > 0 && process.env.GD_BENCH_STRICT === '1') {
    process.stderr.write(`bench:3d: ${misses.length} target(s) missed\n`);
    process.exit(2);
  }
}

async function openLink(name: string, bed: Awaited<ReturnType<typeof startViewerBed>>['bed'], session: TurboSession, home: string, viewer: BrowserViewer): Promise<Link> {
  if (name !== 'shaped' && name !== 'loopback') throw new Error(`--links: "${name}" is not a link; use shaped and/or loopback`);
  const proc = name === 'shaped' ? await startShapedLink(bed, home, placement.serverWrap) : null;
  const port = proc?.port ?? bed.port;
  const profile = `spheres-${name}`;
  // No default display: a profile that names one opens the viewer before the probe has said TurboVNC, without a one-time password.
  await viewer.addProfile({ ...benchProfile(profile, port, bed.user, bed.userKeyPath, session.display), display: {} });
  const tunnel = await startOpenssh(bed, port, session.port);
  return { name, port, proc, tunnel, profile };
}

async function trialX11(bed: Awaited<ReturnType<typeof startViewerBed>>['bed'], link: Link, deskDisplay: number): Promise<Trial> {
  const spheres = await spheresOverX11(bed, link.port, deskDisplay);
  // No window manager on the desk: the program's window sits at the screen's top left.
  const screen = await countDamage(deskDisplay, 0);
  try {
    await sleep(WARMUP * 1000);
    const mark = spheres.mark();
    const n0 = screen.count;
    const t0 = performance.now();
    const cpu = cpuWatch();
    await sleep(SECONDS * 1000);
    const drawn = ((screen.count - n0) * 1000) / (performance.now() - t0);
    const used = cpu();
    return { program: await spheres.fpsSince(mark), drawn, note: `drawn: frames whose top strip the desk's X server drew (DAMAGE); ${spheres.renderer}${used}` };
  } finally {
    screen.close();
    await spheres.stop();
  }
}

async function trialGpuDesk(bed: Awaited<ReturnType<typeof startViewerBed>>['bed'], session: TurboSession, link: Link, viewer: BrowserViewer): Promise<Trial> {
  const spheres = await spheresInSession(bed, session.display);
  try {
    const off = logSize(session.logPath);
    await viewer.viewSession(link.profile, session.display);
    const c0 = performance.now();
    await sleep(WARMUP * 1000);
    const n0 = await viewer.framesDrawn();
    const mark = spheres.mark();
    const l0 = logSize(session.logPath);
    const t0 = performance.now();
    const cpu = cpuWatch();
    await sleep(SECONDS * 1000);
    const n1 = await viewer.framesDrawn();
    const t1 = performance.now();
    const used = cpu();
    const sent = sentRate(session.logPath, l0, logSize(session.logPath));
    await viewer.disconnect();
    const c1 = performance.now();
    const st = await statsSince(session.logPath, off);
    const drawn = ((n1 - n0) * 1000) / (t1 - t0);
    const whole = updatesPerSec(st.updates, c1 - c0);
    return { program: await spheres.fpsSince(mark), drawn, note: `Xvnc sent ${sent === null ? `${f1(whole)} updates/s over the connection` : `${f1(sent)} updates/s after the warm-up`} (${f1((st.bytes * 8) / ((c1 - c0) / 1000) / 1e6)} Mbit/s, JPEG ${st.jpeg ?? '?'}); ${spheres.renderer}${used}` };
  } finally {
    await spheres.stop();
  }
}

async function trialNative(bed: Awaited<ReturnType<typeof startViewerBed>>['bed'], session: TurboSession, link: Link, work: string): Promise<Trial> {
  const spheres = await spheresInSession(bed, session.display);
  try {
    const pw = path.join(work, 'passwd');
    fs.writeFileSync(pw, await vncPasswdFile(await session.otp()), { mode: 0o600 });
    const off = logSize(session.logPath);
    let mark = 0;
    let l0 = 0;
    let l1 = 0;
    let cpu = () => '';
    let used = '';
    const xvfbDisplay = await freeXDisplay();
    await runNativeViewer({
      port: link.tunnel.port, width: SCREEN.width, height: SCREEN.height, quality: QUALITY, compression: COMPRESSION,
      seconds: WARMUP + SECONDS, xvfbDisplay, passwordFile: pw,
      afterStart: () => { setTimeout(() => { mark = spheres.mark(); l0 = logSize(session.logPath); cpu = cpuWatch(); }, WARMUP * 1000); },
      beforeStop: () => { l1 = logSize(session.logPath); used = cpu(); },
    });
    fs.rmSync(pw, { force: true });
    const st = await statsSince(session.logPath, off);
    const connectedMs = (WARMUP + SECONDS) * 1000;
    // Xvnc's 5-second figures after the warm-up; a run too short for one falls back to the whole
    // connection, whose start-up (a few round trips, the first full frame) then counts against it.
    const sent = sentRate(session.logPath, l0, l1);
    const drawn = sent ?? updatesPerSec(st.updates, connectedMs);
    return { program: await spheres.fpsSince(mark), drawn, note: `Xvnc sent ${f1(drawn)} updates/s ${sent === null ? 'over the connection (too short for a 5 s figure after the warm-up)' : 'after the warm-up'} (${f1((st.bytes * 8) / (connectedMs / 1000) / 1e6)} Mbit/s, JPEG ${st.jpeg ?? '?'}); ${spheres.renderer}${used}` };
  } finally {
    await spheres.stop();
  }
}

/** The reference: the program in the session while no viewer is connected, so Xvnc encodes nothing. */
async function trialAlone(bed: Awaited<ReturnType<typeof startViewerBed>>['bed'], session: TurboSession): Promise<Trial> {
  const spheres = await spheresInSession(bed, session.display);
  try {
    await sleep(WARMUP * 1000);
    const mark = spheres.mark();
    const cpu = cpuWatch();
    await sleep(SECONDS * 1000);
    const used = cpu();
    const fps = await spheres.fpsSince(mark);
    return { program: fps, drawn: fps, note: `nothing drawn: no viewer connected; ${spheres.renderer}${used}` };
  } finally {
    await spheres.stop();
  }
}

const updatesPerSec = (n: number, ms: number) => (n * 1000) / ms;

/** Mean of Xvnc's whole 5-second update rates logged between two offsets; null when there is none. */
function sentRate(logPath: string, from: number, to: number): number | null {
  const r = profiledRates(logPath, from, to);
  return r.length === 0 ? null : r.reduce((t, x) => t + x, 0) / r.length;
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`bench:3d failed: ${(e as Error).stack ?? e}\n`);
    void cleanupAll().finally(() => process.exit(1));
  },
);
