/**
 * The desktop job against a real one-node Slurm (slurmctld + slurmd + munge), the bed's sshd as the
 * login node, a second sshd as the compute node's, and real TurboVNC started by the job.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cancelJob, jobStatus, listDesktopJobs, readJobFiles, submitJob, takeOneTimePassword } from '../../../src/core/cluster/jobs';
import { connectJobDesktop } from '../../../src/core/cluster/connect';
import { redactSecrets } from '../../../src/core/errors';
import { waitForDesktop } from '../../../src/core/cluster/lifecycle';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import type { ConnectOptions } from '../../../src/core/ssh/types';
import { cleanupAll, makeTempDir, registerCleanup, startSlurm, type SlurmBed } from '../../bed';
import { rfbHandshake } from '../remote/rfb';
import { eventually } from '../../helpers/until';

let slurm: SlurmBed;
let login: SshConnection;
let loginOptions: ConnectOptions;

beforeAll(async () => {
  slurm = await startSlurm();
  loginOptions = {
    destination: `${slurm.login.user}@127.0.0.1`,
    port: slurm.login.port,
    identityFiles: [slurm.login.userKeyPath],
    sshConfigPath: slurm.sshConfigPath,
    // Both hosts' keys are known under the names OpenSSH would check; nothing unknown is accepted.
    userKnownHostsFiles: [slurm.knownHostsPath],
    appKnownHostsFile: path.join(makeTempDir('gd-cluster-kh-'), 'known_hosts'),
    agent: false,
    reconnect: { enabled: false },
  };
  login = await connectSsh(loginOptions);
}, 120_000);

afterAll(async () => {
  await login?.close();
  await cleanupAll();
});

/** A job holding the node's one GPU, so the next GPU job pends with reason Resources. */
async function blocker(): Promise<string> {
  const r = await login.exec(`sbatch --parsable --gres=gpu:1 --job-name=blocker --output=/dev/null --wrap 'sleep 600'`);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

describe('sbatch errors', () => {
  it('a partition that does not exist gives sbatch\'s reason and what to do', async () => {
    const e = await submitJob(login, { partition: 'nope' }).catch((x) => x);
    expect(e.code).toBe('SLURM_FAILED');
    expect(e.message).toBe('Slurm refused the job: invalid partition specified: nope');
    expect(e.fix).toMatch(/sinfo/);
  });

  it('hostile values reach sbatch as plain text: nothing runs on the login node', async () => {
    const mark = `/tmp/gd-hostile-${randomBytes(4).toString('hex')}`;
    const p = await submitJob(login, { partition: `gpu; touch ${mark}` }).catch((x) => x);
    expect(p.code).toBe('SLURM_FAILED');
    expect(p.message).toContain(`invalid partition specified: gpu; touch ${mark}`);
    const t = await submitJob(login, { time: `$(touch ${mark})` }).catch((x) => x);
    expect(t.code).toBe('SLURM_FAILED');
    expect(t.message).toMatch(/Invalid --time specification/);
    const a = await submitJob(login, { account: `\`touch ${mark}\``, partition: 'nope' }).catch((x) => x);
    expect(a.code).toBe('SLURM_FAILED');
    expect(fs.existsSync(mark)).toBe(false);
  });
});

describe('a desktop job', () => {
  it('pends while the node is taken, runs, is reached by SSH to the node and its Unix socket, and is cancelled', async () => {
    const block = await blocker();
    const { jobId } = await submitJob(login, { gres: 'gpu:1', time: '10', geometry: '1024x768' });
    const pending = await eventually('pending with a reason', async () => {
      const s = await jobStatus(login, jobId);
      return s.phase === 'pending' && s.reason === 'Resources' ? s : null;
    });
    expect(pending.node).toBeNull();
    expect(pending.timeLimitSec).toBe(600);
    // Found again by name after a "restart": the same listing the app uses to offer reconnecting.
    expect((await listDesktopJobs(login)).map((j) => j.jobId)).toEqual([jobId]);

    await cancelJob(login, block);
    const seen: string[] = [];
    const { status, connection } = await waitForDesktop(login, jobId, { onStatus: (s) => seen.push(s.phase) });
    expect(status.phase).toBe('running');
    expect(status.node).toBe(slurm.nodeName);
    expect(status.timeLeftSec).toBeGreaterThan(0);
    expect(status.timeLeftSec).toBeLessThanOrEqual(600);
    expect(connection).toMatchObject({ jobId, node: slurm.nodeName, access: 'ssh' });
    expect(connection.socket).toBe(`${slurm.login.home}/.gpu-desk/jobs/${slurm.clusterName}/${jobId}/vnc.sock`);
    // The job's directory is the user's alone.
    expect(fs.statSync(path.dirname(connection.socket!)).mode & 0o077).toBe(0);
    expect(fs.statSync(connection.socket!).mode & 0o077).toBe(0);

    const link = await connectJobDesktop(login, loginOptions, jobId);
    try {
      expect(link.mode).toBe('ssh');
      expect(link.why).toMatch(/SSH to node .* Unix socket/);
      // No OTP, no desktop: a wrong password is refused.
      expect((await rfbHandshake(await link.open(), 'wrong123', { init: false })).ok).toBe(false);
      const otp = await link.oneTimePassword();
      // Handed over, not held: the caller registers it for as long as it keeps it (no leak in the app).
      expect(redactSecrets(`otp ${otp}`)).toBe(`otp ${otp}`);
      const r = await rfbHandshake(await link.open(), otp, { init: true });
      expect(r).toMatchObject({ ok: true, width: 1024, height: 768 });
      expect(r.name).toContain(`:${connection.display}`);
      // One-time: the same password does not open a second connection.
      expect((await rfbHandshake(await link.open(), otp)).ok).toBe(false);
    } finally {
      await link.close();
    }

    await cancelJob(login, jobId);
    const ended = await eventually('ended', async () => {
      const s = await jobStatus(login, jobId);
      return s.phase === 'ended' ? s : null;
    });
    expect(ended).toMatchObject({ state: 'CANCELLED', endedWhy: 'cancelled', source: 'scontrol' });
    await eventually('the session and its socket gone', async () => !fs.existsSync(connection.socket!) && !fs.existsSync(`/tmp/.X11-unix/X${connection.display}`));
    expect((await readJobFiles(login, jobId)).connection).toBeNull();
    expect(await listDesktopJobs(login)).toEqual([]);
  }, 240_000);

  it('through a TCP forward from the login node where SSH to nodes is not used: OTP only', async () => {
    const { jobId } = await submitJob(login, { gres: 'gpu:1', time: '5', nodeAccess: 'login-forward', geometry: '800x600' });
    const { connection } = await waitForDesktop(login, jobId);
    expect(connection).toMatchObject({ access: 'login-forward', socket: null, port: 5900 + connection.display });
    const link = await connectJobDesktop(login, loginOptions, jobId);
    try {
      expect(link.mode).toBe('login-forward');
      expect(link.target).toBe(`127.0.0.1:${connection.port}`);
      expect(link.why).toMatch(/TCP forward from the login node .* one-time passwords/);
      expect((await rfbHandshake(await link.open(), 'guess-me')).ok).toBe(false);
      const r = await rfbHandshake(await link.open(), await link.oneTimePassword(), { init: true });
      expect(r).toMatchObject({ ok: true, width: 800, height: 600 });
    } finally {
      await link.close();
      await cancelJob(login, jobId);
    }
    await eventually('ended', async () => (await jobStatus(login, jobId)).phase === 'ended');
  }, 240_000);

  it('a job that reaches its time limit ends with "time limit"', async () => {
    const { jobId } = await submitJob(login, { gres: 'gpu:1', time: '1' });
    await waitForDesktop(login, jobId);
    // Slurm checks time limits on its own schedule (about every 30 s after the minute is up).
    const ended = await eventually('ended by the time limit', async () => {
      const s = await jobStatus(login, jobId);
      return s.phase === 'ended' ? s : null;
    }, 180_000);
    expect(ended).toMatchObject({ state: 'TIMEOUT', endedWhy: 'time limit' });
  }, 240_000);
});

describe('nodes that lack a part', () => {
  /** An install prefix for the node: TurboVNC from /opt where asked, VirtualGL never. */
  function optRoot(withTurboVnc: boolean): string {
    const dir = makeTempDir('gd-node-opt-');
    fs.chmodSync(dir, 0o755);
    if (withTurboVnc) fs.symlinkSync('/opt/TurboVNC', path.join(dir, 'TurboVNC'));
    return dir;
  }

  it('a node without VirtualGL still gets its desktop, and says VirtualGL is off', async () => {
    const { jobId } = await submitJob(login, { gres: 'gpu:1', time: '5', geometry: '800x600', optRoot: optRoot(true) });
    try {
      const { connection } = await waitForDesktop(login, jobId);
      expect(connection).toMatchObject({ node: slurm.nodeName, access: 'ssh', virtualgl: false });
      const link = await connectJobDesktop(login, loginOptions, jobId);
      try {
        expect(await rfbHandshake(await link.open(), await link.oneTimePassword(), { init: true })).toMatchObject({ ok: true, width: 800, height: 600 });
      } finally {
        await link.close();
      }
    } finally {
      await cancelJob(login, jobId);
    }
    await eventually('ended', async () => (await jobStatus(login, jobId)).phase === 'ended');
  }, 180_000);

  it('a node without TurboVNC: the job ends before its desktop is up, and the wait says why and where to look', async () => {
    const opt = optRoot(false);
    const { jobId } = await submitJob(login, { gres: 'gpu:1', time: '5', optRoot: opt });
    const e = await waitForDesktop(login, jobId).catch((x) => x);
    expect(e.code).toBe('JOB_ENDED');
    expect(e.message).toBe(`Job ${jobId} ended (failed (exit code 1)) before its desktop was up: TurboVNC is not installed on ${slurm.nodeName} (${opt}/TurboVNC/bin/vncserver)`);
    expect(e.fix).toBe(`Look at ~/.gpu-desk/jobs/${slurm.clusterName}/${jobId}.out on the cluster, then start again`);
    // The job leaves no directory behind, only its output.
    expect(fs.existsSync(path.join(slurm.login.home, '.gpu-desk', 'jobs', slurm.clusterName, jobId))).toBe(false);
    expect(fs.existsSync(path.join(slurm.login.home, '.gpu-desk', 'jobs', slurm.clusterName, `${jobId}.out`))).toBe(true);
  }, 180_000);
});

describe('job files on a home that several clusters share', () => {
  const mode = (p: string) => fs.statSync(p).mode & 0o777;
  /** A job directory as another writer left it, owned by the bed user so that only our reader's choice keeps it unread. */
  function plant(dir: string, node: string): string {
    const uid = Number(execFileSync('id', ['-u', slurm.login.user], { encoding: 'utf8' }));
    const text = `node=${node}\ndisplay=42\nport=5942\nsocket=${dir}/vnc.sock\naccess=ssh\nvirtualgl=0\n`;
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    fs.writeFileSync(path.join(dir, 'connection'), text, { mode: 0o600 });
    for (let d = dir; d.startsWith(path.join(slurm.login.home, '.gpu-desk')); d = path.dirname(d)) fs.chownSync(d, uid, uid);
    fs.chownSync(path.join(dir, 'connection'), uid, uid);
    registerCleanup(() => fs.rmSync(dir, { recursive: true, force: true }));
    return text;
  }

  it('job N of this cluster never reads nor writes another cluster\'s job N (nor an earlier version\'s unkeyed one)', async () => {
    const block = await blocker();
    const { jobId, cluster } = await submitJob(login, { gres: 'gpu:1', time: '5', geometry: '800x600' });
    expect(cluster).toBe(slurm.clusterName);
    // Another cluster's job with the same number on the same home, and an earlier gpu-desk's unkeyed directory.
    const jobs = path.join(slurm.login.home, '.gpu-desk', 'jobs');
    const otherDir = path.join(jobs, 'othercluster', jobId);
    const legacyDir = path.join(jobs, jobId);
    const otherText = plant(otherDir, 'other-node');
    const legacyText = plant(legacyDir, 'legacy-node');
    await eventually('pending', async () => (await jobStatus(login, jobId)).phase === 'pending');
    const before = await readJobFiles(login, jobId);
    expect(before.connection).toBeNull();
    expect(before.outputPath).toBe(`~/.gpu-desk/jobs/${slurm.clusterName}/${jobId}.out`);
    const notUp = await connectJobDesktop(login, loginOptions, jobId).catch((e) => e);
    expect(notUp.code).toBe('JOB_NOT_FOUND');

    await cancelJob(login, block);
    const { connection } = await waitForDesktop(login, jobId);
    const own = path.join(jobs, slurm.clusterName, jobId);
    expect(connection).toMatchObject({ node: slurm.nodeName, socket: path.join(own, 'vnc.sock') });
    const otp = await takeOneTimePassword(login, jobId);
    expect(otp).toMatch(/^\S{4,64}$/);
    // The others' files are as they were: no connection overwritten, no password asked of them.
    expect(fs.readFileSync(path.join(otherDir, 'connection'), 'utf8')).toBe(otherText);
    expect(fs.readFileSync(path.join(legacyDir, 'connection'), 'utf8')).toBe(legacyText);
    expect(fs.readdirSync(otherDir)).toEqual(['connection']);
    expect(fs.readdirSync(legacyDir)).toEqual(['connection']);
    // This cluster's files are the user's alone.
    expect(mode(path.join(jobs, slurm.clusterName))).toBe(0o700);
    expect(mode(own)).toBe(0o700);
    expect(mode(path.join(own, 'connection'))).toBe(0o600);
    expect(mode(path.join(jobs, slurm.clusterName, `${jobId}.out`))).toBe(0o600);

    await cancelJob(login, jobId);
    await eventually('ended', async () => (await jobStatus(login, jobId)).phase === 'ended');
    await eventually('its directory removed by the job', async () => !fs.existsSync(own)).catch((e: Error) => {
      // What was left, and what the job said, to tell a job that never got its signal from one whose clean-up failed.
      const left = fs.existsSync(own) ? fs.readdirSync(own).join(', ') : '(gone)';
      const out = path.join(jobs, slurm.clusterName, `${jobId}.out`);
      throw new Error(`${e.message}; left in it: ${left}; job output: ${fs.existsSync(out) ? fs.readFileSync(out, 'utf8').trim().split('\n').slice(-6).join(' | ') : '(none)'}`);
    });
    expect(fs.existsSync(otherDir) && fs.existsSync(legacyDir)).toBe(true);
  }, 240_000);

  it('a desktop job an earlier version started (unkeyed directory, Slurm says its output is there) is still found', async () => {
    // What an earlier gpu-desk submitted: --output=.gpu-desk/jobs/%j.out and ~/.gpu-desk/jobs/<id>/connection.
    const earlier = [
      '#!/bin/bash',
      'd="$HOME/.gpu-desk/jobs/$SLURM_JOB_ID"; umask 077; mkdir -p "$d"',
      'trap \'rm -rf "$d"\' EXIT TERM',
      'printf \'node=%s\\ndisplay=77\\nport=5977\\nsocket=%s\\naccess=ssh\\nvirtualgl=0\\n\' "$SLURMD_NODENAME" "$d/vnc.sock" >"$d/connection"',
      'sleep 300 & wait',
      '',
    ].join('\n');
    const r = await login.exec('mkdir -p .gpu-desk/jobs && sbatch --parsable --job-name=gpu-desk --output=.gpu-desk/jobs/%j.out --time=5', { stdin: earlier });
    expect(r.code, r.stderr).toBe(0);
    const jobId = r.stdout.trim();
    registerCleanup(() => fs.rmSync(path.join(slurm.login.home, '.gpu-desk', 'jobs', `${jobId}.out`), { force: true }));
    try {
      const found = await eventually('the earlier layout\'s connection file', async () => (await readJobFiles(login, jobId)).connection);
      expect(found).toMatchObject({ jobId, node: slurm.nodeName, display: 77, socket: `${slurm.login.home}/.gpu-desk/jobs/${jobId}/vnc.sock` });
      expect((await readJobFiles(login, jobId)).outputPath).toBe(`~/.gpu-desk/jobs/${jobId}.out`);
    } finally {
      await cancelJob(login, jobId);
    }
    await eventually('ended', async () => (await jobStatus(login, jobId)).phase === 'ended');
  }, 120_000);
});
