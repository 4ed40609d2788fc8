import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ClusterJobView, ConnectionView, Profile } from '../../shared/models';
import { useGo, usePutJobs, useReloadProfiles } from '../app/navigation';
import { useApi } from '../app/api';
import { useErrorLine } from '../i18n/errors';
import { useFormat } from '../i18n/useFormat';
import { ProfileForm } from '../servers/ProfileForm';
import { JobStatus } from './JobStatus';
import { ScriptReview, wasReviewed } from './ScriptReview';

/**
 * A cluster's page: Start (the job script reviewed before it is first submitted, and again whenever
 * the settings change it), then each desktop job live from `clusters.job` events. Opening the page
 * asks Slurm for the user's desktop jobs, so after a restart the running ones offer Reconnect.
 */
export function ClusterPage({ connectionId, connection: conn, jobs: allJobs, profile }: { connectionId: string; connection?: ConnectionView; jobs: Record<string, ClusterJobView>; profile?: Profile }) {
  const api = useApi();
  const go = useGo();
  const reloadProfiles = useReloadProfiles();
  const putJobs = usePutJobs();
  const { t } = useTranslation(['cluster', 'common', 'servers']);
  const errorLine = useErrorLine();
  const fmt = useFormat();
  const [review, setReview] = useState<{ shown: string; scriptId: string } | null>(null);
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [found, setFound] = useState<Set<string> | null>(null);
  const [editing, setEditing] = useState(false);
  const [cancelling, setCancelling] = useState<string | null>(null);

  useEffect(() => {
    let gone = false;
    api.invoke('clusters.jobs', { connectionId })
      .then((jobs) => {
        if (gone) return;
        putJobs(jobs);
        setFound(new Set(jobs.map((j) => j.jobId)));
      })
      .catch((e) => { if (!gone) { setFound(new Set()); setError(errorLine(e)); } });
    return () => { gone = true; };
  }, [api, connectionId, putJobs, errorLine]);

  const jobs = Object.values(allJobs)
    .filter((j) => j.connectionId === connectionId)
    .sort((a, b) => Number(b.jobId) - Number(a.jobId));

  const submit = async (scriptId: string) => {
    setStarting(true);
    setError(null);
    try {
      putJobs([await api.invoke('clusters.submit', { connectionId, scriptId })]);
      setReview(null);
    } catch (e) {
      setError(errorLine(e));
    } finally {
      setStarting(false);
    }
  };

  const start = async () => {
    if (!profile) return;
    setError(null);
    setStarting(true);
    try {
      const { shown, scriptId } = await api.invoke('clusters.script', { profileId: profile.id });
      // A script already consented to goes straight to sbatch; a new or changed one is shown first.
      if (wasReviewed(profile.id, shown)) await submit(scriptId);
      else setReview({ shown, scriptId });
    } catch (e) {
      setError(errorLine(e));
    } finally {
      setStarting(false);
    }
  };

  const cancel = async (j: ClusterJobView) => {
    setCancelling(j.jobId);
    setError(null);
    try {
      await api.invoke('clusters.cancel', { connectionId, jobId: j.jobId });
    } catch (e) {
      setError(errorLine(e));
    } finally {
      setCancelling(null);
    }
  };

  const settings = profile?.job;
  const summary = [
    settings?.partition && t('summary.partition', { value: settings.partition }),
    settings?.gres && t('summary.gres', { value: settings.gres }),
    settings?.time && t('summary.time', { value: settings.time }),
    settings?.account && t('summary.account', { value: settings.account }),
  ].filter(Boolean) as string[];

  return (
    <section className="screen cluster-page" aria-labelledby="cluster-h">
      <div className="screen-head">
        <div>
          <h1 id="cluster-h">{profile?.name ?? conn?.label}<span className="badge kind-cluster">{t('servers:badge.cluster')}</span></h1>
          <p className="muted" aria-live="polite">
            {t('loginNode', { label: conn?.label ?? '' })} · {t(`connState.${conn?.state ?? 'closed'}`)}
            {conn?.rttMs != null ? ` · ${fmt.ms(conn.rttMs)}` : ''}
          </p>
          <p className="muted small" data-testid="job-settings-summary">{summary.length ? fmt.list(summary) : t('summary.defaults')}</p>
        </div>
        <div className="actions">
          {profile && <button onClick={() => setEditing(true)} data-testid="cluster-edit">{t('editSettings')}</button>}
          <button onClick={async () => { await api.invoke('connections.close', { connectionId }); go({ screen: 'servers' }); }}>{t('disconnect')}</button>
          <button className="primary" onClick={() => void start()} disabled={starting || !profile || review !== null} data-testid="job-start">{starting ? t('starting') : t('start')}</button>
        </div>
      </div>
      {conn?.state === 'reconnecting' && <p className="banner warn" role="status">{t('reconnecting')}</p>}
      {error && <p className="banner error" role="alert" data-testid="job-error">{error}</p>}
      {review !== null && profile && (
        <ScriptReview profileId={profile.id} script={review.shown} busy={starting} onSubmit={() => void submit(review.scriptId)} onBack={() => setReview(null)} />
      )}
      <h2>{t('jobs.title')}</h2>
      {found === null && <p className="muted" role="status">{t('jobs.asking')}</p>}
      {found !== null && jobs.length === 0 && <p className="muted" data-testid="jobs-none">{t('jobs.none')}</p>}
      <ul className="job-list" aria-label={t('jobs.title')}>
        {jobs.map((j) => (
          <li key={j.jobId} className="job-card" data-testid={`job-${j.jobId}`}>
            <h3>{t('jobs.job', { jobId: j.jobId })}{found?.has(j.jobId) && j.phase !== 'ended' && <span className="badge" data-testid="job-found">{t('jobs.found')}</span>}</h3>
            <JobStatus job={j} />
            <div className="actions">
              {j.phase === 'running' && j.desktopUp && (
                <button className="primary" data-testid="job-view" onClick={() => go({ screen: 'job', connectionId, profileId: profile?.id ?? '', jobId: j.jobId })}>
                  {found?.has(j.jobId) ? t('jobs.reconnect') : t('jobs.view')}
                </button>
              )}
              {j.phase !== 'ended' && (
                <button className="danger" data-testid="job-cancel" disabled={cancelling === j.jobId} onClick={() => void cancel(j)}>{cancelling === j.jobId ? t('close.cancelling') : t('jobs.cancel')}</button>
              )}
            </div>
          </li>
        ))}
      </ul>
      {editing && profile && (
        <ProfileForm profile={profile} onDone={async () => { setEditing(false); await reloadProfiles(); }} onCancel={async () => { setEditing(false); await reloadProfiles(); }} />
      )}
    </section>
  );
}
