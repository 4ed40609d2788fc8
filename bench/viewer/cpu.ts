import fs from 'node:fs';

/** CPU seconds used per process name (plus this process as "harness"), from /proc, between two calls. */
export function cpuSnapshot(names: RegExp): Map<string, number> {
  const hz = 100;
  const out = new Map<string, number>();
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const key = Number(pid) === process.pid ? 'harness(node)' : comm;
    if (key !== 'harness(node)' && !names.test(comm)) continue;
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const secs = (Number(f[11]) + Number(f[12])) / hz;
    out.set(key, (out.get(key) ?? 0) + secs);
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
  const parent = new Map<number, number>();
  const secs = new Map<number, number>();
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    parent.set(Number(pid), Number(f[1]));
    secs.set(Number(pid), (Number(f[11]) + Number(f[12])) / 100);
  }
  const rootSet = new Set(roots);
  let total = 0;
  for (const [pid, s] of secs) {
    for (let p: number | undefined = pid, hops = 0; p !== undefined && p > 1 && hops < 64; p = parent.get(p), hops++) {
      if (rootSet.has(p)) {
        total += s;
        break;
      }
    }
  }
  return total;
}
