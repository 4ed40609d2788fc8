/**
 * npm run bench:video — video mode (issue 28) against VNC, on two machines modelled on one (issue 30):
 * glxspheres64 -w 1240x900 in a TurboVNC 1280x960 session, desk and server on separate CPUs
 * (test/bed/placement.ts, --cpus desk:server, default 0:1; --cpus shared for the old layout), through
 * the bench's shaped proxy (on the server side) at 5 Mbit/s 25 ms each way, 10 Mbit/s 25 ms, 100 Mbit/s 5 ms.
 * Parties: (r) the program alone; (j) gpu-desk, VNC codec, quality 6; (ja) the same with adaptive
 * quality; (v) gpu-desk, codec video (H.264 from ffmpeg/libx264 on the server); (n) xtigervncviewer
 * through ssh -L. For each: frames drawn per second, quality (SSIM, see bench/video/quality.ts),
 * key-to-screen median, desk CPU per frame, server encoder CPU per frame. See docs/bench-video.md.
 * Options: --seconds N (measured, default 12), --warmup N (default 5; video gets 4 s more to settle
 * its bitrate), --links 5,10,100, --parties r,j,ja,v,n, --cpus desk:server|shared, --keys N (default 10).
 * GD_BENCH_STRICT=1 exits non-zero on a missed target.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { affinityOf, cleanupAll, freeXDisplay, makeTempDir, placeSelfOnDesk, placementFromArgs } from '../test/bed';
import { BrowserViewer } from './viewer/browserViewer';
import { sampleProcs, treeCpu } from './viewer/cpu';
import { runNativeViewer, stop } from './viewer/nativeViewer';
import { benchProfile, COMPRESSION, QUALITY, startViewerBed, type ViewerBed } from './viewer/setup';
import { startOpenssh, startProxy, type Proc } from './tunnel/procs';
import { logSize, profiledRates, statsSince } from './3d/turboLog';
import { startTurboSession, type TurboSession } from './3d/turboSession';
import { vncPasswdFile } from './3d/vncPasswd';
import { SPHERES_SIZE, spheresInSession } from './3d/spheres';
import { sshTerminal } from './3d/remote';
import { captureFrames, dropCapture, jpegQuality, SUBSAMP_NAME, x264Quality, type Capture, type Quality } from './video/quality';

const args = process.argv.slice(2);
const argOf = (name: string) => (args.indexOf(name) >= 0 ? args[args.indexOf(name) + 1] : undefined);
const placement = placementFromArgs(args);
const SECONDS = Number(argOf('--seconds') ?? 12);
const WARMUP = Number(argOf('--warmup') ?? 5);
const VIDEO_EXTRA_WARMUP = 4;
const KEYS = Number(argOf('--keys') ?? 10);
const LINK_SPECS: Record<string, { rateMbit: number; delayMs: number; label: string }> = {
  5: { rateMbit: 5, delayMs: 25, label: '5 Mbit/s, 25 ms' },
  10: { rateMbit: 10, delayMs: 25, label: '10 Mbit/s, 25 ms' },
  100: { rateMbit: 100, delayMs: 5, label: '100 Mbit/s, 5 ms' },
};
const LINKS = (argOf('--links') ?? '5,10,100').split(',');
type PartyName = 'r' | 'j' | 'ja' | 'v' | 'n';
const PARTIES = (argOf('--parties') ?? 'r,j,ja,v,n').split(',') as PartyName[];
for (const l of LINKS) if (!LINK_SPECS[l]) { process.stderr.write(`--links: "${l}" is not one of 5, 10, 100\n`); process.exit(2); }
for (const p of PARTIES) if (!['r', 'j', 'ja', 'v', 'n'].includes(p)) { process.stderr.write(`--parties: "${p}" is not one of r, j, ja, v, n\n`); process.exit(2); }

const SCREEN = { width: 1280, height: 960 };
/** The xterm that key probes type into, below the spheres' window (which sits at the top left: no window manager). */
const KEY_TERM = { geometry: '100x3+0+908', region: { x: 4, y: 912, w: 590, h: 40 }, point: { x: 300, y: 930 } };
const CAPTURE_FRAMES = 45;

const PARTY: Record<PartyName, string> = {
  r: 'the program alone, no viewer',
  j: 'gpu-desk, VNC, quality 6',
  ja: 'gpu-desk, VNC, quality 6 + adaptive',
  v: 'gpu-desk, video (H.264)',
  n: 'xtigervncviewer via ssh -L',
};

