import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JobRecords } from '../../../src/core/app/jobRecords';
import { cleanupAll, makeTempDir } from '../../bed';

afterAll(cleanupAll);

describe('JobRecords (desktop-jobs.json: the jobs offered again at start)', () => {
  it('keeps what was submitted, drops a job once seen ended, missing from Slurm\'s list, or past its time limit', () => {
    let now = 1_000_000;
    const file = path.join(makeTempDir('gd-jobrec-'), 'data', 'desktop-jobs.json');
    const r = new JobRecords(file, () => now);
    expect(r.list()).toEqual([]);
    r.add({ profileId: 'p1', jobId: '11', submittedAt: now, timeLimitSec: 600 });
    r.add({ profileId: 'p1', jobId: '12', submittedAt: now, timeLimitSec: null });
    r.add({ profileId: 'p2', jobId: '11', submittedAt: now, timeLimitSec: 60 });
    // A second app (or a restart) reads the same file.
    expect(new JobRecords(file, () => now).list().map((x) => `${x.profileId}/${x.jobId}`)).toEqual(['p1/11', 'p1/12', 'p2/11']);
    expect((fs.statSync(file).mode & 0o777).toString(8)).toBe('600');
    expect(fs.readFileSync(file, 'utf8')).not.toMatch(/password|otp/i);

    r.remove('p1', '12');
    expect(r.list().map((x) => `${x.profileId}/${x.jobId}`)).toEqual(['p1/11', 'p2/11']);
    // The same job id on another cluster is another job.
    r.keepOnly('p2', []);
    expect(r.list().map((x) => `${x.profileId}/${x.jobId}`)).toEqual(['p1/11']);

    r.add({ profileId: 'p1', jobId: '13', submittedAt: now, timeLimitSec: null });
    now += 600_000;
    expect(r.list().map((x) => x.jobId)).toEqual(['13']);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).jobs.map((x: { jobId: string }) => x.jobId)).toEqual(['13']);
    r.forgetProfile('p1');
    expect(r.list()).toEqual([]);
  });

  it('a broken or foreign file offers nothing and is replaced on the next record', () => {
    const file = path.join(makeTempDir('gd-jobrec-'), 'desktop-jobs.json');
    fs.writeFileSync(file, '{ not json');
    const r = new JobRecords(file);
    expect(r.list()).toEqual([]);
    fs.writeFileSync(file, JSON.stringify({ jobs: [{ profileId: 'p', jobId: '$(id)', submittedAt: 1, timeLimitSec: null }, { profileId: 'p', jobId: '7', submittedAt: 1, timeLimitSec: null }] }));
    expect(r.list().map((x) => x.jobId)).toEqual(['7']);
    r.add({ profileId: 'p', jobId: '8', submittedAt: 2, timeLimitSec: 5 });
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ version: 1, jobs: [{ jobId: '7' }, { jobId: '8' }] });
  });
});
