/**
 * npm run bench:setup — issue 42: from a fresh Debian 12 root where the account has no sudo (its
 * administrator installed only a GPU driver: Mesa's EGL/GL/Vulkan libraries) to the first 3D frame drawn
 * in the viewer, with the real gpu-desk CLI, on two paths:
 *   A. the server downloads: TurboVNC and VirtualGL from the bed's package mirror (it stands for
 *      GitHub, which this machine cannot reach), the distribution's packages from Debian's archive;
 *   B. the desk carries the packages: the server has no route out (its own network namespace), and
 *      the desk reaches it over a 10 Mbit/s, 25 ms link (test/bed/delayProxy.ts), uploading over SFTP.
 * Each path: probe → plan → apply (each step) → sessions start → viewer connected through gpu-desk's
 * tunnel → glxspheres64 under the user's `vglrun -d egl`, its still frame in the viewer identical to the
 * server's own screenshot. Prints seconds per step, bytes moved, and the target line (≤ 180 s each).
 * Making the root (mmdebstrap's cached tarball unpacked) is printed but not counted: it stands for the
 * server that already exists. GD_BENCH_SETUP_PATHS=A or B runs one path.
 */
import fs from 'node:fs';
import path from 'node:path';
import { cleanupAll, makeTempDir, startFreshServer, startPackageMirror, VENDOR_DIR, type FreshServer, type PackageMirror } from '../test/bed';
import { startCutProxy } from '../test/bed/cutProxy';
import { startDelayProxy } from '../test/bed/delayProxy';
import { applyEvents, deskCli, desktop3d, type DeskCli } from '../test/bed/userDesk';

const TARGET_S = 180;
const LINK = { mbit: 10, delayMs: 25 };
const line = (s: string) => process.stdout.write(`${s}\n`);
const sec = (ms: number) => (ms / 1000).toFixed(1);
const mb = (b: number) => (b / 1e6).toFixed(2);

interface PathResult { name: string; totalMs: number | null; error?: string }

async function timed<T>(rows: [string, number][], label: string, f: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const v = await f();
  rows.push([label, performance.now() - t0]);
  return v;
}

function counter(veth: string | null): () => number {
  if (!veth) return () => 0;
  const read = (k: string) => Number(fs.readFileSync(`/sys/class/net/${veth}/statistics/${k}`, 'utf8'));
  const base = read('rx_bytes') + read('tx_bytes');
  return () => read('rx_bytes') + read('tx_bytes') - base;
}

