/**
 * The viewer HUD's GPU figures over real SSH (the bed's sshd and account), with the nvidia-smi SHIM
 * for what cannot exist here (test/shims/README.md): a current driver, a driver that refuses
 * utilization.encoder as older ones do, and an account with no nvidia-smi at all.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, startSshd } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { GPU_FIGURES_QUERIES, gpuFiguresQueryArg, parseGpuFiguresCsv, queryGpuFigures } from '../../../src/core/remote/gpuFigures';

const SHIM_DIR = path.resolve(__dirname, '../../shims/bin');
const PATH_WITH_SHIM = `${SHIM_DIR}:/usr/local/bin:/usr/bin:/bin`;
let current: SshConnection;
let old: SshConnection;
let none: SshConnection;

/** What the shim prints for a field list, run here as the HUD runs it there. */
function shimPrints(fields: readonly string[], env: Record<string, string> = {}) {
  const out = execFileSync(path.join(SHIM_DIR, 'nvidia-smi'), [gpuFiguresQueryArg(fields), '--format=csv,noheader,nounits'], { encoding: 'utf8', env: { ...process.env, ...env } });
  return parseGpuFiguresCsv(out, fields);
}

beforeAll(async () => {
  const [a, b, c] = await Promise.all([
    startSshd({ extraConfig: [`SetEnv PATH=${PATH_WITH_SHIM}`] }),
    startSshd({ extraConfig: [`SetEnv PATH=${PATH_WITH_SHIM} GPU_DESK_SHIM_OLD_DRIVER=1`] }),
    startSshd({ extraConfig: ['SetEnv PATH=/usr/local/bin:/usr/bin:/bin'] }),
  ]);
  [current, old, none] = await Promise.all([a, b, c].map((bed) => connectSsh(bedOptions(bed))));
});
afterAll(async () => {
  await Promise.all([current, old, none].map((c) => c?.close()));
  await cleanupAll();
});

describe('HUD GPU figures (nvidia-smi shim over SSH)', () => {
  it('shim, current driver: utilisation, memory, temperature, power and NVENC/NVDEC as nvidia-smi prints them', async () => {
    const a = await queryGpuFigures(current);
    expect(a.available).toBe(true);
    expect(a.gpus).toEqual(shimPrints(GPU_FIGURES_QUERIES[0]));
    expect(a.gpus[1]).toMatchObject({ temperatureC: expect.any(Number), powerDrawW: expect.any(Number), encoderPct: expect.any(Number) });
  });

  it('shim, a driver that refuses utilization.encoder: the other figures still come, encoder and decoder unknown', async () => {
    const a = await queryGpuFigures(old);
    expect(a.available).toBe(true);
    const printed = shimPrints(GPU_FIGURES_QUERIES[1], { GPU_DESK_SHIM_OLD_DRIVER: '1' });
    expect(printed.length).toBeGreaterThan(0);
    expect(a.gpus).toEqual(printed);
    expect(a.gpus.every((g) => g.encoderPct === null && g.decoderPct === null && g.temperatureC !== null)).toBe(true);
    // Asked again (the HUD polls once a second), the refused query is not tried first again: same answer.
    expect((await queryGpuFigures(old)).gpus).toEqual(printed);
  });

  it('no nvidia-smi on the account\'s PATH: no figures, and no error', async () => {
    expect(await queryGpuFigures(none)).toEqual({ available: false, gpus: [] });
  });
});
