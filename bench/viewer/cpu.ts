import fs from 'node:fs';

/** Linux reports CPU time in clock ticks of 1/100 s (USER_HZ, the same on every architecture we run). */
const TICKS_PER_SECOND = 100;

/** One process as /proc showed it: parent, name, CPU seconds so far (user + system). */
export interface ProcSample {
  pid: number;
  ppid: number;
  comm: string;
  secs: number;
  /** The command line's words (only when asked for). */
  argv?: string[];
  /** CPU seconds per thread name, digits stripped (only when asked for). */
  threads?: Map<string, number>;
}

function parseStat(stat: string): { comm: string; ppid: number; secs: number } {
  // comm may hold spaces and parentheses: the fields after it start at the last ')'.
  const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { comm, ppid: Number(f[1]), secs: (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND };
}

const read = (file: string): string | null => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null; // the process ended between readdir and read
  }
};

/**
 * The one CPU sampler of the viewer benchmarks: a single pass over /proc. `want` picks processes
 * (by pid and name) before their command line and threads are read, which cost a read each.
 */
export function sampleProcs(opts: { argv?: boolean; threads?: boolean; want?: (pid: number, comm: string) => boolean } = {}): ProcSample[] {
  const out: ProcSample[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    const stat = read(`/proc/${pid}/stat`);
    if (stat === null) continue;
    const s: ProcSample = { pid, ...parseStat(stat) };
    if (opts.want && !opts.want(pid, s.comm)) continue;
    if (opts.argv) s.argv = (read(`/proc/${pid}/cmdline`) ?? '').split('\0').filter(Boolean);
    if (opts.threads) {
      s.threads = new Map();
      let tids: string[] = [];
      try {
        tids = fs.readdirSync(`/proc/${pid}/task`);
      } catch { /* gone */ }
      for (const tid of tids) {
        const t = read(`/proc/${pid}/task/${tid}/stat`);
        if (t === null) continue;
        const { comm, secs } = parseStat(t);
        const k = comm.replace(/\d+$/, '');
        s.threads.set(k, (s.threads.get(k) ?? 0) + secs);
      }
    }
    out.push(s);
  }
  return out;
}

/** CPU seconds used per process name (plus this process as "harness(node)"), for cpuDiff. */
export function cpuSnapshot(names: RegExp): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of sampleProcs({ want: (pid, comm) => pid === process.pid || names.test(comm) })) {
    const key = p.pid === process.pid ? 'harness(node)' : p.comm;
    out.set(key, (out.get(key) ?? 0) + p.secs);
  }
  return out;
}

export function cpuDiff(a: Map<string, number>, b: Map<string, number>, seconds: number): string {
  const rows: [string, number][] = [];
  for (const [k, v] of b) {
    const d = v - (a.get(k) ?? 0);
    if (d > 0.05) rows.push([k, d / seconds]);
  }
  rows.sort((x, y) => y[1] - x[1]);
  return rows.slice(0, 8).map(([k, v]) => `${k} ${(v * 100).toFixed(0)}%`).join(', ');
}

export const VIEWER_PROCS = /^(chromium|chrome|Xvnc|Xvfb|xtigervncviewer|ffplay|sshd|ssh|Chrome_.*|ThreadPool.*|VizCompositor.*)$/;

/**
 * CPU seconds used so far by the processes `roots` and all their descendants. Judged figures count
 * only the bench's own processes: other people's Chromium, Xvfb or Xvnc on a shared machine share
 * the names that cpuSnapshot matches.
 */
export function treeCpu(roots: number[]): number {
  const procs = sampleProcs();
  const parent = new Map(procs.map((p) => [p.pid, p.ppid]));
  const rootSet = new Set(roots);
  let total = 0;
  for (const p of procs) {
    for (let q: number | undefined = p.pid, hops = 0; q !== undefined && q > 1 && hops < 64; q = parent.get(q), hops++) {
      if (rootSet.has(q)) {
        total += p.secs;
        break;
      }
    }
  }
  return total;
}
