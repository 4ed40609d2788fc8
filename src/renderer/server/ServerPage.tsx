import { useEffect, useEffectEvent, useState } from 'react';
import type { ConnectionView, Profile, ServerReportView } from '../../shared/models';
import { useGo, useReloadProfiles } from '../app/navigation';
import { useApi } from '../app/api';
import { useErrorLine } from '../i18n/errors';
import { useFormat } from '../i18n/useFormat';
import { ProbeReport } from './ProbeReport';
import { GpuCards } from './GpuCards';
import { Sessions } from './Sessions';
import { SetupWizard } from './SetupWizard';
import { useTranslation } from 'react-i18next';
import { FilesPanel } from '../files/FilesPanel';
import { ForwardsPanel } from '../forwards/ForwardsPanel';
import { InstallKeyDialog } from '../keys/InstallKeyDialog';
import { keepReport, lastReport } from './lastReports';

type Tab = 'overview' | 'gpus' | 'sessions' | 'setup' | 'forwards' | 'files';

export function ServerPage({ connectionId, connection: conn, profile }: { connectionId: string; connection?: ConnectionView; profile?: Profile }) {
  const api = useApi();
  const go = useGo();
  const reloadProfiles = useReloadProfiles();
  const { t: tr } = useTranslation('server');
  const errorLine = useErrorLine();
  const fmt = useFormat();
  const [tab, setTab] = useState<Tab>('sessions');
  const [kept, setKept] = useState(() => lastReport(connectionId));
  const report: ServerReportView | null = kept?.report ?? null;
  // Re-renders the "checked … ago" label as time passes.
  const [, setTick] = useState(0);
  useEffect(() => { const i = setInterval(() => setTick((n) => n + 1), 30_000); return () => clearInterval(i); }, []);
  const [probing, setProbing] = useState(false);
  const [probeError, setProbeError] = useState<string | null>(null);
  const { t: tFiles } = useTranslation('files');
  const { t: tForwards } = useTranslation('forwards');
  const tabs: { id: Tab; label: string }[] = [
    ...(['sessions', 'overview', 'gpus', 'setup'] as const).map((id) => ({ id, label: tr(`tabs.${id}`) })),
    { id: 'forwards', label: tForwards('tab') },
    { id: 'files', label: tFiles('tab') },
  ];
  const [installing, setInstalling] = useState(false);

  const probe = async () => {
    setProbing(true);
    setProbeError(null);
    try {
      setKept(keepReport(connectionId, await api.invoke('server.probe', { connectionId })));
    } catch (e) {
      setProbeError(errorLine(e));
    } finally {
      setProbing(false);
    }
  };
  const probeOnOpen = useEffectEvent(() => void probe());
  useEffect(() => {
    probeOnOpen();
  }, [connectionId]);

  const onKeyTabs = (e: React.KeyboardEvent) => {
    const i = tabs.findIndex((t) => t.id === tab);
    if (e.key === 'ArrowRight') setTab(tabs[(i + 1) % tabs.length].id);
    if (e.key === 'ArrowLeft') setTab(tabs[(i + tabs.length - 1) % tabs.length].id);
  };

  return (
    <section className="screen server-page" aria-labelledby="server-h">
      <div className="screen-head">
        <div>
          <h1 id="server-h">{profile?.name ?? conn?.label ?? tr('fallbackTitle')}</h1>
          <p className="muted" aria-live="polite" data-testid="server-status" title={conn?.login ? tr('login', { total: fmt.ms(conn.login.totalMs), handshake: fmt.ms(conn.login.handshakeMs), auth: fmt.ms(conn.login.authMs) }) : undefined}>
            {conn?.label} · {tr(`state.${conn?.state === 'ready' ? 'connected' : conn?.state ?? 'closed'}`)}
            {conn?.rttMs != null ? tr('rtt', { rtt: fmt.ms(conn.rttMs) }) : ''}
            {report ? ` · ${report.os.prettyName} (${report.os.arch})` : ''}
            {kept && <span data-testid="report-age"> · {probing ? tr('refreshing', { ago: fmt.relative(kept.at) }) : tr('checkedAgo', { ago: fmt.relative(kept.at) })}</span>}
          </p>
        </div>
        <div className="actions">
          {profile && <button onClick={() => setInstalling(true)} data-testid="install-key-open">{tr('installKey')}</button>}
          <button onClick={probe} disabled={probing}>{probing ? tr('probing') : tr('probeAgain')}</button>
          <button onClick={async () => { await api.invoke('connections.close', { connectionId }); go({ screen: 'servers' }); }}>{tr('disconnect')}</button>
        </div>
      </div>
      {conn?.state === 'reconnecting' && <p className="banner warn" role="status">{conn.error ? tr('reconnectingWhy', { why: errorLine(conn.error) }) : tr('reconnecting')}</p>}
      <div role="tablist" aria-label={tr('tabsAria')} className="tabs" onKeyDown={onKeyTabs}>
        {tabs.map((t) => (
          <button key={t.id} role="tab" id={`tab-${t.id}`} aria-selected={tab === t.id} aria-controls={`panel-${t.id}`} tabIndex={tab === t.id ? 0 : -1} onClick={() => setTab(t.id)}>
            {t.label}
            {t.id === 'overview' && report && report.findings.filter((f) => f.severity !== 'info').length > 0 && <span className="badge">{report.findings.filter((f) => f.severity !== 'info').length}</span>}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="panel">
        {tab === 'overview' && <ProbeReport report={report} probing={probing} error={probeError} onSetup={() => setTab('setup')} />}
        {tab === 'gpus' && <GpuCards connectionId={connectionId} initial={report?.gpus ?? null} />}
        {tab === 'sessions' && <Sessions connectionId={connectionId} profile={profile} report={report} />}
        {tab === 'setup' && <SetupWizard connectionId={connectionId} onFinished={probe} />}
        {tab === 'forwards' && <ForwardsPanel connectionId={connectionId} profile={profile} />}
        {tab === 'files' && <FilesPanel connectionId={connectionId} />}
      </div>
      {installing && profile && <InstallKeyDialog profile={profile} onClose={async () => { setInstalling(false); await reloadProfiles(); }} />}
    </section>
  );
}