const line = (s: string) => process.stdout.write(`${s}\n`);
const f1 = (x: number) => x.toFixed(1);
const f2 = (x: number) => x.toFixed(2);
const f4 = (x: number) => x.toFixed(4);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const misses: string[] = [];
function judge(text: string, ok: boolean): void {
  line(`${text} ${ok ? 'PASS' : 'FAIL'}`);
  if (!ok) misses.push(text);
}

interface Trial {
  fps: number;
  program: number;
  /** What the encoder made, for the quality figure: x264 arguments (v) or JPEG settings (JPEG parties). */
  x264Args?: string[];
  /** The viewer's capture rate, from its ffmpeg's -framerate. */
  x264Fps?: number;
  jpeg?: { q: number; subsamp: number }[];
  quality?: Quality;
  keyMs: number | null;
  deskMsPerFrame: number | null;
  encoderMsPerFrame: number | null;
  xvncMsPerFrame: number | null;
  linkMbit: number | null;
  cpuBusy: string;
  note: string;
}

/** Per-CPU busy share from /proc/stat over a window (every process on that CPU counts, other people's too). */
function cpuStat(): Map<number, { busy: number; total: number }> {
  const out = new Map<number, { busy: number; total: number }>();
  for (const l of fs.readFileSync('/proc/stat', 'utf8').split('\n')) {
    const m = /^cpu(\d+)\s+(.*)$/.exec(l);
    if (!m) continue;
    const f = m[2].split(/\s+/).map(Number);
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    out.set(Number(m[1]), { busy: total - f[3] - f[4], total });
  }
  return out;
}
function busyLine(a: Map<number, { busy: number; total: number }>, b: Map<number, { busy: number; total: number }>): string {
  const part = (cpu: number | null, name: string) => {
    if (cpu === null) return null;
    const x = a.get(cpu);
    const y = b.get(cpu);
    return x && y ? `${name} CPU ${cpu} ${((100 * (y.busy - x.busy)) / Math.max(1, y.total - x.total)).toFixed(0)}% busy` : null;
  };
  if (placement.shared) return [...b.keys()].map((c) => part(c, 'shared')).filter(Boolean).join(', ');
  return [part(placement.desk, 'desk'), part(placement.server, 'server')].filter(Boolean).join(', ');
}

