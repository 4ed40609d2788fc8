/**
 * npm run bench:sftp — one 1 GiB upload through a proxy adding 50 ms each way (the long-link
 * delay proxy, in its own process): gpu-desk's SFTP upload (src/core/files, pipelined WRITEs on an
 * ssh2 connection) against OpenSSH's `sftp` (`put`, its defaults: 64 requests of 32 KiB) to the
 * same sshd, in one run, and prints the rate ratio as a judged line (target >= 1x).
 * Both land in a folder of this run's own on the bed and are checked by size and SHA-256.
 * GD_BENCH_QUICK=1: 64 MiB (smoke run). GD_BENCH_DELAY=N: ms each way (default 50).
 * GD_BENCH_STRICT=1 makes a missed target exit non-zero.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanupAll, startSshd, type SshdBed } from '../test/bed';
import { connectSsh } from '../src/core/ssh/connection';
import { localFileSource, uploadToFolder } from '../src/core/files';
import { knownHostsFor, startProxy } from './tunnel/procs';

const MiB = 1024 * 1024;
const BYTES = process.env.GD_BENCH_QUICK === '1' ? 64 * MiB : 1024 * MiB;
const DELAY_MS = Number(process.env.GD_BENCH_DELAY ?? 50);

async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  for await (const c of fs.createReadStream(file, { highWaterMark: 4 * MiB })) h.update(c as Buffer);
  return h.digest('hex');
}

async function ours(bed: SshdBed, port: number, file: string, folder: string): Promise<number> {
  const conn = await connectSsh({
    destination: `${bed.user}@127.0.0.1`, port, identityFiles: [bed.userKeyPath], agent: false, sshConfigPath: null,
    userKnownHostsFiles: [knownHostsFor(bed, port)], globalKnownHostsFiles: [], appKnownHostsFile: path.join(os.tmpdir(), `gd-bench-sftp-kh-${process.pid}`),
    reconnect: { enabled: false }, callbacks: { onUnknownHostKey: async () => 'reject' },
  });
  try {
    const sftp = await conn.sftp();
    const t = process.hrtime.bigint();
    await uploadToFolder(sftp, { folder, name: 'ours.bin', overwrite: true, source: localFileSource(file) });
    return Number(process.hrtime.bigint() - t) / 1e9;
  } finally {
    await conn.close();
  }
}

/** One OpenSSH sftp run in batch mode, wall-clock seconds from spawn to exit (connection set-up included). */
function opensshRun(bed: SshdBed, port: number, batch: string): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-bench-sftp-'));
  const b = path.join(dir, 'batch');
  fs.writeFileSync(b, batch);
  const args = ['-q', '-b', b, '-P', String(port), '-i', bed.userKeyPath, '-o', 'IdentitiesOnly=yes', '-o', `UserKnownHostsFile=${knownHostsFor(bed, port)}`, '-o', 'GlobalKnownHostsFile=/dev/null', '-o', 'BatchMode=yes', '-F', '/dev/null', `${bed.user}@127.0.0.1`];
  return new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    const p = spawn('sftp', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('exit', (code) => {
      fs.rmSync(dir, { recursive: true, force: true });
      if (code === 0) resolve(Number(process.hrtime.bigint() - t) / 1e9);
      else reject(new Error(`sftp exited ${code}: ${err.trim()}`));
    });
  });
}

async function main(): Promise<void> {
  const bed = await startSshd();
  const proxy = await startProxy(bed.port, DELAY_MS);
  const folder = path.posix.join(bed.home, `gd-bench-sftp-${process.pid}`);
  const local = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-bench-sftp-src-'));
  const file = path.join(local, 'payload.bin');
  try {
    fs.mkdirSync(folder);
    const home = fs.statSync(bed.home);
    fs.chownSync(folder, home.uid, home.gid);
    // Random bytes: nothing on the path may compress them.
    const fd = fs.openSync(file, 'w');
    for (let off = 0; off < BYTES; off += 16 * MiB) fs.writeSync(fd, randomBytes(Math.min(16 * MiB, BYTES - off)));
    fs.closeSync(fd);
    const want = await sha256File(file);
    console.log(`sftp upload: ${BYTES / MiB} MiB through a proxy adding ${DELAY_MS} ms each way (round trip >= ${2 * DELAY_MS} ms), same sshd`);

    // OpenSSH's connection set-up (handshake, auth, subsystem) is timed by a batch that only runs "pwd", then subtracted.
    const setup = await opensshRun(bed, proxy.port, 'pwd\n');
    const tOpenssh = (await opensshRun(bed, proxy.port, `put ${file} ${folder}/openssh.bin\n`)) - setup;
    const tOurs = await ours(bed, proxy.port, file, folder);
    for (const n of ['ours.bin', 'openssh.bin']) {
      const got = await sha256File(path.join(folder, n));
      if (got !== want) throw new Error(`${n} on the server differs from what was sent`);
    }
    const rate = (s: number) => BYTES / MiB / s;
    const ratio = rate(tOurs) / rate(tOpenssh);
    const pass = ratio >= 1;
    console.log(`  OpenSSH connection set-up (subtracted from its time): ${setup.toFixed(2)} s`);
    console.log(`sftp upload ${BYTES / MiB} MiB at ${DELAY_MS} ms each way: ours ${rate(tOurs).toFixed(1)} MiB/s (${tOurs.toFixed(1)} s), openssh sftp ${rate(tOpenssh).toFixed(1)} MiB/s (${tOpenssh.toFixed(1)} s), ratio ${ratio.toFixed(2)}x (target >= 1x) ${pass ? 'PASS' : 'FAIL'}`);
    if (!pass && process.env.GD_BENCH_STRICT === '1') process.exitCode = 1;
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
    fs.rmSync(local, { recursive: true, force: true });
    await proxy.stop();
    await cleanupAll();
  }
}

main().catch((e) => {
  console.error(`bench:sftp failed: ${(e as Error).message}`);
  process.exit(1);
});
