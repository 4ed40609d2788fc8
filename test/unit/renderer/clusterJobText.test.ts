import { describe, expect, it } from 'vitest';
import { endedKey, reasonKey, secondsLeft } from '../../../src/renderer/cluster/jobText';
import { en, zhCN } from '../../../src/renderer/i18n/resources';
import type { ClusterJobView } from '../../../src/shared/models';

const job = (o: Partial<ClusterJobView>): ClusterJobView => ({
  connectionId: 'c1', jobId: '7', phase: 'running', state: 'RUNNING', reason: null, estimatedStart: null, node: 'n1',
  timeLeftSec: 600, timeLimitSec: 600, endedWhy: null, desktopUp: true, warning: null, at: 1_000_000, ...o,
});

describe('cluster job text', () => {
  it('names how a job ended from Slurm\'s state word, with a line in both languages', () => {
    expect(endedKey('TIMEOUT')).toBe('timeLimit');
    expect(endedKey('CANCELLED by 1001')).toBe('cancelled');
    expect(endedKey('CANCELLED+')).toBe('cancelled');
    expect(endedKey('OUT_OF_MEMORY')).toBe('outOfMemory');
    expect(endedKey('NODE_FAIL')).toBe('nodeFail');
    expect(endedKey('COMPLETED')).toBe('completed');
    expect(endedKey('SPECIAL_EXIT')).toBeNull();
    for (const s of ['COMPLETED', 'CANCELLED', 'TIMEOUT', 'NODE_FAIL', 'OUT_OF_MEMORY', 'PREEMPTED', 'BOOT_FAIL', 'DEADLINE', 'FAILED']) {
      const k = endedKey(s)!;
      expect(en.cluster.ended.why[k], s).toBeTruthy();
      expect(zhCN.cluster.ended.why[k], s).toBeTruthy();
    }
  });

  it('explains the common pending reasons and leaves others as Slurm says them', () => {
    expect(reasonKey('Resources')).toBe('Resources');
    expect(reasonKey('ReqNodeNotAvail, UnavailableNodes:gdnode')).toBe('ReqNodeNotAvail');
    expect(reasonKey(null)).toBe('None');
    expect(reasonKey('PriorityXYZ')).toBeNull();
    expect(reasonKey('Licenses')).toBeNull();
  });

  it('counts the time left down from Slurm\'s last figure, never below zero, only while running', () => {
    expect(secondsLeft(job({}), 1_000_000)).toBe(600);
    expect(secondsLeft(job({}), 1_002_500)).toBe(598);
    expect(secondsLeft(job({}), 1_000_000 + 3_600_000)).toBe(0);
    // A status stamped a moment after this clock's "now" does not add time.
    expect(secondsLeft(job({}), 999_000)).toBe(600);
    expect(secondsLeft(job({ phase: 'pending', timeLeftSec: null }), 1_000_000)).toBeNull();
    expect(secondsLeft(job({ phase: 'ended', state: 'TIMEOUT' }), 1_000_000)).toBeNull();
    expect(secondsLeft(undefined, 1_000_000)).toBeNull();
  });
});
