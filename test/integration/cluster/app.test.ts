/**
 * The app's cluster flow through the harness IPC socket (the contract the window uses), against the
 * real one-node Slurm, the bed's sshd as login node, a second sshd as the node's, and real TurboVNC:
 * a cluster profile, the sinfo defaults, the script shown before submit, pending while the node is
 * taken, running with its desktop viewed through the login node, found again by name, cancelled.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { createWebSocketStream } from 'ws';
import { startHarness, type Harness } from '../../../src/harness/server';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { redactSecrets } from '../../../src/core/errors';
import type { ProfileInput } from '../../../src/shared/contract';
import type { ClusterJobView, ClusterViewerTicket } from '../../../src/shared/models';
import { cleanupAll, makeTempDir, startSlurm, type SlurmBed } from '../../bed';
import { openIpc, type Client } from '../../helpers/ipcClient';
import { rfbHandshake } from '../remote/rfb';

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

async function value<T>(p: Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string } }>): Promise<T> {
  const r = await p;
  if (!r.ok) throw new Error(`${r.error?.code}: ${r.error?.message}`);
  return r.value as T;
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
    const { shown } = await value<{ shown: string }>(c.call('clusters.script', { profileId: profile.id }));
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
    const submitted = await value<ClusterJobView>(c.call('clusters.submit', { connectionId: conn.id }));
    const jobId = submitted.jobId;
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
    await new Promise((r, j) => { ws.once('open', r); ws.once('error', j); });
    const rfb = await rfbHandshake(createWebSocketStream(ws), ticket.vncPassword!, { init: true });
    expect(rfb).toMatchObject({ ok: true, width: 800, height: 600 });
    ws.close();

    // After a restart the app finds the job by name and offers it.
    const found = await value<ClusterJobView[]>(c.call('clusters.jobs', { connectionId: conn.id }));
    expect(found.map((j) => j.jobId)).toContain(jobId);

    expect((await c.call('clusters.cancel', { connectionId: conn.id, jobId })).ok).toBe(true);
    const ended = await jobEvent(jobId, (j) => j.phase === 'ended');
    expect(ended).toMatchObject({ state: 'CANCELLED', endedWhy: 'cancelled', desktopUp: false });
    expect(redactSecrets(`otp ${ticket.vncPassword}`)).toBe(`otp ${ticket.vncPassword}`);
    const deadline = Date.now() + 60_000;
    while (fs.existsSync(ticket.remoteSocket!) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
    expect(fs.existsSync(ticket.remoteSocket!)).toBe(false);
    await value(c.call('connections.close', { connectionId: conn.id }));
  }, 300_000);

  it('a partition that does not exist: sbatch\'s reason in one line, from submit', async () => {
    const list = await value<{ id: string; name: string }[]>(c.call('profiles.list', {}));
    const id = list.find((p) => p.name === 'hpc')!.id;
    await value(c.call('profiles.save', { profile: { ...clusterProfile({ partition: 'nope' }), id } }));
    const conn = await value<{ id: string }>(c.call('connections.open', { profileId: id }));
    const r = await c.call('clusters.submit', { connectionId: conn.id });
    expect(r.error, JSON.stringify(r)).toMatchObject({ code: 'SLURM_FAILED', message: 'Slurm refused the job: invalid partition specified: nope' });
    expect((await c.call('clusters.viewer', { connectionId: conn.id, jobId: '$(id)' })).error?.code).toBe('IPC_BAD_INPUT');
    await value(c.call('connections.close', { connectionId: conn.id }));
  }, 120_000);
});