/** Processes of the session's server side by name and display: Xvnc :N, and the viewer's ffmpeg x11grab of :N. */
function serverProcs(display: number): { xvnc: number[]; ffmpeg: { pid: number; argv: string[] }[] } {
  const procs = sampleProcs({ argv: true, want: (_pid, comm) => comm === 'Xvnc' || comm === 'ffmpeg' });
  return {
    xvnc: procs.filter((p) => p.comm === 'Xvnc' && p.argv!.includes(`:${display}`)).map((p) => p.pid),
    ffmpeg: procs.filter((p) => p.comm === 'ffmpeg' && p.argv!.includes('x11grab') && p.argv!.includes(`:${display}`) && p.argv!.includes('pipe:1')).map((p) => ({ pid: p.pid, argv: p.argv! })),
  };
}
const cpuOf = (pids: number[]) => sampleProcs({ want: (pid) => pids.includes(pid) }).reduce((s, p) => s + p.secs, 0);
/** Bytes the link proxy wrote (both directions; down dominates), from /proc/PID/io. */
function proxyBytes(pid: number): number {
  try {
    return Number(/wchar:\s*(\d+)/.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

interface Link { key: string; label: string; proxy: Proc; tunnel: Proc; profiles: Partial<Record<PartyName, string>> }

async function main(): Promise<void> {
  placeSelfOnDesk(placement);
  const app = await startViewerBed('gd-bench-video-', { wrap: placement.serverWrap });
  const { bed, harness, home } = app;
  const work = makeTempDir('gd-bench-video-');
  const children: ChildProcess[] = [];
  let session: TurboSession | null = null;
  let viewer: BrowserViewer | null = null;
  let capture: Capture | null = null;
  try {
    line(`bench:video — ${os.cpus().length} CPUs, load ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}; glxspheres64 -w ${SPHERES_SIZE} in a TurboVNC ${SCREEN.width}x${SCREEN.height} session; ${SECONDS} s measured after ${WARMUP} s (video ${WARMUP + VIDEO_EXTRA_WARMUP} s) per trial; links ${LINKS.map((l) => LINK_SPECS[l].label).join(' | ')}; parties ${PARTIES.join(' ')}`);
    line(placement.describe);
    line(`sshd ${affinityOf(bedSshdPid(bed.dir) ?? 0) ?? '?'} / bench ${affinityOf(process.pid)} (allowed CPUs as /proc reports them)`);
    line(`quality: SSIM (ffmpeg ssim filter, all planes as 4:4:4 YUV) against ${CAPTURE_FRAMES} frames captured losslessly from the session (ffmpeg x11grab, 30 fps, program alone); v: the capture re-encoded offline by libx264 with the arguments the viewer's server-side ffmpeg ran with (its bitrate as settled); JPEG parties: the capture through libjpeg-turbo at the JPEG quality/subsampling Xvnc logged for the connection`);
    line(`VNC parties ask for Tight, quality ${QUALITY}, compression ${COMPRESSION}; key-to-screen: ${KEYS} keys into an xterm below the spheres, key sent -> first frame whose xterm pixels changed (gpu-desk's frame listeners; n: not measured)`);

    session = await startTurboSession(bed, `${SCREEN.width}x${SCREEN.height}`, freeXDisplay);
    const display = session.display;
    line(`TurboVNC session :${display} of ${bed.user}; Xvnc on CPUs ${affinityOf(serverProcs(display).xvnc[0] ?? 0) ?? '?'}`);
    const term = sshTerminal(bed, bed.port, ['env', `DISPLAY=:${display}`, 'xterm', '-geometry', KEY_TERM.geometry, '-e', 'cat']);
    children.push(term);
    viewer = await BrowserViewer.launch(harness, { width: SCREEN.width + 40, height: SCREEN.height + 120 });
    line(`Chromium on CPUs ${affinityOf(viewer.browser.pid)}`);

    // (r) once: the program alone does not depend on the link; then the capture, with the same program running.
    let r: Trial | null = null;
    if (PARTIES.includes('r') || PARTIES.some((p) => p !== 'r')) {
      const out = await trialAlone(bed, session, true);
      r = out.trial;
      capture = out.capture;
      line(`  (r) ${PARTY.r}: ${f1(r.fps)} fps; ${r.note}`);
    }

    const results: Record<string, Partial<Record<PartyName, Trial>>> = {};
    for (const key of LINKS) {
      const spec = LINK_SPECS[key];
      const link = await openLink(key, bed, home, session, viewer);
      results[key] = { r: r ?? undefined };
      const bufKiB = Math.round(bufferFor(spec.rateMbit) / 1024);
      line(`link ${spec.label} each way (delaying, rate-limiting proxy on the server side, ${bufKiB} KiB buffer per direction; proxy on CPUs ${affinityOf(link.proxy.pid)})`);
      for (const p of PARTIES.filter((x) => x !== 'r')) {
        let t: Trial | null = null;
        for (let attempt = 1; !t; attempt++) {
          try {
            t = p === 'n' ? await trialNative(bed, session, link, work) : await trialGpuDesk(p, bed, session, link, viewer);
          } catch (e) {
            if (attempt >= 2) throw e;
            line(`  ${spec.label} (${p}) failed, once more: ${(e as Error).message.split('\n')[0]}`);
            await viewer.reset().catch(() => {});
          }
        }
        results[key][p] = t;
        line(`  ${spec.label} (${p}) ${PARTY[p]}: ${f1(t.fps)} fps drawn (program ${f1(t.program)}); key ${t.keyMs === null ? '—' : `${f1(t.keyMs)} ms`}; desk ${t.deskMsPerFrame === null ? '—' : f1(t.deskMsPerFrame)} ms CPU/frame; encoder ${t.encoderMsPerFrame === null ? '—' : f1(t.encoderMsPerFrame)} ms CPU/frame; link ${t.linkMbit === null ? '—' : f1(t.linkMbit)} Mbit/s; ${t.cpuBusy}; ${t.note}`);
      }
      await link.tunnel.stop();
      await link.proxy.stop();
    }

    // Quality, offline, after every trial (it would take the server's CPU from the trials).
    if (capture) {
      for (const key of LINKS) {
        for (const p of PARTIES) {
          const t = results[key][p];
          if (!t || p === 'r') continue;
          try {
          if (t.x264Args) t.quality = await x264Quality(capture, t.x264Args, t.x264Fps);
          else if (t.jpeg && t.jpeg.length > 0) {
            // Adaptive quality changes settings mid-trial: the figure is for the setting it ended on (the last listed); all are printed.
            const last = t.jpeg[t.jpeg.length - 1];
            t.quality = await jpegQuality(capture, last.q, last.subsamp);
          }
          } catch (e) {
            line(`  quality of (${p}) at ${LINK_SPECS[key].label} failed: ${(e as Error).message.split('\n')[0]}`);
          }
        }
      }
    }

    line('');
    line(`(r) the program alone, no viewer: ${r ? f1(r.fps) : '?'} fps (what the server renders; no viewer draws more)`);
    for (const key of LINKS) {
      const res = results[key];
      const row = (p: PartyName) => {
        const t = res[p];
        if (!t) return null;
        const q = t.quality ? `SSIM ${f4(t.quality.ssim)} (${f1(t.quality.kibPerFrame)} KiB/frame${t.jpeg ? `, JPEG ${t.jpeg.map((j) => `Q${j.q} ${SUBSAMP_NAME[j.subsamp] ?? j.subsamp}`).join('/')}` : t.x264Args ? `, x264 ${bitrateOf(t.x264Args)}` : ''})` : 'SSIM ?';
        return `${LINK_SPECS[key].label}: (${p}) ${f1(t.fps)} fps, ${q}, key ${t.keyMs === null ? '—' : `${f1(t.keyMs)} ms`}, desk ${t.deskMsPerFrame === null ? '—' : f1(t.deskMsPerFrame)} ms/frame, encoder ${t.encoderMsPerFrame === null ? '—' : f1(t.encoderMsPerFrame)} ms/frame (${p === 'v' ? 'ffmpeg' : 'Xvnc'}), link ${t.linkMbit === null ? '—' : f1(t.linkMbit)} Mbit/s`;
      };
      for (const p of PARTIES.filter((x) => x !== 'r')) { const s = row(p); if (s) line(s); }
    }
    line('');
    const fps = (k: string, p: PartyName) => results[k]?.[p]?.fps;
    const ssim = (k: string, p: PartyName) => results[k]?.[p]?.quality?.ssim;
    const rr = r ? ` (r ${f1(r.fps)} fps)` : '';
    if (fps('10', 'v') !== undefined && fps('100', 'j') !== undefined) {
      const ratio = fps('10', 'v')! / Math.max(0.01, fps('100', 'j')!);
      const s = ssim('10', 'v') ?? 0;
      judge(`10 Mbit/s, 25 ms: v ≥ 0.9 × the frames j draws at 100 Mbit/s and 5 ms, at SSIM ≥ 0.99: v ${f1(fps('10', 'v')!)} fps / j@100 ${f1(fps('100', 'j')!)} fps = ${f2(ratio)}x, SSIM ${f4(s)}${rr}`, ratio >= 0.9 && s >= 0.99);
    }
    if (fps('5', 'v') !== undefined && fps('5', 'j') !== undefined) {
      const ratio = fps('5', 'v')! / Math.max(0.01, fps('5', 'j')!);
      const sv = ssim('5', 'v') ?? 0;
      const sj = ssim('5', 'j') ?? 1;
      judge(`5 Mbit/s, 25 ms: v ≥ 2.5 × j frames at an SSIM ≥ j's: v ${f1(fps('5', 'v')!)} fps / j ${f1(fps('5', 'j')!)} fps = ${f2(ratio)}x, SSIM v ${f4(sv)} vs j ${f4(sj)}${rr}`, ratio >= 2.5 && sv >= sj);
    }
    if (fps('5', 'v') !== undefined && fps('5', 'ja') !== undefined) {
      const ratio = fps('5', 'v')! / Math.max(0.01, fps('5', 'ja')!);
      const sv = ssim('5', 'v') ?? 0;
      const sa = ssim('5', 'ja') ?? 1;
      judge(`5 Mbit/s, 25 ms: v beats ja on SSIM at no fewer frames: SSIM v ${f4(sv)} vs ja ${f4(sa)}, v ${f1(fps('5', 'v')!)} fps / ja ${f1(fps('5', 'ja')!)} fps = ${f2(ratio)}x${rr}`, sv > sa && ratio >= 1);
    }
    if (fps('100', 'v') !== undefined && fps('100', 'j') !== undefined) {
      const ratio = fps('100', 'v')! / Math.max(0.01, fps('100', 'j')!);
      judge(`100 Mbit/s, 5 ms: v ≥ 0.9 × j frames: v ${f1(fps('100', 'v')!)} fps / j ${f1(fps('100', 'j')!)} fps = ${f2(ratio)}x${rr}`, ratio >= 0.9);
    }
    for (const key of LINKS) {
      const kv = results[key].v?.keyMs;
      const kj = results[key].j?.keyMs;
      if (kv == null || kj == null) continue;
      judge(`key-to-screen in video mode ≤ VNC mode's + 20 ms (${LINK_SPECS[key].label}): v ${f1(kv)} ms vs j ${f1(kj)} ms (${kv - kj >= 0 ? '+' : ''}${f1(kv - kj)} ms)`, kv <= kj + 20);
    }
  } finally {
    if (capture) dropCapture(capture);
    await viewer?.close();
    for (const c of children) await stop(c);
    await session?.stop();
    fs.rmSync(work, { recursive: true, force: true });
    await app.close();
  }
  if (misses.length > 0 && process.env.GD_BENCH_STRICT === '1') {
    process.stderr.write(`bench:video: ${misses.length} target(s) missed\n`);
    process.exit(2);
  }
}

function bedSshdPid(dir: string): number | null {
  try {
    return Number(fs.readFileSync(path.join(dir, 'sshd.pid'), 'utf8').trim());
  } catch {
    return null;
  }
}

/** argv without its -vf and that option's value. */
function withoutFilter(argv: string[]): string[] {
  const i = argv.indexOf('-vf');
  return i < 0 ? argv : [...argv.slice(0, i), ...argv.slice(i + 2)];
}
/** The stream's bitrate: -b:v, or for capped CRF its cap (-maxrate). */
const bitrateOf = (argv: string[]) => { const i = argv.indexOf('-b:v') >= 0 ? argv.indexOf('-b:v') : argv.indexOf('-maxrate'); return i >= 0 ? `${argv[i + 1]}bit/s` : '?'; };
/**
 * --video-kbps: 'link' (default): a fixed bitrate, the viewer's own starting one (8000 kbps) capped
 * at 80 % of the link's rate; MIN:MAX: the viewer's floor and ceiling; 'viewer': its defaults
 * (1000:50000, the bitrate then follows the link). Fixed by default because on main at 730cef6 a
 * bitrate change (a new stream) in this flow ends video mode ("the video channel closed", back to VNC).
 */
function videoKbps(rateMbit: number): { videoMinKbps?: number; videoMaxKbps?: number } {
  const a = argOf('--video-kbps') ?? 'link';
  if (a === 'viewer') return {};
  if (a === 'link') { const k = Math.min(8000, Math.round(rateMbit * 1000 * 0.8)); return { videoMinKbps: k, videoMaxKbps: k }; }
  const [lo, hi] = a.split(':').map(Number);
  return { videoMinKbps: lo, videoMaxKbps: hi ?? lo };
}

/** The bottleneck's buffer: ~80 ms of the link (a switch's order, not a bufferbloated modem's), at least 64 KiB. */
const bufferFor = (rateMbit: number) => Math.max(64 * 1024, Math.round((rateMbit * 1e6) / 8 * 0.08));

async function openLink(key: string, bed: ViewerBed['bed'], home: string, session: TurboSession, viewer: BrowserViewer): Promise<Link> {
  const spec = LINK_SPECS[key];
  const proxy = await startProxy(bed.port, spec.delayMs, { rateBytesPerSec: (spec.rateMbit * 1e6) / 8, maxQueuedBytes: bufferFor(spec.rateMbit) }, placement.serverWrap);
  fs.appendFileSync(path.join(home, 'known_hosts'), `[127.0.0.1]:${proxy.port} ${bed.knownHostsLine.split(' ').slice(1).join(' ')}\n`);
  const tunnel = await startOpenssh(bed, proxy.port, session.port);
  const profiles: Partial<Record<PartyName, string>> = {};
  for (const p of ['j', 'ja', 'v'] as PartyName[]) {
    if (!PARTIES.includes(p)) continue;
    const name = `video-${key}-${p}`;
    // No default display: the viewer opens from the server page after the probe (TurboVNC's one-time password).
    const id = await viewer.addProfile({ ...benchProfile(name, proxy.port, bed.user, bed.userKeyPath, session.display, { adaptive: p === 'ja' }), display: {} });
    // The codec is a per-window preference (localStorage, src/renderer/viewer/prefs.ts); the default, Auto, would switch on its own.
    // Video starts as VNC and switches in the Quality panel once connected, as a person does (a preset 'video' here lost its first stream's channel token).
    await viewer.page.evaluate(({ id, codec, kbps }) => { (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem(`gpu-desk.viewer.${id}`, JSON.stringify({ codec, ...kbps })); }, { id, codec: 'vnc', kbps: p === 'v' ? videoKbps(spec.rateMbit) : {} });
    profiles[p] = name;
  }
  return { key, label: spec.label, proxy, tunnel, profiles };
}

/** Key sent -> first frame whose xterm pixels changed clearly (video re-encodes still text a little: a pixel counts at |Δ| > 64 in any channel, a frame at 12 pixels). */
async function keyProbe(viewer: BrowserViewer, n: number): Promise<number | null> {
  await viewer.pointAt(KEY_TERM.point.x, KEY_TERM.point.y);
  await sleep(300);
  const out: number[] = await viewer.page.evaluate(async ({ n, region }) => {
    /* eslint-disable @typescript-eslint/no-explicit-any */
    const w = globalThis as any;
    const v = w.__gpuDeskViewer;
    const el = w.document.querySelector('[data-testid="vnc-screen"] canvas');
    const ctx = (el[Symbol.for('gpu-desk.viewer.offscreen')] ?? el).getContext('2d');
    const grab = () => ctx.getImageData(region.x, region.y, region.w, region.h).data as Uint8ClampedArray;
    const res: number[] = [];
    for (let i = 0; i < n; i++) {
      const before = grab();
      const t0 = performance.now();
      const ms = await new Promise<number>((resolve) => {
        const timer = setTimeout(() => { v.frameListeners.delete(l); resolve(-1); }, 2500);
        const l = (now: number) => {
          const d = grab();
          let changed = 0;
          for (let k = 0; k < d.length && changed < 12; k += 4) {
            if (Math.abs(d[k] - before[k]) > 64 || Math.abs(d[k + 1] - before[k + 1]) > 64 || Math.abs(d[k + 2] - before[k + 2]) > 64) changed++;
          }
          if (changed < 12) return;
          clearTimeout(timer);
          v.frameListeners.delete(l);
          resolve(now - t0);
        };
        v.frameListeners.add(l);
        v.sendCombo([0x61]);
      });
      res.push(ms);
      await new Promise((r) => setTimeout(r, 150));
    }
    return res;
  }, { n, region: KEY_TERM.region });
  const ok = out.filter((x) => x >= 0);
  return ok.length >= Math.ceil(n / 2) ? median(ok) : null;
}

/** The JPEG settings Xvnc logged between two offsets ("Using JPEG subsampling S, QN"), distinct, in order. */
function jpegSettings(logPath: string, from: number): { q: number; subsamp: number }[] {
  const text = fs.readFileSync(logPath).subarray(from).toString('utf8');
  const seen = new Map<string, { q: number; subsamp: number }>();
  // Re-inserted on each use: the last is the setting the connection ended on (adaptive quality's settled one).
  for (const m of text.matchAll(/Using JPEG subsampling (\d+), Q(\d+)/g)) { seen.delete(`${m[1]}/${m[2]}`); seen.set(`${m[1]}/${m[2]}`, { subsamp: Number(m[1]), q: Number(m[2]) }); }
  return [...seen.values()];
}

async function trialGpuDesk(p: PartyName, bed: ViewerBed['bed'], session: TurboSession, link: Link, viewer: BrowserViewer): Promise<Trial> {
  const spheres = await spheresInSession(bed, session.display);
  try {
    const off = logSize(session.logPath);
    await viewer.viewSession(link.profiles[p]!, session.display);
    if (p === 'v') await viewer.chooseCodec('video');
    await sleep((WARMUP + (p === 'v' ? VIDEO_EXTRA_WARMUP : 0)) * 1000);
    const procs0 = serverProcs(session.display);
    if (p === 'v' && procs0.ffmpeg.length === 0) {
      const said = await viewer.page.evaluate(() => {
        const d = (globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document;
        return `fallback: ${d.querySelector('[data-testid="video-fallback"]')?.textContent ?? 'none shown'}; codec: ${d.querySelector('[data-testid="hud-codec"]')?.textContent ?? '?'}`;
      });
      await viewer.disconnect().catch(() => {});
      if (process.env.GD_BENCH_LOG === '1') process.stderr.write(`sshd log: ${fs.readFileSync(bed.logPath, 'utf8').split('\n').filter((l) => /error|fail|refus|denied|fatal|exec/i.test(l)).slice(-15).join('\n')}\n`);
      throw new Error(`video mode: no ffmpeg x11grab encoder runs on the server after the warm-up (${said})`);
    }
    const enc = procs0.ffmpeg.map((f) => f.pid);
    const n0 = await viewer.framesDrawn();
    const mark = spheres.mark();
    const b0 = proxyBytes(link.proxy.pid);
    const d0 = treeCpu([viewer.browser.pid]) + process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6;
    const e0 = cpuOf(enc);
    const x0 = cpuOf(procs0.xvnc);
    const s0 = cpuStat();
    const t0 = performance.now();
    await sleep(SECONDS * 1000);
    const n1 = await viewer.framesDrawn();
    const t1 = performance.now();
    const s1 = cpuStat();
    const d1 = treeCpu([viewer.browser.pid]) + process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6;
    const procs1 = serverProcs(session.display);
    const encNow = procs1.ffmpeg.map((f) => f.pid);
    const restarted = p === 'v' && encNow.join() !== enc.join();
    const e1 = cpuOf(enc);
    const x1 = cpuOf(procs0.xvnc);
    const b1 = proxyBytes(link.proxy.pid);
    const secs = (t1 - t0) / 1000;
    const program = await spheres.fpsSince(mark);
    // Video frames are the encoder's captures (12–30 a second by the bitrate, whatever the program renders): no more of
    // the program's frames reach the screen than it made, so v counts min(drawn, program).
    const drawnFps = (n1 - n0) / secs;
    const fps = p === 'v' ? Math.min(drawnFps, program) : drawnFps;
    const frames = fps * secs;
    // The bitrate as settled: the encoder running at the end of the measured seconds.
    const last = procs1.ffmpeg[procs1.ffmpeg.length - 1] ?? procs0.ffmpeg[procs0.ffmpeg.length - 1];
    // The encoder's own arguments; its -vf (mpdecimate: duplicates of the last frame dropped) is left out
    // offline, where every captured frame must be encoded to be compared.
    const x264Args = p === 'v' && last ? withoutFilter(last.argv.slice(last.argv.indexOf('-c:v'), last.argv.indexOf('-flush_packets'))) : undefined;
    // The stream's capture rate (it follows the bitrate: shared/videoFrames.ts's videoFps).
    const x264Fps = p === 'v' && last ? Number(last.argv[last.argv.indexOf('-framerate') + 1]) || undefined : undefined;
    const keyMs = KEYS > 0 ? await keyProbe(viewer, KEYS) : null;
    await viewer.disconnect();
    const jpeg = p === 'v' ? undefined : jpegSettings(session.logPath, off);
    const st = await statsSince(session.logPath, off).catch(() => null);
    return {
      fps, program, x264Args, x264Fps, jpeg, keyMs,
      deskMsPerFrame: frames > 0 ? ((d1 - d0) * 1000) / frames : null,
      encoderMsPerFrame: frames > 0 ? (((p === 'v' ? e1 - e0 : x1 - x0)) * 1000) / frames : null,
      xvncMsPerFrame: frames > 0 ? ((x1 - x0) * 1000) / frames : null,
      linkMbit: ((b1 - b0) * 8) / secs / 1e6,
      cpuBusy: busyLine(s0, s1),
      note: `${p === 'v' ? `video frames drawn ${f1(drawnFps)}/s (counted: min(drawn, program); desk ${f1(((d1 - d0) * 1000) / Math.max(1, n1 - n0))} ms CPU per video frame decoded); x264 ${x264Args ? bitrateOf(x264Args) : '?'} at ${x264Fps ?? '?'} captures/s${restarted ? ' (the encoder restarted during the measured seconds: a new bitrate)' : ''}, Xvnc ${f1(((x1 - x0) * 1000) / Math.max(1, frames))} ms/frame` : `JPEG ${jpeg!.map((j) => `Q${j.q} ${SUBSAMP_NAME[j.subsamp] ?? j.subsamp}`).join('/') || '?'}`}; Xvnc sent ${st ? `${st.updates} updates` : '?'} over the connection; desk: Chromium tree + the harness process; ${spheres.renderer}`,
    };
  } finally {
    await spheres.stop();
  }
}

async function trialNative(bed: ViewerBed['bed'], session: TurboSession, link: Link, work: string): Promise<Trial> {
  const spheres = await spheresInSession(bed, session.display);
  try {
    const pw = path.join(work, 'passwd');
    fs.writeFileSync(pw, await vncPasswdFile(await session.otp()), { mode: 0o600 });
    const off = logSize(session.logPath);
    let mark = 0;
    let l0 = 0;
    let l1 = 0;
    let d0 = 0, d1 = 0, x0 = 0, x1 = 0, b0 = 0, b1 = 0, t0 = 0, t1 = 0;
    let s0 = cpuStat(), s1 = s0;
    const xvnc = serverProcs(session.display).xvnc;
    const desk = (pids: { viewer: number; xvfb: number }) => treeCpu([pids.viewer, pids.xvfb, link.tunnel.pid]);
    const xvfbDisplay = await freeXDisplay();
    await runNativeViewer({
      port: link.tunnel.port, width: SCREEN.width, height: SCREEN.height, quality: QUALITY, compression: COMPRESSION,
      seconds: WARMUP + SECONDS, xvfbDisplay, passwordFile: pw,
      afterStart: (pids) => { setTimeout(() => { mark = spheres.mark(); l0 = logSize(session.logPath); d0 = desk(pids); x0 = cpuOf(xvnc); b0 = proxyBytes(link.proxy.pid); s0 = cpuStat(); t0 = performance.now(); }, WARMUP * 1000); },
      beforeStop: (pids) => { l1 = logSize(session.logPath); d1 = desk(pids); x1 = cpuOf(xvnc); b1 = proxyBytes(link.proxy.pid); s1 = cpuStat(); t1 = performance.now(); },
    });
    fs.rmSync(pw, { force: true });
    const st = await statsSince(session.logPath, off);
    const rates = profiledRates(session.logPath, l0, l1);
    const secs = (t1 - t0) / 1000;
    const fps = rates.length > 0 ? rates.reduce((a, b) => a + b, 0) / rates.length : (st.updates * 1000) / ((WARMUP + SECONDS) * 1000);
    const frames = fps * secs;
    const jpeg = jpegSettings(session.logPath, off);
    return {
      fps, program: await spheres.fpsSince(mark), jpeg, keyMs: null,
      deskMsPerFrame: frames > 0 ? ((d1 - d0) * 1000) / frames : null,
      encoderMsPerFrame: frames > 0 ? ((x1 - x0) * 1000) / frames : null,
      xvncMsPerFrame: frames > 0 ? ((x1 - x0) * 1000) / frames : null,
      linkMbit: ((b1 - b0) * 8) / secs / 1e6,
      cpuBusy: busyLine(s0, s1),
      note: `drawn: Xvnc's own update rate ${rates.length > 0 ? 'after the warm-up (TVNC_PROFILE)' : 'over the connection (too short for a 5 s figure)'}; JPEG ${jpeg.map((j) => `Q${j.q} ${SUBSAMP_NAME[j.subsamp] ?? j.subsamp}`).join('/') || '?'}; desk: xtigervncviewer + its Xvfb + ssh -L; ${spheres.renderer}`,
    };
  } finally {
    await spheres.stop();
  }
}

/** (r): the program in the session with no viewer connected; then, with it still running, the capture the quality figures use. */
async function trialAlone(bed: ViewerBed['bed'], session: TurboSession, withCapture: boolean): Promise<{ trial: Trial; capture: Capture | null }> {
  const spheres = await spheresInSession(bed, session.display);
  try {
    await sleep(WARMUP * 1000);
    const mark = spheres.mark();
    const xvnc = serverProcs(session.display).xvnc;
    const x0 = cpuOf(xvnc);
    const s0 = cpuStat();
    const t0 = performance.now();
    await sleep(SECONDS * 1000);
    const s1 = cpuStat();
    const secs = (performance.now() - t0) / 1000;
    const x1 = cpuOf(xvnc);
    const fps = await spheres.fpsSince(mark);
    const capture = withCapture ? await captureFrames(bed, session.display, SCREEN.width, SCREEN.height, CAPTURE_FRAMES) : null;
    return {
      trial: {
        fps, program: fps, keyMs: null, deskMsPerFrame: null, encoderMsPerFrame: null, linkMbit: null,
        xvncMsPerFrame: fps > 0 ? ((x1 - x0) * 1000) / (fps * secs) : null,
        cpuBusy: busyLine(s0, s1),
        note: `nothing drawn; Xvnc ${f1(((x1 - x0) * 100) / secs)}% of a core; ${busyLine(s0, s1)}; ${spheres.renderer}${capture ? `; captured ${capture.frames} frames for the quality figures` : ''}`,
      },
      capture,
    };
  } finally {
    await spheres.stop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`bench:video failed: ${(e as Error).stack ?? e}\n`);
    void cleanupAll().finally(() => process.exit(1));
  },
);
