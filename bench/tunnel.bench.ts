/**
 * npm run bench:tunnel — our tunnel (connectSsh + TunnelManager, in its own process) against
 * OpenSSH `ssh -N -L`, same sshd, same service behind it, in one run:
 *   1. foundation: loopback throughput (1 GiB server → client) and 64-byte echo round trips;
 *      the same through a proxy adding 50 ms each way;
 *   2. long link: 256 MiB through the delaying proxy at 25, 50 and 100 ms each way;
 *   3. memory: peak RSS of the tunnel process while a reader drains at 1 MiB/s.
 * Ours and OpenSSH alternate (ABBA) so background load on a shared machine hits both alike.
 * Figures are ratios within this run; absolute numbers depend on the machine.
 * GD_BENCH_STRICT=1 makes a missed target exit non-zero. GD_BENCH_QUICK=1 shrinks every size (smoke run).
 * GD_BENCH_DELAYS=50 (comma list, 0 = skip the loopback section) runs a subset while tuning.
 * GD_BENCH_SETTLE=N: round trips of the (reported, not judged) settling phase before the judged
 * ones (default 4000). GD_HOLDER_EXECARGV adds node flags to our tunnel's process (e.g. --trace-deopt).
 * GD_BENCH_TRIALS=N (default 3): the loopback throughput (1 GiB) and round trips (2000) are each
 * measured N times, every trial printed; the trial with the median ratio is judged.
 * After them, the round-trip floor (reported, not judged): the same 64-byte echoes through a bare
 * C relay and a bare Node relay (the tunnel's socket layer, no SSH), interleaved with both tunnels,
 * so the cost of any Node process on the path is printed next to ours over OpenSSH's.
 */
import os from 'node:os';
import { cleanupAll, startSshd } from '../test/bed';
import { drainAndWatch, echoRtts, percentile, rssBytes, throughput } from './tunnel/measure';
import { startCRelay, startNodeRelay, startOpenssh, startOurs, startProxy, startSource, type Proc } from './tunnel/procs';

const MiB = 1024 * 1024;
const quick = process.env.GD_BENCH_QUICK === '1';
const LOOP_BYTES = quick ? 128 * MiB : 1024 * MiB;
const LONG_BYTES = quick ? 32 * MiB : 256 * MiB;
const ROUND_TRIPS = quick ? 200 : 2000;
const SETTLE_ROUND_TRIPS = quick ? 200 : Number(process.env.GD_BENCH_SETTLE ?? 4000);
/** Loopback trials of the judged throughput and round-trip measurements; the median trial is judged. */
const TRIALS = quick ? 1 : Math.max(1, Number(process.env.GD_BENCH_TRIALS ?? 3));
const DELAYED_ROUND_TRIPS = quick ? 10 : 50;
const DELAYS_MS = (process.env.GD_BENCH_DELAYS ?? '0,25,50,100').split(',').map(Number);
const DRAIN_RATE = 1 * MiB;
const DRAIN_SECS = quick ? 4 : 15;
const DRAIN_FAST_BYTES = quick ? 16 * MiB : 64 * MiB;
const RSS_BUDGET = 64 * MiB;

const results: { line: string; pass: boolean }[] = [];
function report(line: string, pass: boolean | null): void {
  const full = pass === null ? line : `${line} ${pass ? 'PASS' : 'FAIL'}`;
  if (pass !== null) results.push({ line: full, pass });
  console.log(full);
}
const f1 = (x: number) => x.toFixed(1);
const signed = (x: number) => (x < 0 ? '' : '+') + x.toFixed(1);
const ms = (x: number) => (x < 10 ? x.toFixed(3) : x.toFixed(1));

type Party = { name: 'ours' | 'openssh'; proc: Proc };

/** ABBA…: `rounds` pairs, the order flipping each pair, so drifting background load hits both alike. */
function alternate(a: Party, b: Party, rounds: number): Party[] {
  return Array.from({ length: rounds }, (_, i) => (i % 2 === 0 ? [a, b] : [b, a])).flat();
}

/** Total bytes / total seconds, each party moving `bytes` in `rounds` connections. */
async function compareThroughput(a: Party, b: Party, bytes: number, rounds: number): Promise<Record<string, number>> {
  const secs: Record<string, number> = { ours: 0, openssh: 0 };
  for (const p of alternate(a, b, rounds)) secs[p.name] += await throughput(p.proc.port, bytes / rounds);
  return { ours: bytes / MiB / secs.ours, openssh: bytes / MiB / secs.openssh };
}

/**
 * Round trips through each of `parties` (name → local port), `n` each in `rounds` rounds, the
 * order rotating every round so the scheduler's placement changes hit all alike.
 */
