/**
 * npm run bench:cli — how long `gpu-desk --help` takes to start and finish, against `node -e 0` (Node
 * itself) in the same run, alternating so both see the same load. The CLI runs from its bundle
 * (scripts/build-cli.mjs, built first here so it matches the sources), as after `npm ci`; --help
 * loads none of the commands (main.ts loads only the one that runs).
 * Target: median(gpu-desk --help) - median(node -e 0) <= 250 ms (issue 43). The load average is
 * printed beside it: on a busy machine both figures grow.
 * GD_BENCH_CLI_RUNS=N sets the timed runs per command (default 20).
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { percentile } from './tunnel/measure';

const ROOT = path.resolve(__dirname, '..');
const N = Number(process.env.GD_BENCH_CLI_RUNS ?? 20);
const TARGET_MS = 250;

const line = (s: string) => process.stdout.write(`${s}\n`);

function timed(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${args.join(' ')} exited ${code}: ${stderr.trim().split('\n')[0]}`))));
  });
}

async function main(): Promise<void> {
  execFileSync(process.execPath, [path.join(ROOT, 'scripts/build-cli.mjs')], { stdio: 'inherit' });
  const cli = [path.join(ROOT, 'bin/gpu-desk.cjs'), '--help'];
  const bare = ['-e', '0'];
  // Warm-up: page cache for Node, the bundle and ssh2.
  for (let i = 0; i < 2; i++) await Promise.all([timed(cli), timed(bare)].map((p) => p.catch((e: Error) => { throw e; })));
  const ours: number[] = [];
  const node: number[] = [];
  for (let i = 0; i < N; i++) {
    node.push(await timed(bare));
    ours.push(await timed(cli));
  }
  // A source edited meanwhile (another checkout user, an editor's save) makes bin/gpu-desk.cjs run
  // the TypeScript through tsx instead: those times would not be the bundle's.
  const inputs: string[] = JSON.parse(fs.readFileSync(path.join(ROOT, 'out/cli/inputs.json'), 'utf8'));
  const built = fs.statSync(path.join(ROOT, 'out/cli/gpu-desk.cjs')).mtimeMs;
  const edited = inputs.filter((f) => !fs.existsSync(path.join(ROOT, f)) || fs.statSync(path.join(ROOT, f)).mtimeMs > built);
  if (edited.length) throw new Error(`${edited[0]} changed during the run, so some starts ran the sources through tsx: run it again`);
  const m = percentile(ours, 50);
  const b = percentile(node, 50);
  const pass = m - b <= TARGET_MS;
  line(`cli (${N} each, load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} CPUs): gpu-desk --help median ${m.toFixed(0)} ms, ` +
    `node -e 0 median ${b.toFixed(0)} ms, difference ${(m - b).toFixed(0)} ms; target <= ${TARGET_MS} ms ${pass ? 'PASS' : 'FAIL'}`);
  if (!pass) process.exitCode = 1;
}

main().catch((e) => {
  process.stderr.write(`bench:cli: ${(e as Error).message}\n`);
  process.exitCode = 2;
});
