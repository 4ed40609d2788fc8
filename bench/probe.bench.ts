/**
 * npm run bench:probe — how long "probe the server" takes over an open connection (the set-up screen
 * and `gpu-desk probe` wait for it; it should take "a few seconds" at most), in one run against the
 * same probe command sent by OpenSSH's client over its own multiplexed (ControlMaster) connection to
 * the same sshd. The probe runs against the real VirtualGL 3.1.4 and TurboVNC 3.3 in /opt, with the
 * nvidia-smi shim on PATH (test/shims/README.md), as on a GPU server, and without it (this Debian bed).
 * Target: median probe ≤ 3000 ms. The ratio to OpenSSH is reported, not judged: the remote script is
 * the same for both, so the ratio is our exec path and parsing against a fresh `ssh` process.
 * GD_BENCH_PROBES=N sets the timed probes per party and case (default 20).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { cleanupAll, makeTempDir, startSshd, type SshdBed } from '../test/bed';
import { bedOptions } from '../test/helpers/ssh';
import { connectSsh } from '../src/core/ssh/connection';
import { probeServer } from '../src/core/remote/probe';
import { buildProbeCommand } from '../src/core/remote/probeScript';
import { percentile } from './tunnel/measure';
import { opensshClientArgs } from './tunnel/procs';

const SHIMS = path.resolve(__dirname, '../test/shims');
const N = Number(process.env.GD_BENCH_PROBES ?? 20);
const TARGET_MS = 3000;

const line = (s: string) => process.stdout.write(`${s}\n`);

/** OpenSSH's client running one command over a ControlMaster connection it keeps open. */
function opensshRunner(bed: SshdBed) {
  const dir = makeTempDir('gd-bench-probe-');
  const base = [
    ...opensshClientArgs(bed, bed.port),
    '-o', `ControlPath=${path.join(dir, 'cm')}`, '-o', 'ControlMaster=auto', '-o', 'ControlPersist=120',
    `${bed.user}@127.0.0.1`,
  ];
  const run = (command: string) =>
    new Promise<{ ms: number; stdout: string }>((resolve, reject) => {
      const t0 = performance.now();
      const p = spawn('ssh', [...base, command], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d) => (stdout += d));
      p.stderr.on('data', (d) => (stderr += d));
      p.on('error', reject);
      p.on('close', (code) => (code === 0 ? resolve({ ms: performance.now() - t0, stdout }) : reject(new Error(`ssh exited ${code}: ${stderr.trim().split('\n')[0]}`))));
    });
  const stop = async () => {
    await new Promise<void>((r) => spawn('ssh', ['-O', 'exit', ...base], { stdio: 'ignore' }).on('close', () => r()));
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return { run, stop };
}

async function measure(label: string, bed: SshdBed, optRoot: string): Promise<boolean> {
  const conn = await connectSsh(bedOptions(bed));
  const openssh = opensshRunner(bed);
  const command = buildProbeCommand(optRoot);
  try {
    // Warm-up: the ControlMaster connection, both sides' page caches, sshd's first session.
    for (let i = 0; i < 2; i++) {
      await probeServer(conn, { optRoot });
      await openssh.run(command);
    }
    const ours: number[] = [];
    const theirs: number[] = [];
    let gpus = 0;
    for (let i = 0; i < N; i++) {
      // Alternate who goes first so neither always runs on a machine the other just warmed.
      const order = i % 2 ? ['openssh', 'ours'] : ['ours', 'openssh'];
      for (const who of order) {
        if (who === 'ours') {
          const t0 = performance.now();
          const r = await probeServer(conn, { optRoot });
          ours.push(performance.now() - t0);
          gpus = r.gpus.length;
        } else {
          theirs.push((await openssh.run(command)).ms);
        }
      }
    }
    const m = percentile(ours, 50);
    const o = percentile(theirs, 50);
    const pass = m <= TARGET_MS;
    line(`probe ${label} (${N} each, ${gpus} GPU(s) found): ours median ${m.toFixed(1)} ms max ${Math.max(...ours).toFixed(1)} ms, ` +
      `OpenSSH ControlMaster + same script median ${o.toFixed(1)} ms, ratio ${(m / o).toFixed(2)}x (reported); target median <= ${TARGET_MS} ms ${pass ? 'PASS' : 'FAIL'}`);
    return pass;
  } finally {
    await openssh.stop();
    await conn.close();
  }
}

async function main(): Promise<void> {
  const shimBed = await startSshd({ extraConfig: [`SetEnv PATH=${SHIMS}/bin:/usr/local/bin:/usr/bin:/bin`] });
  const plainBed = await startSshd();
  const results = [
    await measure('GPU server (shim nvidia-smi; real VirtualGL, TurboVNC)', shimBed, '/opt'),
    await measure('this Debian bed (no GPU; VirtualGL on llvmpipe, TurboVNC, TigerVNC)', plainBed, '/opt'),
  ];
  line(`bench:probe: ${results.filter(Boolean).length} of ${results.length} targets met`);
  if (!results.every(Boolean)) process.exitCode = 1;
}

main()
  .catch((e) => {
    process.stderr.write(`bench:probe failed: ${(e as Error).message}\n`);
    process.exitCode = 2;
  })
  .finally(() => cleanupAll());