async function rttAcross(parties: [string, number][], n: number, rounds: number, warmup: number): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = Object.fromEntries(parties.map(([name]) => [name, []]));
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < parties.length; i++) {
      const [name, port] = parties[(r + i) % parties.length];
      out[name].push(...(await echoRtts(port, Math.round(n / rounds), warmup)));
    }
  }
  return out;
}

/**
 * The floor line: what a Node process on the path costs, with no SSH in it, against what our
 * tunnel costs over OpenSSH's, from the same interleaved rounds.
 */
async function rttFloor(ours: Party, openssh: Party, servicePort: number, procs: Proc[]): Promise<void> {
  let c: Proc;
  try {
    c = await startCRelay(servicePort);
  } catch (e) {
    console.log(`round trip floor: NOT RUN, the C reference relay could not be built: ${(e as Error).message}`);
    return;
  }
  const node = await startNodeRelay(servicePort);
  procs.push(c, node);
  const parties: [string, number][] = [['c', c.port], ['node', node.port], ['ours', ours.proc.port], ['openssh', openssh.proc.port]];
  for (const [, port] of parties) await echoRtts(port, 1000, 0);
  const r = await rttAcross(parties, ROUND_TRIPS, 16, 20);
  const m = Object.fromEntries(Object.entries(r).map(([k, v]) => [k, percentile(v, 50)]));
  const us = (x: number) => `${x < 0 ? '' : '+'}${(x * 1000).toFixed(1)} µs`;
  console.log(
    `round trip floor, no SSH (64 B x ${r.c.length} each, interleaved with the tunnels): C relay median ${ms(m.c)} ms, ` +
      `Node relay (the tunnel's socket layer) median ${ms(m.node)} ms: a Node process on the path costs ${us(m.node - m.c)} per round trip here; ` +
      `in the same rounds ours ${ms(m.ours)} ms vs openssh ${ms(m.openssh)} ms costs ${us(m.ours - m.openssh)} (ratio ${(m.ours / m.openssh).toFixed(2)}x; ` +
      `the 1.1x target allows ${us(m.openssh * 0.1)}) (reported)`,
  );
  await c.stop();
  await node.stop();
}

/** With two parties rttAcross's rotation is ABBA…, as `alternate` gives. */
function compareRtt(a: Party, b: Party, n: number, rounds: number): Promise<Record<string, number[]>> {
  return rttAcross([[a.name, a.proc.port], [b.name, b.proc.port]], n, rounds, n >= 1000 ? 50 : 2);
}

function throughputLine(label: string, r: Record<string, number>, target: number | null): void {
  const ratio = r.ours / r.openssh;
  report(
    `throughput ${label}: ours ${f1(r.ours)} MiB/s, openssh ${f1(r.openssh)} MiB/s, ratio ${ratio.toFixed(2)}x` + (target === null ? ' (reported)' : ` (target >= ${target}x)`),
    target === null ? null : ratio >= target,
  );
}

function rttLine(label: string, r: Record<string, number[]>, target: number | null): void {
  const [om, op, sm, sp] = [percentile(r.ours, 50), percentile(r.ours, 99), percentile(r.openssh, 50), percentile(r.openssh, 99)];
  const ratio = om / sm;
  report(
    `round trip ${label} (64 B x ${r.ours.length}): ours median ${ms(om)} ms p99 ${ms(op)} ms, openssh median ${ms(sm)} ms p99 ${ms(sp)} ms, median ratio ${ratio.toFixed(2)}x` +
      (target === null ? ' (reported)' : ` (target <= ${target}x)`),
    target === null ? null : ratio <= target,
  );
}

/**
 * Runs `measure` TRIALS times, printing each trial (reported), and returns the trial whose ratio
 * is the median: one trial is the measurement, and on this VM its ratio moves by ±0.1
 * from run to run with the scheduler's placement of the four processes (docs/ssh2-window-patch.md, "Measuring it on a 2-vCPU VM").
 */
async function medianTrial<T>(measure: () => Promise<T>, ratio: (r: T) => number, print: (r: T, label: string) => void): Promise<T> {
  const trials: T[] = [];
  for (let t = 1; t <= TRIALS; t++) {
    const r = await measure();
    trials.push(r);
    if (TRIALS > 1) print(r, `trial ${t} of ${TRIALS}`);
  }
  return [...trials].sort((a, b) => ratio(a) - ratio(b))[(TRIALS - 1) >> 1];
}

