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

/** "ended: time limit" for an ended job, from Slurm's state word ("CANCELLED by 0" counts as CANCELLED). */
export function useEndedLine(): (j: ClusterJobView) => string {
  const { t } = useTranslation('cluster');
  return useCallback((j: ClusterJobView) => {
    const word = j.state.split(/\s+/)[0].replace(/\+$/, '') as keyof typeof ENDED;
    const why = word in ENDED ? t(`ended.why.${ENDED[word]}`) : (j.endedWhy ?? j.state.toLowerCase());
    return t('ended.line', { why });
  }, [t]);
}

/** Reasons a job waits that people meet most; others are shown as Slurm's word. */
const REASONS = ['Resources', 'Priority', 'ReqNodeNotAvail', 'Dependency', 'QOSMaxJobsPerUserLimit', 'AssocGrpGRES', 'BeginTime', 'JobHeldUser', 'JobHeldAdmin'] as const;

export function useReasonText(): (reason: string | null) => string {
  const { t } = useTranslation('cluster');
  return useCallback((reason: string | null) => {
    if (!reason || reason === 'None') return t('reasons.None');
    const known = REASONS.find((r) => reason.startsWith(r));
    return known ? t(`reasons.${known}`) : reason;
  }, [t]);
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
  if (!j || !running || j.timeLeftSec === null) return null;
  return Math.max(0, j.timeLeftSec - Math.max(0, Math.floor((now - j.at) / 1000)));
}
