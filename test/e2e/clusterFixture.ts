import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { makeTempDir, startSlurm, type SlurmBed } from '../bed';
import { startHarness, type Harness } from '../../src/harness/server';
import type { MethodInput, MethodName, MethodOutput } from '../../src/shared/contract';

/** Where the cluster bed's nvidia-smi shim lies (on both hosts' PATH; it answers with GPUs on the node only). */
export const CLUSTER_SHIM_DIR = path.resolve(__dirname, '../shims/bin');

/** The app as a cluster user runs it: its own data directory, a user's ~/.ssh that knows the cluster. */
export interface ClusterApp {
  harness: Harness;
  open(page: Page): Promise<void>;
  invoke<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodOutput<M>>;
}

export interface ClusterBed {
  slurm: SlurmBed;
  /** The app's data directory (kept across restart()). */
  home: string;
  app: ClusterApp;
  /** Shuts the app's core down and starts a fresh one on the same data directory (an app restart). */
  restart(): Promise<ClusterApp>;
  /** A command on the login node as the cluster user (a job of the user's own, squeue, scontrol…). */
  asUser(cmd: string, args: string[]): Promise<string>;
  stop(): Promise<void>;
}

/**
 * For cluster.spec: the real one-node Slurm (login sshd, node sshd, slurmctld, slurmd, munge) and
 * the harness pointed at it as a user's ~/.ssh/config and known_hosts would point it (the node reached
 * by its Slurm name through the login node). One per spec file; stop() always runs in its afterAll.
 */
export async function startClusterBed(): Promise<ClusterBed> {
  // The nvidia-smi SHIM in its cluster form (test/shims/README.md): no GPU on the login node, GPUs on
  // the node and in the job's steps, so the viewer's HUD shows figures only when it asks the node.
  const slurm = await startSlurm({
    env: { PATH: `${CLUSTER_SHIM_DIR}:/usr/local/bin:/usr/bin:/bin`, GPU_DESK_SHIM_GPUS_ON_NODES_ONLY: '1' },
    nodeEnv: { GPU_DESK_SHIM_ON_NODE: '1' },
  });
  const home = makeTempDir('gd-e2e-cluster-');
  const logs: string[] = [];
  const start = async (): Promise<ClusterApp> => {
    // The data directory is read when the core is made: the worker's own is put back straight after.
    const before = process.env.GPU_DESK_HOME;
    process.env.GPU_DESK_HOME = home;
    let h: Harness;
    try {
      h = await startHarness({ build: false, log: (l) => logs.push(l), deps: { sshConfigPath: slurm.sshConfigPath, userKnownHostsFiles: [slurm.knownHostsPath] } });
    } finally {
      process.env.GPU_DESK_HOME = before;
    }
    return {
      harness: h,
      open: async (page) => { await page.goto(h.url); },
      invoke: async (method, input) => (h.core.handlers()[method] as (i: unknown) => Promise<never>)(input),
    };
  };
  let first: ClusterApp;
  try {
    first = await start();
  } catch (e) {
    await slurm.stop();
    throw e;
  }
  const bed: ClusterBed = {
    slurm,
    home,
    app: first,
    restart: async () => {
      await bed.app.harness.close();
      bed.app = await start();
      return bed.app;
    },
    asUser: (cmd, args) => new Promise((resolve, reject) => {
      execFile('runuser', ['-u', slurm.login.user, '--', cmd, ...args], { cwd: '/', env: { ...process.env, SLURM_CONF: slurm.confPath } }, (err, stdout, stderr) => {
        if (err) reject(new Error(`${cmd} ${args.join(' ')}: ${stderr.trim() || err.message}`));
        else resolve(stdout);
      });
    }),
    stop: async () => {
      await bed.app.harness.close().catch(() => {});
      await slurm.stop();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
  return bed;
}
