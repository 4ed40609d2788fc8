/**
 * The app's cluster flow through the harness IPC socket (the contract the window uses), against the
 * real one-node Slurm, the bed's sshd as login node, a second sshd as the node's, and real TurboVNC:
 * a cluster profile, the sinfo defaults, the script shown before submit, pending while the node is
 * taken, running with its desktop viewed through the login node, found again by name, cancelled;
 * and the node link a viewer opened goes with the login connection that opened it (issue 41).
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { createWebSocketStream } from 'ws';
import { startHarness, type Harness } from '../../../src/harness/server';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { redactSecrets } from '../../../src/core/errors';
import type { ProfileInput } from '../../../src/shared/contract';
import type { ClusterJobView, ClusterViewerTicket, SavedTunnelView, TunnelView, VideoTicket } from '../../../src/shared/models';
import { VIDEO_FRAME } from '../../../src/shared/videoFrames';
import { cleanupAll, makeTempDir, startSlurm, type SlurmBed } from '../../bed';
import { openIpc, type Client } from '../../helpers/ipcClient';
import { rfbHandshake } from '../remote/rfb';
import { processesUnderSshd } from '../../helpers/sshdProcesses';
import { until } from '../../helpers/until';

let slurm: SlurmBed;
let harness: Harness;
let shell: SshConnection;
let c: Client;

beforeAll(async () => {
  slurm = await startSlurm();
  process.env.GPU_DESK_HOME = makeTempDir('gd-cluster-app-');
  // Both hosts' keys known as a user's ~/.ssh would know them, and the node mapped as a cluster's ~/.ssh/config maps it.
  harness = await startHarness({ build: false, log: () => {}, deps: { sshConfigPath: slurm.sshConfigPath, userKnownHostsFiles: [slurm.knownHostsPath] } });
  c = await openIpc(harness.url.replace('http://', 'ws://').replace('/#token=', '/ipc?token='), harness.origin);
  shell = await connectSsh({
    destination: `${slurm.login.user}@127.0.0.1`, port: slurm.login.port, identityFiles: [slurm.login.userKeyPath], sshConfigPath: null,
    userKnownHostsFiles: [slurm.knownHostsPath], appKnownHostsFile: path.join(makeTempDir('gd-cluster-app-kh-'), 'kh'), agent: false, reconnect: { enabled: false },
  });
}, 120_000);
afterAll(async () => {
  c?.close();
  await shell?.close();
  await harness?.close();
  await cleanupAll();
});

function clusterProfile(job: Partial<NonNullable<ProfileInput['job']>> = {}): ProfileInput {
  return {
    name: 'hpc', kind: 'cluster', host: '127.0.0.1', port: slurm.login.port, user: slurm.login.user, jumpHosts: [],
    auth: { kind: 'key-file', path: slurm.login.userKeyPath }, display: { geometry: '800x600' },
    viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'fit', adaptive: false }, forwards: [],
    job: { gres: 'gpu:1', time: '10', extraSbatch: [], preamble: [], nodeAccess: 'ssh', ...job },
  };
}

async function value<T>(p: Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string; fix?: string } }>): Promise<T> {
  const r = await p;
  if (!r.ok) throw new Error(`${r.error?.code}: ${r.error?.message}`);
  return r.value as T;
}

/** The first access unit of a video channel (its messages read as the viewer reads them). */
function firstAccessUnit(url: string, origin: string): Promise<{ flags: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { origin });
    let buf = Buffer.alloc(0);
    ws.on('message', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= VIDEO_FRAME.headerBytes && buf.length >= VIDEO_FRAME.headerBytes + buf.readUInt32BE(0)) {
        const n = buf.readUInt32BE(0);
        if (buf[4] === VIDEO_FRAME.accessUnit) {
          ws.close();
          resolve({ flags: buf[5], bytes: n });
          return;
        }
        if (buf[4] === VIDEO_FRAME.end) reject(new Error(`video ended: ${buf.subarray(8, 8 + n).toString()}`));
        buf = buf.subarray(VIDEO_FRAME.headerBytes + n);
      }
    });
    ws.once('error', reject);
    ws.once('close', () => reject(new Error('the video channel closed before a frame')));
  });
}

/** The next clusters.job event for this job that satisfies `want` (events are waited for, never slept on). */
async function jobEvent(jobId: string, want: (j: ClusterJobView) => boolean): Promise<ClusterJobView> {
  for (;;) {
    const j = (await c.nextEvent('clusters.job')) as unknown as ClusterJobView;
    if (j.jobId === jobId && want(j)) return j;
  }
}

