import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildJob } from '../../../src/core/cluster/jobScript';
import { exportProfiles, importProfiles } from '../../../src/core/profiles/exchange';
import { ProfileStore } from '../../../src/core/profiles/profileStore';

/**
 * Issue 34, medium 4: sbatch options from a profiles file can run code in every job process
 * (--export=ALL,BASH_ENV=…, LD_PRELOAD=…), and `gpu-desk jobs NAME start` submits without review.
 */
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-impjob-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
const mk = (n: string) => new ProfileStore({ file: path.join(dir, n, 'profiles.json'), notice: () => {} });

describe('imported cluster profiles and sbatch options that run code (issue 34 medium 4)', () => {
  it('import drops job.extraSbatch with a warning, as it drops preamble; the rest of the job arrives', async () => {
    const a = mk('a');
    await a.add({ name: 'hpc', host: 'login', kind: 'cluster', job: { partition: 'gpu', extraSbatch: ['--reservation=demo', '--exclusive'], preamble: ['module load cuda'] } });
    // A hand-written file can carry what buildJob refuses anyway, and what it takes.
    const doc = await exportProfiles(a);
    const b = mk('b');
    const r = await importProfiles(b, JSON.stringify(doc));
    expect(r.added.map((p) => p.name)).toEqual(['hpc']);
    const got = await b.get('hpc');
    expect(got).toMatchObject({ kind: 'cluster', job: { partition: 'gpu', extraSbatch: [], preamble: [] } });
    expect(r.warnings).toContainEqual(expect.stringMatching(/^hpc: its 2 extra sbatch option\(s\) were not imported .*never taken from a file/));
  });

  it('--export, --export-file and --get-user-env are refused as extra sbatch options, each saying why', () => {
    for (const e of ['--export=ALL,BASH_ENV=/scratch/shared/x', '--export=LD_PRELOAD=/tmp/x.so', '--export', '--export-file=/scratch/env', '--get-user-env', '--get-user-env=10L']) {
      expect(() => buildJob({ extraSbatch: [e] }), e).toThrow(/would set the job's environment \(BASH_ENV, LD_PRELOAD/);
    }
  });
});
