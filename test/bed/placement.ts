/**
 * Two machines on one (issue 30): the benches' `--cpus desk:server`. The desk side (the bench
 * process itself, so Chromium, the harness and its tunnel, xtigervncviewer and its Xvfb, `ssh -L`,
 * every child it spawns unless told otherwise) runs on one CPU, the server side (the bed's sshd and
 * everything it forks: Xvnc, the 3D program, the video encoder; the link proxy) on another.
 * Placement is `taskset`, applied at spawn: children inherit affinity at fork, so a process placed
 * before it forks places all it starts (sshd's sessions included). `--cpus shared` keeps the old
 * layout (everything on every CPU) for comparison. Default: `0:1`-like (the first two CPUs this
 * process may use) where there are two or more, else shared, with the reason.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

export interface Placement {
  shared: boolean;
  desk: number | null;
  server: number | null;
  /** One line for a bench's header. */
  describe: string;
  /** `taskset -c N` for a server-side spawn ([] when shared): prepend to the argv. */
  serverWrap: string[];
  deskWrap: string[];
}

/** The CPUs this process may run on (its affinity, as /proc reports it). */
export function allowedCpus(): number[] {
  const list = /Cpus_allowed_list:\s*(\S+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? '0';
  const out: number[] = [];
  for (const part of list.split(',')) {
    const [a, b] = part.split('-').map(Number);
    for (let c = a; c <= (b ?? a); c++) out.push(c);
  }
  return out;
}

const fmtList = (cpus: number[]) => (cpus.length === 1 ? `only CPU ${cpus[0]}` : `CPUs ${cpus.join(', ')}`);

/** Parses `--cpus` (undefined: the default); throws a one-line Error on bad input. */
export function parsePlacement(arg: string | undefined, cpus: number[] = allowedCpus()): Placement {
  const shared = (why: string): Placement => ({ shared: true, desk: null, server: null, describe: `placement: shared (${why}): desk and server processes on ${fmtList(cpus)} alike`, serverWrap: [], deskWrap: [] });
  if (arg === 'shared') return shared('--cpus shared');
  if (arg === undefined) {
    if (cpus.length < 2) return shared(`this machine lets the bench use ${fmtList(cpus)}: two machines need two CPUs, so desk and server share it`);
    return placed(cpus[0], cpus[1]);
  }
  const m = /^(\d+):(\d+)$/.exec(arg);
  if (!m) throw new Error(`--cpus "${arg}": give desk:server (e.g. ${cpus[0]}:${cpus[1] ?? cpus[0]}) or shared; this machine has ${fmtList(cpus)}`);
  const desk = Number(m[1]);
  const server = Number(m[2]);
  if (cpus.length < 2) throw new Error(`--cpus ${arg}: this machine has ${fmtList(cpus)}, so the bench can only run shared (--cpus shared)`);
  const missing = [desk, server].filter((c) => !cpus.includes(c));
  if (missing.length > 0) throw new Error(`--cpus ${arg}: no CPU ${[...new Set(missing)].join(' or ')} here; this machine has ${fmtList(cpus)}`);
  if (desk === server) throw new Error(`--cpus ${arg}: desk and server need CPUs of their own (one CPU for both is --cpus shared); this machine has ${fmtList(cpus)}`);
  return placed(desk, server);
}

function placed(desk: number, server: number): Placement {
  return {
    shared: false,
    desk,
    server,
    describe: `placement: desk on CPU ${desk} (the bench and its harness/tunnel, Chromium, xtigervncviewer + its Xvfb, ssh -L), server on CPU ${server} (sshd and all it starts: Xvnc, glxspheres64, ffmpeg; the link proxy), taskset at spawn`,
    serverWrap: ['taskset', '-c', String(server)],
    deskWrap: ['taskset', '-c', String(desk)],
  };
}

/** Puts this process (every thread it has now; later ones inherit) on the desk CPU. Call before spawning anything. */
export function placeSelfOnDesk(p: Placement): void {
  if (p.shared) return;
  execFileSync('taskset', ['-a', '-pc', String(p.desk), String(process.pid)], { stdio: 'ignore' });
}

/** `--cpus` from argv, validated; prints the one-line error and exits 2 on bad input. */
export function placementFromArgs(args: string[]): Placement {
  const i = args.indexOf('--cpus');
  try {
    return parsePlacement(i >= 0 ? args[i + 1] : undefined);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exit(2);
  }
}

/** The CPU a process last ran on and its allowed list, for a check that placement held. */
export function affinityOf(pid: number): string | null {
  try {
    return /Cpus_allowed_list:\s*(\S+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? null;
  } catch {
    return null;
  }
}