async function main(): Promise<number> {
  const t0 = performance.now();
  const bed = await startSshd();
  const source = await startSource();
  const procs: Proc[] = [source];
  try {
    console.log(
      `tunnel bench: sshd 127.0.0.1:${bed.port}, ${quick ? 'QUICK sizes' : 'full sizes'}, ours = connectSsh + TunnelManager in a child process, openssh = ssh -N -L; ` +
        `${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(2)} at start`,
    );

    // 1. Foundation, loopback.
    if (DELAYS_MS.includes(0)) {
      const ours: Party = { name: 'ours', proc: await startOurs(bed, bed.port, source.port) };
      const openssh: Party = { name: 'openssh', proc: await startOpenssh(bed, bed.port, source.port) };
      procs.push(ours.proc, openssh.proc);
      for (const p of [ours, openssh]) await throughput(p.proc.port, 16 * MiB); // warm-up: JIT, TCP windows
      const tpLabel = `loopback (${LOOP_BYTES / MiB} MiB)`;
      const tp = await medianTrial(
        () => compareThroughput(ours, openssh, LOOP_BYTES, 8),
        (r) => r.ours / r.openssh,
        (r, t) => throughputLine(`${tpLabel}, ${t}`, r, null),
      );
      throughputLine(TRIALS > 1 ? `${tpLabel}, median trial` : tpLabel, tp, 1.2);
      // Settling, measured but not judged: right after a bulk transfer both parties' round trips run
      // slow for a few thousand messages (the kernel's per-task load averages decay; ours also
      // re-optimises its JIT code for small packets). A VNC session lives in the steady state.
      if (SETTLE_ROUND_TRIPS > 0) rttLine('loopback, settling after the bulk transfer', await compareRtt(openssh, ours, SETTLE_ROUND_TRIPS, 8), null);
      const rtt = await medianTrial(
        () => compareRtt(openssh, ours, ROUND_TRIPS, 16),
        (r) => percentile(r.ours, 50) / percentile(r.openssh, 50),
        (r, t) => rttLine(`loopback, ${t}`, r, null),
      );
      rttLine(TRIALS > 1 ? 'loopback, median trial' : 'loopback', rtt, 1.1);
      await rttFloor(ours, openssh, source.port, procs);
      await ours.proc.stop();
      await openssh.proc.stop();
    }

    // 2. Long link (and the foundation's "once through 50 ms each way"), 3. memory on the 50 ms link.
    for (const [i, delay] of DELAYS_MS.filter((d) => d > 0).entries()) {
      const proxy = await startProxy(bed.port, delay);
      procs.push(proxy);
      const ours: Party = { name: 'ours', proc: await startOurs(bed, proxy.port, source.port) };
      const openssh: Party = { name: 'openssh', proc: await startOpenssh(bed, proxy.port, source.port) };
      procs.push(ours.proc, openssh.proc);
      const [a, b] = i % 2 === 0 ? [ours, openssh] : [openssh, ours];
      // Two rounds only: each new channel starts at 2 MiB and must grow again, a cost a long VNC session pays once.
      const r = await compareThroughput(a, b, LONG_BYTES, 2);
      throughputLine(`${delay} ms each way (${LONG_BYTES / MiB} MiB)`, r, delay === 50 ? 3 : 1.0);
      if (delay === 50) {
        rttLine('50 ms each way', await compareRtt(a, b, DELAYED_ROUND_TRIPS, 2), null);
        const child = ours.proc.child;
        await new Promise<void>((resolve) => {
          child.once('message', () => resolve());
          child.send({ cmd: 'gc' });
        });
        await new Promise((r2) => setTimeout(r2, 500));
        const idle = rssBytes(ours.proc.pid);
        const o = await drainAndWatch(ours.proc.port, ours.proc.pid, DRAIN_FAST_BYTES, DRAIN_RATE, DRAIN_SECS);
        const ssh = await drainAndWatch(openssh.proc.port, openssh.proc.pid, DRAIN_FAST_BYTES, DRAIN_RATE, DRAIN_SECS);
        report(
          `peak RSS while a reader drains at 1 MiB/s (50 ms each way, ${f1(o.slowBytes / MiB)} MiB in ${DRAIN_SECS} s, after ${DRAIN_FAST_BYTES / MiB} MiB at full speed): ` +
            `ours ${signed((o.peakSlow - idle) / MiB)} MiB over idle ${f1(idle / MiB)} MiB (${signed((o.peakFast - idle) / MiB)} MiB in the fast phase; ` +
            `openssh peak ${f1(ssh.peakSlow / MiB)} MiB) (target < ${RSS_BUDGET / MiB} MiB)`,
          o.peakSlow - idle < RSS_BUDGET,
        );
      }
      await ours.proc.stop();
      await openssh.proc.stop();
      await proxy.stop();
    }
  } finally {
    for (const p of procs) await p.stop();
    await cleanupAll();
  }
  const failed = results.filter((r) => !r.pass);
  console.log(`${results.length - failed.length} of ${results.length} targets met in ${f1((performance.now() - t0) / 1000)} s (load average ${os.loadavg()[0].toFixed(2)} at end)${failed.length ? '; missed: ' + failed.map((r) => r.line.split(':')[0]).join(', ') : ''}`);
  return failed.length && process.env.GD_BENCH_STRICT === '1' ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e: Error) => {
    console.error(`bench failed: ${e.message}`);
    process.exit(2);
  },
);
