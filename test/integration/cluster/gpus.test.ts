/**
 * Which machine answers for a Slurm job's GPU figures: the job's compute node (through the node
 * connection its viewer streams over, or as a step of the job itself), never the login node. The
 * real one-node Slurm of the bed, the app through the harness IPC socket, and the nvidia-smi SHIM (no
 * GPU exists here) in its cluster form: on the login node it says "No devices were found", as there;
 * the GPUs show on the node and in the job's steps. Figures asked of the login node would be none.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../../src/harness/server';
import { GPU_FIGURES_QUERIES, gpuFiguresQueryArg, parseGpuFiguresCsv } from '../../../src/core/remote/gpuFigures';
import type { ProfileInput } from '../../../src/shared/contract';
import type { ClusterJobView, ClusterViewerTicket, GpuSample, ViewerGpuSample } from '../../../src/shared/models';
import { allocatedGpuIndex, cleanupAll, makeTempDir, startSlurm, type SlurmBed } from '../../bed';
import { openIpc, type Client } from '../../helpers/ipcClient';

const SHIM = path.resolve(__dirname, '../../shims/bin/nvidia-smi');

let slurm: SlurmBed;
let harness: Harness;
let c: Client;

beforeAll(async () => {
  slurm = await startSlurm({
    env: { PATH: `${path.dirname(SHIM)}:/usr/local/bin:/usr/bin:/bin`, GPU_DESK_SHIM_GPUS_ON_NODES_ONLY: '1' },
    nodeEnv: { GPU_DESK_SHIM_ON_NODE: '1' },
  });
  process.env.GPU_DESK_HOME = makeTempDir('gd-cluster-gpus-');
  harness = await startHarness({ build: false, log: () => {}, deps: { sshConfigPath: slurm.sshConfigPath, userKnownHostsFiles: [slurm.knownHostsPath] } });
  c = await openIpc(harness.url.replace('http://', 'ws://').replace('/#token=', '/ipc?token='), harness.origin);
}, 120_000);
afterAll(async () => {
  c?.close();
  await harness?.close();
  await cleanupAll();
});

function clusterProfile(name: string, nodeAccess: 'ssh' | 'login-forward'): ProfileInput {
  return {
    name, kind: 'cluster', host: '127.0.0.1', port: slurm.login.port, user: slurm.login.user, jumpHosts: [],
    auth: { kind: 'key-file', path: slurm.login.userKeyPath }, display: { geometry: '800x600' },
    viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'fit', adaptive: false }, forwards: [],
    job: { gres: 'gpu:1', time: '10', extraSbatch: [], preamble: [], nodeAccess },
  };
}

/** What the shim prints on the node for the HUD's query, run as the HUD runs it. */
function shimOnNode() {
  const fields = GPU_FIGURES_QUERIES[0];
  const out = execFileSync(SHIM, [gpuFiguresQueryArg(fields), '--format=csv,noheader,nounits'], { encoding: 'utf8', env: { ...process.env, GPU_DESK_SHIM_ON_NODE: '1' } });
  const gpus = parseGpuFiguresCsv(out, fields);
  expect(gpus.length).toBeGreaterThan(0);
  // The HUD's view of each GPU: the one parser also reads the report's PCI bus id, which the HUD's
  // query does not ask for and its view does not carry.
  return gpus.map(({ pciBusId: _bus, ...view }) => view);
}

async function value<T>(p: Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string } }>): Promise<T> {
  const r = await p;
  if (!r.ok) throw new Error(`${r.error?.code}: ${r.error?.message}`);
  return r.value as T;
}

async function jobEvent(jobId: string, want: (j: ClusterJobView) => boolean): Promise<ClusterJobView> {
  for (;;) {
    const j = (await c.nextEvent('clusters.job')) as unknown as ClusterJobView;
    if (j.jobId === jobId && want(j)) return j;
  }
}

/** A running job's viewer ticket, for a cluster profile with this node access. */
async function runningJob(name: string, nodeAccess: 'ssh' | 'login-forward'): Promise<{ connId: string; jobId: string; ticket: ClusterViewerTicket }> {
  const profile = await value<{ id: string }>(c.call('profiles.save', { profile: clusterProfile(name, nodeAccess) }));
  const conn = await value<{ id: string }>(c.call('connections.open', { profileId: profile.id }));
  const { scriptId } = await value<{ scriptId: string }>(c.call('clusters.script', { profileId: profile.id }));
  const jobId = (await value<ClusterJobView>(c.call('clusters.submit', { connectionId: conn.id, scriptId }))).jobId;
  await jobEvent(jobId, (j) => j.phase === 'running' && j.desktopUp);
  const ticket = await value<ClusterViewerTicket>(c.call('clusters.viewer', { connectionId: conn.id, jobId }));
  return { connId: conn.id, jobId, ticket };
}

