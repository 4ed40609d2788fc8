import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ClusterJobView } from '../../shared/models';

/** Slurm's end states the window names in its own words; any other is shown as Slurm's word. */
const ENDED = {
  COMPLETED: 'completed',
  CANCELLED: 'cancelled',
  TIMEOUT: 'timeLimit',
  NODE_FAIL: 'nodeFail',
  OUT_OF_MEMORY: 'outOfMemory',
  PREEMPTED: 'preempted',
  BOOT_FAIL: 'bootFail',
  DEADLINE: 'deadline',
  FAILED: 'failed',
} as const;

export type EndedKey = (typeof ENDED)[keyof typeof ENDED];

/** The catalogue key for how a job ended, from Slurm's state ("CANCELLED by 0" is CANCELLED); null: a state without one. */
export function endedKey(state: string): EndedKey | null {
  const word = state.split(/\s+/)[0].replace(/\+$/, '');
  return word in ENDED ? ENDED[word as keyof typeof ENDED] : null;
}

/** "ended: time limit" for an ended job. */
export function useEndedLine(): (j: ClusterJobView) => string {
  const { t } = useTranslation('cluster');
  return useCallback((j: ClusterJobView) => {
    const key = endedKey(j.state);
    return t('ended.line', { why: key ? t(`ended.why.${key}`) : (j.endedWhy ?? j.state.toLowerCase()) });
  }, [t]);
}

/** Reasons a job waits that people meet most; others are shown as Slurm's word. */
const REASONS = ['Resources', 'Priority', 'ReqNodeNotAvail', 'Dependency', 'QOSMaxJobsPerUserLimit', 'AssocGrpGRES', 'BeginTime', 'JobHeldUser', 'JobHeldAdmin'] as const;

/** The catalogue key for why a job waits; null: a reason shown as Slurm's word. */
export function reasonKey(reason: string | null): (typeof REASONS)[number] | 'None' | null {
  if (!reason || reason === 'None') return 'None';
  // Slurm appends detail to some reasons ("ReqNodeNotAvail, UnavailableNodes:n1").
  return REASONS.find((r) => reason === r || reason.startsWith(`${r},`) || reason.startsWith(`${r} `)) ?? null;
}

export function useReasonText(): (reason: string | null) => string {
  const { t } = useTranslation('cluster');
  return useCallback((reason: string | null) => {
    const key = reasonKey(reason);
    return key ? t(`reasons.${key}`) : reason!;
  }, [t]);
}

/** Seconds left of a running job at `now`: Slurm's last figure less the time since it was given; null unless running. */
export function secondsLeft(j: ClusterJobView | undefined, now: number): number | null {
  if (!j || j.phase !== 'running' || j.timeLeftSec === null) return null;
  return Math.max(0, j.timeLeftSec - Math.max(0, Math.floor((now - j.at) / 1000)));
}

/**
 * Seconds left of a running job, counted down each second from the last status Slurm gave (statuses
 * come every few seconds; between them the clock on this machine moves the figure on).
 */
export function useTimeLeft(j: ClusterJobView | undefined): number | null {
  const [now, setNow] = useState(() => Date.now());
  const running = j?.phase === 'running' && j.timeLeftSec !== null;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [running]);
  return secondsLeft(j, now);
}
