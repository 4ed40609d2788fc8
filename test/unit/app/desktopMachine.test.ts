import { describe, expect, it } from 'vitest';
import { desktopMachine, gpuSource } from '../../../src/core/app/gpuSource';
import type { SshSession } from '../../../src/core/ssh/types';

const login = { name: 'login' } as unknown as SshSession;
const node = { name: 'node' } as unknown as SshSession;
const deps = (jobNode: SshSession | null | undefined) => ({ connection: () => login, jobNode: () => jobNode });

describe('desktopMachine: which machine runs a desktop', () => {
  it("a server's desktop runs on the server; a job's on its node, never the login node", () => {
    expect(desktopMachine({ connectionId: 'c1' }, deps(undefined))).toEqual({ kind: 'server', session: login, machine: 'c1' });
    expect(desktopMachine({ connectionId: 'c1', jobId: '7' }, deps(node))).toEqual({ kind: 'node', session: node, machine: 'job:7', jobId: '7' });
    // Reached by the login node's forward: no shell on the node (a job step can still run there).
    expect(desktopMachine({ connectionId: 'c1', jobId: '7' }, deps(null))).toEqual({ kind: 'job-forward', session: null, machine: 'job:7', jobId: '7', login });
    expect(desktopMachine({ connectionId: 'c1', jobId: '7' }, deps(undefined))).toEqual({ kind: 'no-link', session: null, machine: 'job:7', jobId: '7' });
  });

  it("GPU figures follow it: a login-node forward's job is asked through srun inside the job", () => {
    expect(gpuSource({ connectionId: 'c1', jobId: '7' }, deps(null))).toEqual({ session: login, machine: 'job:7', inJob: '7' });
    expect(gpuSource({ connectionId: 'c1', jobId: '7' }, deps(undefined))).toEqual({ session: null, machine: 'job:7', why: 'no-link' });
    expect(gpuSource({ connectionId: 'c1' }, deps(undefined))).toEqual({ session: login, machine: 'c1' });
  });
});