/** The environment of the job's X server (its desktop's programs inherit it), read from /proc on the one node. */
function xServerEnv(jobId: string): Record<string, string> {
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let exe = '';
    let env = '';
    try { exe = fs.readlinkSync(`/proc/${pid}/exe`); env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8'); } catch { continue; }
    if (!/\/TurboVNC\/bin\/Xvnc$/.test(exe)) continue;
    const kv = Object.fromEntries(env.split('\0').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    // Job ids start again in every test bed's Slurm, and other test files' beds run at the same time:
    // the cluster's name tells this bed's job from another's job of the same id.
    if (kv.SLURM_JOB_ID === jobId && kv.SLURM_CLUSTER_NAME === slurm.clusterName) return kv;
  }
  throw new Error(`no Xvnc of job ${jobId} on the node`);
}

async function end(connId: string, jobId: string): Promise<void> {
  await value(c.call('clusters.cancel', { connectionId: connId, jobId }));
  await jobEvent(jobId, (j) => j.phase === 'ended');
  await value(c.call('connections.close', { connectionId: connId }));
}

describe('GPU figures of a Slurm job\'s desktop (real Slurm, nvidia-smi shim on the node only)', () => {
  it('the HUD\'s figures come from the job\'s node (ssh access), as the shim prints them; the login node has none', async () => {
    const { connId, jobId, ticket } = await runningJob('hpc-gpus', 'ssh');
    // The job ends whatever the outcome: the one node's one GPU is the next test's.
    try {
      expect(ticket).toMatchObject({ route: 'ssh', node: slurm.nodeName });
      const printed = shimOnNode();

      const s = await value<ViewerGpuSample>(c.call('viewer.gpus', { viewerId: ticket.viewerId }));
      expect(s).toMatchObject({ available: true, why: null });
      expect(s.gpus).toEqual(printed);

      // The desktop renders on the GPU Slurm allocated (scontrol's IDX, CUDA_VISIBLE_DEVICES in the
      // job), and the HUD is told which: the shim's GPU of that index, by UUID.
      const idx = allocatedGpuIndex(slurm.admin('scontrol', ['show', 'job', '-d', jobId]));
      expect(idx, 'scontrol show job -d names the allocated GPU').toBeDefined();
      const allocated = printed.find((g) => g.index === Number(idx))!;
      expect(s.renderGpu).toBe(allocated.index);
      const env = xServerEnv(jobId);
      expect(env.CUDA_VISIBLE_DEVICES).toBe(idx);
      expect(env.GPU_DESK_GPU).toBe(idx);
      // The fixture's PCI bus of that GPU, as Mesa's device-select reads DRI_PRIME.
      const bus = fs.readFileSync(path.resolve(__dirname, '../../fixtures/remote/nvidia-smi-query-2gpu.csv'), 'utf8').split('\n')[Number(idx)].split(', ')[7];
      expect(env.DRI_PRIME).toBe(`pci-${bus.slice(4).toLowerCase().replace(/[:.]/g, '_')}`);
      // The login connection's own answer: no nvidia-smi there. Had the viewer's figures come from it, they would be this.
      const login = await value<GpuSample>(c.call('server.gpus', { connectionId: connId }));
      expect(login.gpus).toEqual([]);

      // The viewer closed: its node connection went with it, and nothing is asked in its name.
      expect((await c.call('viewer.close', { viewerId: ticket.viewerId })).ok).toBe(true);
      expect((await c.call('viewer.gpus', { viewerId: ticket.viewerId })).error?.code).toBe('BAD_ARGUMENT');
    } finally {
      await end(connId, jobId);
    }
  }, 300_000);

  it('a job reached by a login-node forward (no SSH to its node): asked as a step of the job (srun --overlap), never the login node', async () => {
    const { connId, jobId, ticket } = await runningJob('hpc-gpus-fwd', 'login-forward');
    try {
      expect(ticket.route).toBe('login-forward');
      const s = await value<ViewerGpuSample>(c.call('viewer.gpus', { viewerId: ticket.viewerId }));
      expect(s).toMatchObject({ available: true, why: null });
      expect(s.gpus).toEqual(shimOnNode());
      // The job step's figures name the allocated GPU too (matched by UUID, however the step numbers them).
      expect(s.renderGpu).toBe(Number(xServerEnv(jobId).GPU_DESK_GPU));
      expect((await value<GpuSample>(c.call('server.gpus', { connectionId: connId }))).gpus).toEqual([]);
      await value(c.call('viewer.close', { viewerId: ticket.viewerId }));
    } finally {
      await end(connId, jobId);
    }
  }, 300_000);
});
