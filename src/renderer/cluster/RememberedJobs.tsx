import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Profile, RememberedJob } from '../../shared/models';
import { useApi } from '../app/api';

/**
 * At start, the desktop jobs this app submitted that may still run, from its own record: no cluster
 * is signed in to until the person opens one, whose page then asks Slurm and offers Reconnect.
 */
export function RememberedJobs({ profiles, onOpen }: { profiles: Profile[]; onOpen(p: Profile): void }) {
  const api = useApi();
  const { t } = useTranslation('cluster');
  const [jobs, setJobs] = useState<RememberedJob[]>([]);
  useEffect(() => {
    let gone = false;
    // The record is a convenience: when it cannot be read, the servers screen simply offers nothing.
    api.invoke('clusters.remembered', {}).then((j) => { if (!gone) setJobs(j); }, () => {});
    return () => { gone = true; };
  }, [api]);
  const shown = jobs.flatMap((j) => {
    const p = profiles.find((x) => x.id === j.profileId);
    return p ? [{ j, p }] : [];
  });
  if (!shown.length) return null;
  return (
    <ul className="remembered-jobs" aria-label={t('remembered.title')}>
      {shown.map(({ j, p }) => (
        <li key={`${p.id}/${j.jobId}`} className="banner" role="status" data-testid={`remembered-job-${j.jobId}`}>
          {t('remembered.line', { jobId: j.jobId, cluster: p.name })}{' '}
          <button onClick={() => onOpen(p)} data-testid="remembered-open">{t('remembered.open')}</button>
        </li>
      ))}
    </ul>
  );
}
