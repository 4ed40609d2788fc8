/** `gpu-desk jobs` and `gpu-desk tunnel --job` as real CLI processes against the real Slurm bed. */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, makeTempDir, startSlurm, type SlurmBed } from '../../bed';
import { nextJson, spawnCli } from '../../helpers/cli';
import { rfbHandshake } from '../remote/rfb';

let slurm: SlurmBed;
let home: string;

beforeAll(async () => {
  slurm = await startSlurm();
  home = makeTempDir('gd-jobscli-');
  // The client's own known_hosts holds both hosts' keys (the node's under its HostKeyAlias): nothing is accepted blindly.
  fs.mkdirSync(path.join(home, '.ssh'), { mode: 0o700 });
  fs.copyFileSync(slurm.knownHostsPath, path.join(home, '.ssh', 'known_hosts'));
}, 120_000);
afterAll(cleanupAll);

const cli = (args: string[]) => spawnCli(args, { home });

const login = () => [slurm.loginDestination, '-i', slurm.login.userKeyPath, '-F', slurm.sshConfigPath];

async function done(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = cli(args);
  const code = await r.exit;
  return { code, stdout: r.stdout(), stderr: r.stderr() };
}

describe('gpu-desk jobs / tunnel --job (real CLI, real Slurm, sshd and TurboVNC)', () => {
  it('--print-script shows the sbatch line with every value quoted, and submits nothing', async () => {
    const r = await done(['jobs', 'nowhere.invalid', 'start', '--print-script', '--partition', 'gpu; touch /tmp/x', '--time', '$(id)', '--gres', 'gpu:1']);
    expect(r.code).toBe(0);
    const first = r.stdout.split('\n')[0];
    expect(first).toContain(`'--partition=gpu; touch /tmp/x' '--time=$(id)' --gres=gpu:1`);
    expect(first).toMatch(/^sbatch --parsable --job-name=gpu-desk /);
    expect(r.stdout).toContain('-securitytypes OTP');
  });

  it('a partition that does not exist: one line naming sbatch\'s reason and the fix', async () => {
    const r = await done(['jobs', ...login(), 'start', '--partition', 'nope']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('error: Slurm refused the job: invalid partition specified: nope — Pick a partition that `sinfo` lists on the login node (--partition)');
  });

  it('start → list → tunnel --job (a viewer gets the desktop with the printed OTP) → cancel', async () => {
    const start = cli(['jobs', ...login(), 'start', '--gres', 'gpu:1', '--time', '15', '--geometry', '1280x720', '--json']);
    const submitted = await nextJson(start);
    expect(submitted).toMatchObject({ event: 'submitted' });
    const jobId = String(submitted.jobId);
    let ev = await nextJson(start);
    while (ev.event === 'status') ev = await nextJson(start);
    expect(ev).toMatchObject({ event: 'ready', jobId, node: slurm.nodeName, access: 'ssh' });
    expect(Number(ev.timeLeftSec)).toBeGreaterThan(0);
    expect(await start.exit).toBe(0);

    const list = await done(['jobs', ...login(), 'list', '--json']);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining({ jobId, phase: 'running', node: slurm.nodeName })]);

    const tunnel = cli(['tunnel', ...login(), '--job', jobId, '--json']);
    const listening = await nextJson(tunnel);
    expect(listening).toMatchObject({ event: 'listening', job: jobId, node: slurm.nodeName, mode: 'ssh', display: ev.display });
    expect(String(listening.why)).toMatch(/Unix socket/);
    const port = Number(String(listening.local).split(':')[1]);
    const r = await rfbHandshake(net.connect({ host: '127.0.0.1', port }), String(listening.otp), { init: true });
    expect(r).toMatchObject({ ok: true, width: 1280, height: 720 });
    // A second viewer needs a second password.
    const otp2 = await done(['jobs', ...login(), 'otp', jobId]);
    expect(otp2.code, otp2.stderr).toBe(0);
    expect((await rfbHandshake(net.connect({ host: '127.0.0.1', port }), otp2.stdout.trim())).ok).toBe(true);

    const cancel = await done(['jobs', ...login(), 'cancel', jobId]);
    expect(cancel).toMatchObject({ code: 0, stdout: `Job ${jobId} cancelled (scancel).\n` });
    // The tunnel sees the job end and closes by itself, saying why.
    let closed = await nextJson(tunnel);
    while (closed.event !== 'closed') closed = await nextJson(tunnel);
    expect(closed.reason).toBe('job ended: cancelled');
    expect(await tunnel.exit).toBe(0);
    const after = await done(['jobs', ...login(), 'list', '--json']);
    expect(JSON.parse(after.stdout)).toEqual([]);
  }, 240_000);

  it('defaults: the bed\'s partition with its GPU, and accounts plainly "not available" (no accounting database)', async () => {
    const r = await done(['jobs', ...login(), 'defaults', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout);
    expect(d.partitions).toEqual([{ name: slurm.partition, isDefault: true, gres: ['gpu:1'], maxTime: 'infinite', up: true }]);
    expect(d.accounts).toBeNull();
    expect(d.accountsWhy).toMatch(/no accounting database/);
    const text = await done(['jobs', ...login(), 'defaults']);
    expect(text.stdout).toContain(`partition ${slurm.partition} (default)  GPUs: gpu:1`);
    expect(text.stdout).toContain('accounts: not available (the cluster keeps no accounting database');
  });

  it('a cluster profile gives the job its settings; flags override them', async () => {
    const add = await done(['profiles', 'add', 'hpc', `${slurm.login.user}@127.0.0.1:${slurm.login.port}`, '-i', slurm.login.userKeyPath, '--cluster',
      '--partition', 'nope', '--gres', 'gpu:1', '--time', '0:30:00', '--pre', 'echo hello from the preamble', '--geometry', '1024x768']);
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain('Saved cluster profile "hpc"');
    const shown = await done(['jobs', 'hpc', 'start', '--print-script', '--time', '20']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout.split('\n')[0]).toContain('--partition=nope --time=20 --gres=gpu:1');
    expect(shown.stdout).toContain('\necho hello from the preamble\n');
    expect(shown.stdout).toContain(`geometry=1024x768`);
    // Tunnel-only mode to a cluster without --job means its one running desktop job; with none, how to start one.
    const none = await done(['tunnel', 'hpc']);
    expect(none.code).toBe(1);
    expect(none.stderr.trim()).toBe('error: No desktop job is running on hpc — start one from the app or `gpu-desk jobs hpc start`');
    // The profile's own partition reaches sbatch, which refuses it in its own words.
    const bad = await done(['jobs', 'hpc', 'start']);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toMatch(/^error: Slurm refused the job: invalid partition specified: nope — /);
    const ok = await done(['jobs', 'hpc', 'start', '--partition', slurm.partition, '--no-wait', '--json']);
    expect(ok.code, ok.stderr).toBe(0);
    const { jobId } = JSON.parse(ok.stdout);
    expect((await done(['jobs', 'hpc', 'cancel', String(jobId)])).code).toBe(0);
    // A job setting without --cluster would be silently dropped: refused instead.
    const plain = await done(['profiles', 'add', 'plain', 'h.example', '--partition', 'gpu']);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/--partition is a job setting: add --cluster/);
  }, 120_000);
});
