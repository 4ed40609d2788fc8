import { useEffect, useRef, useState } from 'react';
import { takeAutoConnect } from '../api/client';
import type { ConnectionView, Profile } from '../../shared/models';
import { useGo, useReloadProfiles } from '../app/navigation';
import type { ProfileExchange } from './profileExchange';
import { errorCode, useApi } from '../app/api';
import { Trans, useTranslation } from 'react-i18next';
import { useErrorLine } from '../i18n/errors';
import { useFormat } from '../i18n/useFormat';
import { Dialog } from '../app/Dialog';
import { ProfileForm } from './ProfileForm';
import { ImportDialog } from './ImportDialog';
import { InstallKeyDialog } from '../keys/InstallKeyDialog';
import { RememberedJobs } from '../cluster/RememberedJobs';

export function ServersScreen({ profiles, connections, exchange: ex }: { profiles: Profile[]; connections: ConnectionView[]; exchange: ProfileExchange }) {
  const api = useApi();
  const go = useGo();
  const reloadProfiles = useReloadProfiles();
  const { t } = useTranslation(['servers', 'common']);
  const errorLine = useErrorLine();
  const fmt = useFormat();
  const [editing, setEditing] = useState<Profile | 'new' | null>(null);
  const [importing, setImporting] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [keyChanged, setKeyChanged] = useState<{ profile: string; message: string; fix?: string } | null>(null);
  const [removing, setRemoving] = useState<Profile | null>(null);
  const [installFor, setInstallFor] = useState<Profile | null>(null);

  const auto = useRef<string | null | undefined>(undefined);
  useEffect(() => {
    if (auto.current === undefined) auto.current = takeAutoConnect();
    const p = auto.current ? profiles.find((x) => x.id === auto.current) : undefined;
    if (p) {
      auto.current = null;
      void connect(p);
    }
  });

  const connOf = (p: Profile) => connections.filter((c) => c.profileId === p.id && c.state !== 'closed').at(-1);

  const connect = async (p: Profile) => {
    setError(null);
    const existing = connOf(p);
    if (existing) {
      go({ screen: p.kind === 'cluster' ? 'cluster' : 'server', connectionId: existing.id, profileId: p.id });
      return;
    }
    setBusy(p.id);
    try {
      const c = await api.invoke('connections.open', { profileId: p.id });
      // A cluster's desktops are jobs: its page starts and lists them.
      if (p.kind === 'cluster') go({ screen: 'cluster', connectionId: c.id, profileId: p.id });
      // A profile with a default display goes straight to that desktop, like a saved VNC connection.
      else if (p.display.number !== undefined) go({ screen: 'viewer', connectionId: c.id, profileId: p.id, display: p.display.number });
      else go({ screen: 'server', connectionId: c.id, profileId: p.id });
    } catch (e) {
      if (errorCode(e) === 'HOST_KEY_CHANGED') {
        const x = e as { message: string; fix?: string };
        setKeyChanged({ profile: p.name, message: x.message, fix: x.fix });
      } else setError(t('connectError', { name: p.name, error: errorLine(e) }));
    } finally {
      setBusy(null);
    }
  };

  return (
    <section aria-labelledby="servers-h" className="screen servers">
      <div className="screen-head">
        <h1 id="servers-h">{t('title')}</h1>
        <div className="actions">
          <button onClick={() => void ex.exportAll()} disabled={ex.busy} data-testid="export-profiles">{t('exportServers')}</button>
          <button onClick={() => void ex.importFile()} disabled={ex.busy} data-testid="import-profiles">{t('importServers')}</button>
          <button onClick={() => setImporting(true)}>{t('importButton')}</button>
          <button className="primary" onClick={() => setEditing('new')}>{t('add')}</button>
        </div>
      </div>
      {error && <p className="banner error" role="alert" data-testid="connect-error">{error}</p>}
      <RememberedJobs profiles={profiles} onOpen={(p) => void connect(p)} />
      {ex.message && (
        <div className={`banner${ex.message.kind === 'error' ? ' error' : ''}`} role={ex.message.kind === 'error' ? 'alert' : 'status'} data-testid="exchange-message" data-kind={ex.message.kind}>
          <p>{ex.message.text}</p>
          {ex.message.details.length > 0 && <ul>{ex.message.details.map((d) => <li key={d}>{d}</li>)}</ul>}
          <button className="link" onClick={ex.dismiss}>{t('dismiss')}</button>
        </div>
      )}
      {profiles.length === 0 ? (
        <div className="empty">
          <p><Trans t={t} i18nKey="empty" components={{ code: <code /> }} /></p>
        </div>
      ) : (
        <ul className="server-list" aria-label={t('listLabel')}>
          {profiles.map((p) => {
            const c = connOf(p);
            const st = c?.state ?? 'closed';
            return (
              <li key={p.id} className="server-card" data-testid={`server-${p.name}`}>
                <div className="server-main">
                  <span className={`dot state-${st}`} aria-hidden="true" />
                  <div>
                    <h2>{p.name}{p.kind === 'cluster' && <span className="badge kind-cluster" data-testid="badge-cluster" title={t('badge.clusterTitle')}>{t('badge.cluster')}</span>}</h2>
                    <p className="muted">{p.user ? `${p.user}@` : ''}{p.host}{p.port !== 22 ? `:${p.port}` : ''}{p.jumpHosts.length ? t('via', { hops: p.jumpHosts.join(' → ') }) : ''}</p>
                  </div>
                </div>
                <p className="server-state" aria-live="polite">{busy === p.id ? t('state.connecting') : t(`state.${st}`)}{c?.rttMs != null && st === 'ready' ? t('rtt', { rtt: fmt.ms(c.rttMs) }) : ''}{c?.error && st === 'reconnecting' ? ` · ${c.error.message}` : ''}</p>
                <div className="actions">
                  <button className="primary" onClick={() => connect(p)} disabled={busy === p.id} aria-label={t(c ? 'openAria' : 'connectAria', { name: p.name })}>{c ? t('open') : busy === p.id ? t('state.connecting') : t('connect')}</button>
                  {c && <button onClick={() => api.invoke('connections.close', { connectionId: c.id })} aria-label={t('disconnectAria', { name: p.name })}>{t('disconnect')}</button>}
                  <button onClick={() => setEditing(p)} aria-label={t('editAria', { name: p.name })}>{t('edit')}</button>
                  <button className="danger" onClick={() => setRemoving(p)} aria-label={t('removeAria', { name: p.name })}>{t('remove')}</button>
                </div>
              </li>
            );
          })}
        </ul>
      )}
      {editing && (
        <ProfileForm
          profile={editing === 'new' ? null : editing}
          onDone={async (saved) => {
            // A new server that signs in with a password is offered a key straight away.
            if (editing === 'new' && saved.auth.kind === 'password') setInstallFor(saved);
            setEditing(null);
            await reloadProfiles();
          }}
          // Asking a cluster for its defaults saves the profile: the list shows it even after Cancel.
          onCancel={async () => { setEditing(null); await reloadProfiles(); }}
        />
      )}
      {installFor && <InstallKeyDialog profile={installFor} onClose={async () => { setInstallFor(null); await reloadProfiles(); }} />}
      {importing && <ImportDialog onDone={async () => { setImporting(false); await reloadProfiles(); }} onCancel={() => setImporting(false)} />}
      {removing && (
        <Dialog title={t('removeTitle', { name: removing.name })} onCancel={() => setRemoving(null)}>
          <p>{t('removeText')}</p>
          <div className="dialog-actions">
            <button onClick={() => setRemoving(null)}>{t('common:actions.cancel')}</button>
            <button className="danger" onClick={async () => { try { await api.invoke('profiles.remove', { id: removing.id }); } catch (e) { setError(errorLine(e)); } setRemoving(null); await reloadProfiles(); }}>{t('remove')}</button>
          </div>
        </Dialog>
      )}
      {keyChanged && (
        <Dialog title={t('keyChanged.title')} alert testId="host-key-changed">
          <p className="stop"><strong>{t('keyChanged.stop', { name: keyChanged.profile })}</strong> {t('keyChanged.text')}</p>
          <p className="mono">{keyChanged.message}</p>
          {keyChanged.fix && <p>{t('keyChanged.fix', { fix: keyChanged.fix })}</p>}
          <div className="dialog-actions">
            <button className="primary" onClick={() => setKeyChanged(null)}>{t('common:actions.close')}</button>
          </div>
        </Dialog>
      )}
    </section>
  );
}
