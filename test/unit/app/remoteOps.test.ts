import { afterEach, describe, expect, it } from 'vitest';
import { remoteOps } from '../../../src/core/app/remoteOps';
import { queryGpus } from '../../../src/core/remote/gpuFigures';
import type { SshSession } from '../../../src/core/ssh/types';

/** A server that records what it is asked and answers nvidia-smi with one GPU. */
function fakeServer(): { s: SshSession; commands: string[] } {
  const commands: string[] = [];
  const s = {
    exec: async (cmd: string) => {
      commands.push(cmd);
      return { code: 0, stdout: cmd.includes('nvidia-smi') ? '0, NVIDIA A100-SXM4-40GB, GPU-1234, 40960, 1024, 37, 535.104.12, 00000000:3B:00.0\n' : '', stderr: '' };
    },
  } as unknown as SshSession;
  return { s, commands };
}

afterEach(() => {
  delete process.env.GPU_DESK_REMOTE_OPT_ROOT;
});

describe("the app's remote seam is the CLI's remote core", () => {
  it("the GPU cards' query is the CLI's queryGpus (the probe's fields, so the PCI bus id comes through)", async () => {
    const app = fakeServer();
    const probe = fakeServer();
    const gpus = await remoteOps().gpus(app.s);
    await queryGpus(probe.s);
    expect(app.commands).toEqual(probe.commands);
    expect(gpus).toHaveLength(1);
    expect(gpus[0].pciBusId).toBe('00000000:3B:00.0');
  });

  it('honours the remote opt root the CLI honours (GPU_DESK_REMOTE_OPT_ROOT)', async () => {
    process.env.GPU_DESK_REMOTE_OPT_ROOT = '/srv/gd-opt';
    const { s, commands } = fakeServer();
    await remoteOps().listSessions(s).catch(() => []);
    expect(commands.join('\n')).toContain('/srv/gd-opt');
  });
});
