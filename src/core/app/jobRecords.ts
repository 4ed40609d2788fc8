import fs from 'node:fs';
import path from 'node:path';
import { ensureDir } from '../profiles/appPaths';
import { writeFileAtomic } from '../profiles/atomicFile';
import type { RememberedJob } from '../../shared/models';

/**
 * The desktop jobs this app submitted, so that at start it can say which may still run without
 * signing in to every cluster to ask. Only ids and times: nothing here is a secret. A record goes
 * when the job is seen ended (or missing from Slurm's list of the user's jobs), or once its time
 * limit has passed since it was submitted (it cannot have run longer than that after starting at once;
 * a job that waited in the queue may outlive its record, and is still found when its cluster's page opens).
 */
export class JobRecords {
  constructor(private readonly file: string, private readonly now: () => number = Date.now) {}

  /** The records still worth offering (expired ones are dropped from the file too). */
  list(): RememberedJob[] {
    const all = this.read();
    const live = all.filter((r) => r.timeLimitSec === null || r.submittedAt + r.timeLimitSec * 1000 > this.now());
    if (live.length !== all.length) this.write(live);
    return live;
  }

  add(r: RememberedJob): void {
    this.write([...this.read().filter((x) => !same(x, r)), r]);
  }

  remove(profileId: string, jobId: string): void {
    const all = this.read();
    const kept = all.filter((x) => !same(x, { profileId, jobId }));
    if (kept.length !== all.length) this.write(kept);
  }

  /** Slurm listed this cluster's queued and running desktop jobs: a record of another job has ended. */
  keepOnly(profileId: string, jobIds: readonly string[]): void {
    const all = this.read();
    const kept = all.filter((x) => x.profileId !== profileId || jobIds.includes(x.jobId));
    if (kept.length !== all.length) this.write(kept);
  }

  /** A profile removed: its jobs are no longer the app's to offer. */
  forgetProfile(profileId: string): void {
    this.keepOnly(profileId, []);
  }

  private read(): RememberedJob[] {
    let raw: unknown;
    try {
      raw = JSON.parse(fs.readFileSync(this.file, 'utf8'));
    } catch {
      // Missing or hand-broken: nothing to offer, which is what a first start shows anyway.
      return [];
    }
    const jobs = (raw as { jobs?: unknown })?.jobs;
    return Array.isArray(jobs) ? jobs.filter(isRecord) : [];
  }

  private write(jobs: RememberedJob[]): void {
    ensureDir(path.dirname(this.file));
    writeFileAtomic(this.file, `${JSON.stringify({ version: 1, jobs }, null, 2)}\n`, { mode: 0o600 });
  }
}

function same(a: Pick<RememberedJob, 'profileId' | 'jobId'>, b: Pick<RememberedJob, 'profileId' | 'jobId'>): boolean {
  return a.profileId === b.profileId && a.jobId === b.jobId;
}

function isRecord(x: unknown): x is RememberedJob {
  const r = x as RememberedJob;
  return !!r && typeof r.profileId === 'string' && typeof r.jobId === 'string' && /^\d{1,12}$/.test(r.jobId)
    && typeof r.submittedAt === 'number' && (r.timeLimitSec === null || typeof r.timeLimitSec === 'number');
}