/** The distribution's packages the deps/wm steps fetched (their step output names them), and their sizes from the user's own apt lists. */
function distroBytes(server: FreshServer, out: string): { packages: number; bytes: number } {
  // Each step prints "from the distribution: NAME…" (one a line) before "unpacked into …".
  const byStep = new Map<string, string>();
  for (const e of applyEvents(out)) if (e.type === 'output' && e.stepId) byStep.set(e.stepId, (byStep.get(e.stepId) ?? '') + (e.text ?? ''));
  const names = [...byStep.values()].flatMap((t) => /from the distribution: ([\s\S]*?)(?:\n\S*\s*unpacked into|$)/.exec(t)?.[1]?.split(/\s+/) ?? [])
    .filter((n) => /^[a-z0-9][a-z0-9+.-]*$/.test(n));
  if (names.length === 0) return { packages: 0, bytes: 0 };
  // Carried by the desk (path B): the apt lists name file:// sources the system's apt-cache does not read; the carry says each .deb's size.
  const carried = [...out.matchAll(/\.deb: ([\d.]+) MB, SHA-256 matches the server's signed index/g)].map((m) => Number(m[1]) * 1e6);
  if (carried.length > 0) return { packages: names.length, bytes: carried.reduce((a, b) => a + b, 0) };
  const lists = `${server.home}/.local/share/gpu-desk/.apt/lists`;
  const r = server.rootSh(`apt-cache -o Dir::State::Lists=${lists} show --no-all-versions ${names.join(' ')} 2>/dev/null | sed -n 's/^Size: //p'`, { allowFail: true });
  return { packages: names.length, bytes: r.out.split('\n').filter(Boolean).reduce((a, b) => a + Number(b), 0) };
}

async function runPath(name: 'A' | 'B', mirror: PackageMirror): Promise<PathResult> {
  const label = name === 'A' ? 'A. the server downloads' : `B. the desk carries the packages (${LINK.mbit} Mbit/s, ${LINK.delayMs} ms link, no route out)`;
  line(`\n${label}`);
  const t0 = performance.now();
  const server = await startFreshServer({ account: 'no-sudo', packages: 'gpu-driver', network: name === 'B' ? 'isolated' : 'host' });
  line(`  fresh root made and its sshd up (not counted): ${sec(performance.now() - t0)} s`);
  const rows: [string, number][] = [];
  const veth = counter(server.veth);
  const requestsBefore = mirror.requests.length;
  // Path A: a counting forwarder in front of sshd (SSH bytes); path B: the shaped link.
  const link = name === 'A'
    ? await startCutProxy({ host: server.host, port: server.port, cutAfterUpBytes: Infinity })
    : await startDelayProxy({ targetHost: server.host, targetPort: server.port, delayMs: LINK.delayMs, rateBytesPerSec: (LINK.mbit * 1e6) / 8, maxQueuedBytes: 256 * 1024 });
  // Every command and the desktop's tunnel go through the link.
  const desk: DeskCli = deskCli(server, makeTempDir('gd-bench-setup-'), { host: '127.0.0.1', port: link.port });
  const from = name === 'A' ? mirror.url : VENDOR_DIR;
  const run = async (args: string[]) => {
    const r = await desk.run(args);
    if (r.code !== 0) throw new Error(`gpu-desk ${args.slice(0, 2).join(' ')} failed (${r.code}): ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`);
    return r;
  };
  const tStart = performance.now();
  try {
    await timed(rows, 'probe', () => run(['probe', '--json']));
    await timed(rows, 'plan', () => run(['setup', '--plan', '--json', '--packages-from', from]));
    const applied = await timed(rows, 'apply (all steps)', () => run(['setup', '--apply', '--yes', '--json', '--packages-from', from]));
    for (const e of applyEvents(applied.stdout)) if (e.type === 'step-done') rows.push([`  step ${e.stepId}`, e.ms ?? 0]);
    const tDesk = performance.now();
    const d = await desktop3d(server, desk);
    rows.push(['sessions start', d.ms.sessionStart], ['viewer connected (from start)', d.ms.viewerConnected], ['first 3D frame in the viewer (from start)', d.ms.firstFrame]);
    if (d.spheresUnlike !== 0) throw new Error(`the viewer's frame differs from the server's screenshot in ${d.spheresUnlike} pixels`);
    const total = tDesk - tStart + d.ms.firstFrame;
    for (const [k, v] of rows) line(`  ${k.padEnd(44)} ${sec(v).padStart(7)} s`);
    line(`  ${'total: probe to the first 3D frame'.padEnd(44)} ${sec(total).padStart(7)} s`);
    const upstream = mirror.requests.slice(requestsBefore).filter((r) => r.endsWith('.deb')).reduce((a, r) => a + fs.statSync(path.join(VENDOR_DIR, r)).size, 0);
    const dist = distroBytes(server, applied.stdout);
    if (name === 'A') {
      const l = link as Awaited<ReturnType<typeof startCutProxy>>;
      line(`  bytes: SSH desk↔server ${mb(l.upBytes + l.downBytes)} MB (up ${mb(l.upBytes)}, down ${mb(l.downBytes)}); upstream packages from the mirror ${mb(upstream)} MB; Debian packages ${dist.packages} (${mb(dist.bytes)} MB, plus apt's lists)`);
    } else {
      line(`  bytes: over the link (all of the server's traffic, veth counters) ${mb(veth())} MB; Debian packages ${dist.packages} (${mb(dist.bytes)} MB)`);
    }
    return { name, totalMs: total };
  } catch (e) {
    for (const [k, v] of rows) line(`  ${k.padEnd(44)} ${sec(v).padStart(7)} s`);
    const msg = (e as Error).message;
    line(`  FAILED: ${msg}`);
    return { name, totalMs: null, error: msg };
  } finally {
    await link.stop();
    await server.stop();
  }
}

async function main(): Promise<void> {
  if (process.getuid?.() !== 0) {
    line('bench:setup needs root (a chroot server, a network namespace): not run');
    process.exitCode = 1;
    return;
  }
  const paths = (process.env.GD_BENCH_SETUP_PATHS ?? 'AB').toUpperCase().split('').filter((p): p is 'A' | 'B' => p === 'A' || p === 'B');
  line(`bench:setup — a fresh no-sudo Debian 12 root to the first 3D frame in the viewer (target ≤ ${TARGET_S} s per path)`);
  const mirror = await startPackageMirror();
  const results: PathResult[] = [];
  try {
    for (const p of paths) results.push(await runPath(p, mirror));
  } finally {
    await cleanupAll();
  }
  const judged = results.map((r) => r.totalMs === null ? `${r.name} failed` : `${r.name} ${sec(r.totalMs)} s ${r.totalMs <= TARGET_S * 1000 ? '(met)' : '(missed)'}`);
  const ok = results.every((r) => r.totalMs !== null && r.totalMs <= TARGET_S * 1000);
  line(`\ntarget ≤ ${TARGET_S} s each: ${judged.join(', ')} — ${ok ? 'met' : 'missed'}`);
  if (!ok) process.exitCode = 1;
}

void main().catch(async (e) => {
  line(`bench:setup failed: ${(e as Error).stack ?? e}`);
  await cleanupAll();
  process.exitCode = 1;
});
