/**
 * The real `gpu-desk` CLI as the integration tests run it: the built bundle (bin/gpu-desk.cjs) in a
 * child Node, with a home of the test's own (GPU_DESK_HOME and HOME, so neither the developer's
 * profiles nor ~/.ssh are read) and no agent. One place, so every test runs the CLI the same way.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { registerCleanup } from '../bed/util';

export const GPU_DESK_BIN = path.resolve(__dirname, '../../bin/gpu-desk.cjs');

export interface CliOptions {
  /** GPU_DESK_HOME and HOME of the run. */
  home: string;
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed; `null` leaves stdin open (a command that prompts or runs until told). */
  stdin?: string | null;
  /** Each whole line of stdout as it comes. */
  onLine?(line: string): void;
}

export interface CliResult { code: number; stdout: string; stderr: string; ms: number }

/** A CLI process that keeps running (a tunnel, a job watcher): its stdout line by line. */
export interface CliProcess {
  proc: ChildProcessWithoutNullStreams;
  lines: AsyncIterableIterator<string>;
  stdout(): string;
  stderr(): string;
  exit: Promise<number>;
}

export function cliEnv(home: string, env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, GPU_DESK_HOME: home, HOME: home, SSH_AUTH_SOCK: '', ...env };
}

/** Starts `gpu-desk ARGS…`; killed at the test file's clean-up if still running. */
export function spawnCli(args: string[], opts: CliOptions): CliProcess {
  const proc = spawn(process.execPath, [GPU_DESK_BIN, ...args], { env: cliEnv(opts.home, opts.env), stdio: ['pipe', 'pipe', 'pipe'] });
  registerCleanup(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  });
  let out = '';
  let err = '';
  let partial = '';
  proc.stdout.on('data', (d: Buffer) => {
    out += d;
    if (!opts.onLine) return;
    partial += d;
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const l of lines) opts.onLine(l);
  });
  proc.stderr.on('data', (d) => (err += d));
  if (opts.stdin !== null) proc.stdin.end(opts.stdin ?? '');
  const exit = new Promise<number>((r) => proc.on('exit', (c) => r(c ?? -1)));
  return { proc, lines: createInterface({ input: proc.stdout })[Symbol.asyncIterator](), stdout: () => out, stderr: () => err, exit };
}

/** Runs `gpu-desk ARGS…` to its end. */
export async function runCli(args: string[], opts: CliOptions): Promise<CliResult> {
  const t0 = performance.now();
  const r = spawnCli(args, opts);
  const code = await r.exit;
  return { code, stdout: r.stdout(), stderr: r.stderr(), ms: performance.now() - t0 };
}

/** The process's next line of stdout; a process that ends first throws with what it said on stderr. */
export async function nextLine(r: CliProcess, timeoutMs = 120_000): Promise<string> {
  // A process that neither prints nor exits is killed, so the test fails with its stderr, not a hang.
  const t = setTimeout(() => r.proc.kill('SIGKILL'), timeoutMs);
  try {
    const { value, done } = await r.lines.next();
    if (done) throw new Error(`no more output; stderr: ${r.stderr()}`);
    return value;
  } finally {
    clearTimeout(t);
  }
}

/** The process's next line of stdout, as the JSON object it is (`--json` prints one per event). */
export async function nextJson(r: CliProcess, timeoutMs = 120_000): Promise<Record<string, unknown>> {
  return JSON.parse(await nextLine(r, timeoutMs)) as Record<string, unknown>;
}