describe('the app\'s cluster flow (harness IPC, real Slurm)', () => {
  it('profile → defaults → script → pending → running → viewer through the node → found again → cancelled', async () => {
    const profile = await value<{ id: string; kind: string }>(c.call('profiles.save', { profile: clusterProfile() }));
    expect(profile.kind).toBe('cluster');
    const { shown, scriptId } = await value<{ shown: string; scriptId: string }>(c.call('clusters.script', { profileId: profile.id }));
    expect(shown.split('\n')[0]).toMatch(/^sbatch --parsable --job-name=gpu-desk .* --time=10 --gres=gpu:1 <<'EOF'$/);
    expect(shown).toContain('geometry=800x600');

    const conn = await value<{ id: string; state: string }>(c.call('connections.open', { profileId: profile.id }));
    expect(conn.state).toBe('ready');
    const defaults = await value<{ partitions: { name: string; gres: string[] }[]; accounts: unknown; accountsWhy: string }>(c.call('clusters.defaults', { connectionId: conn.id }));
    expect(defaults.partitions).toEqual([expect.objectContaining({ name: slurm.partition, gres: ['gpu:1'] })]);
    expect(defaults.accounts).toBeNull();
    expect(defaults.accountsWhy).toMatch(/no accounting database/);

    const blocker = await shell.exec(`sbatch --parsable --gres=gpu:1 --job-name=blocker --output=/dev/null --wrap 'sleep 600'`);
    expect(blocker.code, blocker.stderr).toBe(0);
    // Only a script the window was shown is submitted: a made-up id is refused, and so is a second use.
    expect((await c.call('clusters.submit', { connectionId: conn.id, scriptId: 'made-up-by-the-window' })).error).toMatchObject({ code: 'BAD_ARGUMENT', message: expect.stringContaining('not one this window was shown') });
    const submitted = await value<ClusterJobView>(c.call('clusters.submit', { connectionId: conn.id, scriptId }));
    const jobId = submitted.jobId;
    expect((await c.call('clusters.submit', { connectionId: conn.id, scriptId })).error?.code).toBe('BAD_ARGUMENT');
    // Recorded on this machine, so the next start offers it without asking the cluster.
    const remembered = await value<{ profileId: string; jobId: string; submittedAt: number; timeLimitSec: number | null }[]>(c.call('clusters.remembered', {}));
    expect(remembered.find((r) => r.jobId === jobId)).toMatchObject({ profileId: profile.id, timeLimitSec: 600 });
    const pending = await jobEvent(jobId, (j) => j.phase === 'pending' && j.reason === 'Resources');
    expect(pending).toMatchObject({ node: null, timeLimitSec: 600, desktopUp: false });

    await shell.exec(`scancel ${blocker.stdout.trim()}`);
    const up = await jobEvent(jobId, (j) => j.phase === 'running' && j.desktopUp);
    expect(up.node).toBe(slurm.nodeName);
    expect(up.timeLeftSec).toBeGreaterThan(0);
    expect(up.timeLeftSec).toBeLessThanOrEqual(600);

    const ticket = await value<ClusterViewerTicket>(c.call('clusters.viewer', { connectionId: conn.id, jobId }));
    expect(ticket).toMatchObject({ jobId, node: slurm.nodeName, route: 'ssh', remoteSocket: `${slurm.login.home}/.gpu-desk/jobs/${slurm.clusterName}/${jobId}/vnc.sock`, flavor: 'turbovnc' });
    expect(ticket.why).toMatch(/SSH to node .* Unix socket/);
    // The viewer's OTP is held (redacted) while the viewer is open.
    expect(redactSecrets(`otp ${ticket.vncPassword}`)).toBe('otp [redacted]');
    const ws = new WebSocket(ticket.url, { origin: harness.origin });
    // Wrapped at once: the session's greeting arrives as soon as the socket opens (the stream was opened with the ticket).
    const rfb = await rfbHandshake(createWebSocketStream(ws), ticket.vncPassword!, { init: true });
    expect(rfb).toMatchObject({ ok: true, width: 800, height: 600 });

    // Video mode on the job's desktop: ffmpeg runs on the compute node, over the node connection the
    // viewer uses; its first access unit is a key frame.
    const video = await value<VideoTicket>(c.call('viewer.videoStart', { viewerId: ticket.viewerId, width: 800, height: 600, fps: 30, bitrateKbps: 2000 }));
    expect(video).toMatchObject({ width: 800, height: 600 });
    const first = await firstAccessUnit(video.url, harness.origin);
    expect(first.flags & VIDEO_FRAME.keyFlag).toBe(VIDEO_FRAME.keyFlag);
    expect((await c.call('viewer.videoStop', { viewerId: ticket.viewerId })).ok).toBe(true);
    ws.close();

    // After a restart the app finds the job by name and offers it.
    const found = await value<ClusterJobView[]>(c.call('clusters.jobs', { connectionId: conn.id }));
    expect(found.map((j) => j.jobId)).toContain(jobId);

    expect((await c.call('clusters.cancel', { connectionId: conn.id, jobId })).ok).toBe(true);
    const ended = await jobEvent(jobId, (j) => j.phase === 'ended');
    expect(ended).toMatchObject({ state: 'CANCELLED', endedWhy: 'cancelled', desktopUp: false });
    expect((await value<{ jobId: string }[]>(c.call('clusters.remembered', {}))).map((r) => r.jobId)).not.toContain(jobId);
    expect(redactSecrets(`otp ${ticket.vncPassword}`)).toBe(`otp ${ticket.vncPassword}`);
    const deadline = Date.now() + 60_000;
    while (fs.existsSync(ticket.remoteSocket!) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(fs.existsSync(ticket.remoteSocket!)).toBe(false);
    await value(c.call('connections.close', { connectionId: conn.id }));
  }, 300_000);

  it('closing the login connection closes the job-node link its viewer opened: nothing of the app left on the node, the job still runs', async () => {
    const profile = await value<{ id: string }>(c.call('profiles.save', { profile: { ...clusterProfile(), name: 'hpc-scope' } }));
    const conn = await value<{ id: string }>(c.call('connections.open', { profileId: profile.id }));
    try {
      const { scriptId } = await value<{ scriptId: string }>(c.call('clusters.script', { profileId: profile.id }));
      const jobId = (await value<ClusterJobView>(c.call('clusters.submit', { connectionId: conn.id, scriptId }))).jobId;
      await jobEvent(jobId, (j) => j.phase === 'running' && j.desktopUp);
      const ticket = await value<ClusterViewerTicket>(c.call('clusters.viewer', { connectionId: conn.id, jobId }));
      expect(ticket.route).toBe('ssh');
      const ws = new WebSocket(ticket.url, { origin: harness.origin });
      const wsClosed = new Promise<void>((r) => ws.once('close', () => r()));
      expect((await rfbHandshake(createWebSocketStream(ws), ticket.vncPassword!, { init: true })).ok).toBe(true);
      await value(c.call('viewer.videoStart', { viewerId: ticket.viewerId, width: 800, height: 600, fps: 10, bitrateKbps: 500 }));
      // The link is an SSH connection to the node's own sshd (through the login node); the encoder runs under it.
      const onNode = () => processesUnderSshd(slurm.node);
      await until(onNode, (ps) => ps.some((a) => a.includes('ffmpeg')), 'the video encoder under the node\'s sshd');

      await value(c.call('connections.close', { connectionId: conn.id }));
      await wsClosed;
      await until(onNode, (ps) => ps.length === 0, 'no connection or process of the app left on the node');
      expect((await c.call('viewer.password', { viewerId: ticket.viewerId })).error?.code).toBe('BAD_ARGUMENT');
      expect((await value<{ id: string }[]>(c.call('connections.list', {}))).some((x) => x.id === conn.id)).toBe(false);
      expect((await value<TunnelView[]>(c.call('tunnels.list', {}))).some((x) => x.connectionId === conn.id)).toBe(false);
      // The job is the cluster's, not the connection's: it still runs after the app's connection is gone.
      expect((await shell.exec(`squeue -h -j ${jobId} -o %T`)).stdout.trim()).toBe('RUNNING');
    } finally {
      await c.call('connections.close', { connectionId: conn.id });
      await slurm.cancelAll();
    }
  }, 300_000);

  it('tunnel-only mode on a cluster profile (the tray): none running → how to start one; one → its desktop; several → named', async () => {
    const profile = await value<{ id: string }>(c.call('profiles.save', { profile: { ...clusterProfile(), name: 'hpc-tray' } }));
    const none = await c.call('tunnels.openSaved', { profileId: profile.id });
    expect(none.error, JSON.stringify(none)).toMatchObject({ code: 'NO_RUNNING_JOB', message: 'No desktop job is running on hpc-tray', fix: 'start one from the app or `gpu-desk jobs hpc-tray start`' });
    const conn = (await value<{ id: string; profileId: string }[]>(c.call('connections.list', {}))).find((x) => x.profileId === profile.id)!;

    const { scriptId } = await value<{ scriptId: string }>(c.call('clusters.script', { profileId: profile.id }));
    const jobId = (await value<ClusterJobView>(c.call('clusters.submit', { connectionId: conn.id, scriptId }))).jobId;
    await jobEvent(jobId, (j) => j.phase === 'running' && j.desktopUp);
    const t = await value<SavedTunnelView>(c.call('tunnels.openSaved', { profileId: profile.id }));
    expect(t).toMatchObject({ connectionId: conn.id, localHost: '127.0.0.1', job: { jobId, node: slurm.nodeName, route: 'ssh' }, remoteSocket: `${slurm.login.home}/.gpu-desk/jobs/${slurm.clusterName}/${jobId}/vnc.sock` });
    // Any VNC client on the loopback port reaches the job's desktop with the one-time password.
    const s1 = net.connect(t.localPort, '127.0.0.1');
    const rfb = await rfbHandshake(s1, t.oneTimePassword!, { init: true });
    s1.destroy();
    expect(rfb).toMatchObject({ ok: true, width: 800, height: 600 });
    expect(redactSecrets(`otp ${t.oneTimePassword}`)).toBe('otp [redacted]');
    expect((await value<TunnelView[]>(c.call('tunnels.list', {}))).find((x) => x.id === t.id)?.job?.jobId).toBe(jobId);

    // A second desktop job running (no GPU asked, so the one node runs both): the choice is the user's.
    const other = await shell.exec(`sbatch --parsable --job-name=gpu-desk --output=/dev/null --wrap 'sleep 600'`);
    expect(other.code, other.stderr).toBe(0);
    const otherId = other.stdout.trim();
    const deadline = Date.now() + 120_000;
    while ((await shell.exec(`squeue -h -j ${otherId} -o %T`)).stdout.trim() !== 'RUNNING') {
      expect(Date.now(), `job ${otherId} never ran`).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 250));
    }
    const several = await c.call('tunnels.openSaved', { profileId: profile.id });
    expect(several.error?.code, JSON.stringify(several)).toBe('SEVERAL_JOBS');
    expect(several.error?.message).toMatch(new RegExp(`^2 desktop jobs are running on hpc-tray: .*${jobId} on ${slurm.nodeName} \\(.* left\\)`));
    expect(several.error?.message).toContain(`${otherId} on ${slurm.nodeName}`);
    expect(several.error?.fix).toMatch(/gpu-desk tunnel hpc-tray --job \d+/);
    // Asked for by id: the tunnel already open, with a fresh one-time password.
    const again = await value<SavedTunnelView>(c.call('tunnels.openSaved', { profileId: profile.id, jobId }));
    expect(again.id).toBe(t.id);
    expect(again.oneTimePassword).not.toBe(t.oneTimePassword);
    const s2 = net.connect(t.localPort, '127.0.0.1');
    expect((await rfbHandshake(s2, again.oneTimePassword!)).ok).toBe(true);
    s2.destroy();

    expect((await c.call('tunnels.close', { tunnelId: t.id })).ok).toBe(true);
    expect((await value<TunnelView[]>(c.call('tunnels.list', {}))).some((x) => x.id === t.id)).toBe(false);
    await shell.exec(`scancel ${otherId}`);
    await value(c.call('clusters.cancel', { connectionId: conn.id, jobId }));
    await value(c.call('connections.close', { connectionId: conn.id }));
  }, 300_000);

  it('a partition that does not exist: sbatch\'s reason in one line, from submit', async () => {
    const list = await value<{ id: string; name: string }[]>(c.call('profiles.list', {}));
    const id = list.find((p) => p.name === 'hpc')!.id;
    await value(c.call('profiles.save', { profile: { ...clusterProfile({ partition: 'nope' }), id } }));
    const conn = await value<{ id: string }>(c.call('connections.open', { profileId: id }));
    const { scriptId } = await value<{ scriptId: string }>(c.call('clusters.script', { profileId: id }));
    const r = await c.call('clusters.submit', { connectionId: conn.id, scriptId });
    expect(r.error, JSON.stringify(r)).toMatchObject({ code: 'SLURM_FAILED', message: 'Slurm refused the job: invalid partition specified: nope' });
    expect((await c.call('clusters.viewer', { connectionId: conn.id, jobId: '$(id)' })).error?.code).toBe('IPC_BAD_INPUT');
    await value(c.call('connections.close', { connectionId: conn.id }));
  }, 120_000);
});
