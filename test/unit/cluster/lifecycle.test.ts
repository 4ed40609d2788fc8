import { describe, expect, it } from 'vitest';
import { describeStatus, formatTimeLeft, warningDue } from '../../../src/core/cluster/lifecycle';
import type { JobStatus } from '../../../src/core/cluster/types';

describe('time-limit warnings', () => {
  it('10 minutes, then 1 minute, each once; none without a limit or after it', () => {
    const warned = new Set<number>();
    expect(warningDue(3600, warned)).toBeNull();
    expect(warningDue(601, warned)).toBeNull();
    expect(warningDue(600, warned)).toBe(600);
    warned.add(600);
    expect(warningDue(300, warned)).toBeNull();
    expect(warningDue(60, warned)).toBe(60);
    warned.add(60);
    expect(warningDue(30, warned)).toBeNull();
    expect(warningDue(null, new Set())).toBeNull();
    expect(warningDue(0, new Set())).toBeNull();
  });
  it('first seen with 40 s left: the nearest threshold only', () => {
    expect(warningDue(40, new Set())).toBe(60);
  });
});

describe('what the viewer says', () => {
  const base: JobStatus = { jobId: '7', name: 'gpu-desk', phase: 'pending', state: 'PENDING', reason: 'Resources', estimatedStart: null, node: null, timeLeftSec: null, timeLimitSec: 3600, endedWhy: null, source: 'squeue' };
  it.each([
    [{}, 'Job 7 is pending (Resources); no estimated start yet'],
    [{ reason: 'Priority', estimatedStart: '2026-12-01T19:30:00' }, 'Job 7 is pending (Priority); Slurm estimates it starts at 2026-12-01T19:30:00'],
    [{ phase: 'running', state: 'RUNNING', node: 'gpu07', timeLeftSec: 3599 }, 'Job 7 is running on gpu07; time left: 59 min 59 s'],
    [{ phase: 'ended', state: 'TIMEOUT', endedWhy: 'time limit' }, 'Job 7 ended: time limit'],
  ] as const)('%j', (patch, line) => expect(describeStatus({ ...base, ...patch } as JobStatus)).toBe(line));
  it.each([[7384, '2 h 03 min'], [599, '9 min 59 s'], [42, '42 s'], [null, 'no time limit']])('%s s → %s', (s, t) => expect(formatTimeLeft(s)).toBe(t));
});
