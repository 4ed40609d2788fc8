import { useTranslation } from 'react-i18next';
import type { ClusterJobView } from '../../shared/models';
import { useFormat } from '../i18n/useFormat';
import { useEndedLine, useReasonText, useTimeLeft } from './jobText';

/**
 * What a desktop job is doing, in one place for the cluster page and the viewer: pending with its
 * reason and Slurm's estimated start, running with its node and the time left (ticking), the
 * time-limit warnings, ended with why.
 */
export function JobStatus({ job, compact = false }: { job: ClusterJobView; compact?: boolean }) {
  const { t } = useTranslation('cluster');
  const fmt = useFormat();
  const endedLine = useEndedLine();
  const reasonText = useReasonText();
  const left = useTimeLeft(job);
  // Slurm prints N/A (or nothing) until its backfill pass has placed the job.
  const start = job.estimatedStart && !/^(N\/A|Unknown|None)$/i.test(job.estimatedStart) ? job.estimatedStart.replace('T', ' ') : null;
  return (
    <div className={`job-status${compact ? ' compact' : ''}`} data-testid="job-status" data-job={job.jobId} data-phase={job.phase} data-state={job.state}>
      <span className={`job-phase phase-${job.phase}`} data-testid="job-phase">{t(`phase.${job.phase}`)}</span>
      {job.phase === 'pending' && (
        <>
          <span data-testid="job-reason">{t('pending.reason', { reason: reasonText(job.reason) })}</span>
          <span data-testid="job-start">{start ? t('pending.start', { start }) : t('pending.noStart')}</span>
        </>
      )}
      {job.phase === 'running' && (
        <>
          {job.node && <span data-testid="job-node">{t('running.node', { node: job.node })}</span>}
          {left !== null && <span data-testid="job-time-left" data-seconds={left}>{t('running.timeLeft', { left: fmt.duration(left * 1000) })}</span>}
          <span data-testid="job-desktop" data-up={job.desktopUp}>{job.desktopUp ? t('running.desktopUp') : t('running.desktopStarting')}</span>
        </>
      )}
      {job.phase === 'ended' && <span data-testid="job-ended-why">{endedLine(job)}</span>}
      {job.phase === 'running' && job.warning !== null && (
        <p className="banner warn" role="alert" data-testid="job-warning" data-threshold={job.warning}>
          {job.warning <= 60 ? t('warning.oneMinute') : t('warning.tenMinutes')}
        </p>
      )}
    </div>
  );
}
