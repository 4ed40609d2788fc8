import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ClusterJobView, ClusterViewerTicket } from '../../shared/models';
import { useApi } from '../app/api';
import { Dialog } from '../app/Dialog';
import { useErrorLine } from '../i18n/errors';
import { JobStatus } from './JobStatus';

/** How the viewer reaches the job's desktop (from its ticket): the route, the node and the display. */
export interface JobRoute {
  route: ClusterViewerTicket['route'];
  node: string;
  display: number;
  port: number | null;
  /** Core's sentence (English), kept as the element's title for the curious. */
  why: string;
}

export function jobRouteOf(t: ClusterViewerTicket): JobRoute {
  return { route: t.route, node: t.node, display: t.display, port: t.remotePort, why: t.why };
}

/** The job's state, time left and warnings above the desktop, and which way the viewer reaches it and why. */
export function JobViewerBar({ job, route }: { job: ClusterJobView | undefined; route: JobRoute | null }) {
  const { t } = useTranslation('cluster');
  return (
    <div className="job-viewer-bar" data-testid="job-viewer-bar">
      {job && <JobStatus job={job} compact />}
      {route && (
        <p className="small muted" data-testid="job-route" data-route={route.route} title={route.why}>
          {route.route === 'ssh'
            ? t('route.ssh', { node: route.node, display: route.display })
            : t('route.loginForward', { node: route.node, display: route.display, port: route.port ?? 5900 + route.display })}
        </p>
      )}
    </div>
  );
}

/** Closing a job's desktop: the job holds its node until cancelled or its time is up, so ask which. */
export function CloseJobDialog(props: { connectionId: string; jobId: string; onDone(): void; onCancel(): void }) {
  const api = useApi();
  const { t } = useTranslation(['cluster', 'common']);
  const errorLine = useErrorLine();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const cancelJob = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.invoke('clusters.cancel', { connectionId: props.connectionId, jobId: props.jobId });
      props.onDone();
    } catch (e) {
      setError(errorLine(e));
      setBusy(false);
    }
  };
  return (
    <Dialog title={t('close.title', { jobId: props.jobId })} onCancel={props.onCancel} testId="close-job">
      <p>{t('close.text')}</p>
      {error && <p className="banner error" role="alert">{error}</p>}
      <div className="dialog-actions">
        <button onClick={props.onCancel}>{t('common:actions.back')}</button>
        <button onClick={props.onDone} disabled={busy} data-testid="close-keep">{t('close.keep')}</button>
        <button className="danger" onClick={() => void cancelJob()} disabled={busy} data-testid="close-cancel">{busy ? t('close.cancelling') : t('close.cancel')}</button>
      </div>
    </Dialog>
  );
}
