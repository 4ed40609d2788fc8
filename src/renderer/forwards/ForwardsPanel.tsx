import { useEffect, useEffectEvent, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ForwardView, Profile } from '../../shared/models';
import { errorLine, useApi, useEvent } from '../app/api';
import { useReloadProfiles } from '../app/navigation';
import { ProfileForm } from '../servers/ProfileForm';

/**
 * A server's saved forwards: open (on their own from the server page, or by themselves beside the
 * viewer), each with its 127.0.0.1 address, whether it answers HTTP, and "Open in browser".
 */
export function ForwardsPanel({ connectionId, profile, autoOpen = false, compact = false }: { connectionId: string; profile?: Profile; autoOpen?: boolean; compact?: boolean }) {
  const api = useApi();
  const { t } = useTranslation('forwards');
  const [all, setAll] = useState<ForwardView[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const reloadProfiles = useReloadProfiles();
  useEvent('forwards.changed', setAll);
  const saved = profile?.forwards ?? [];
  const mine = all.filter((f) => f.connectionId === connectionId);

  const open = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.invoke('forwards.open', { connectionId });
    } catch (e) {
      setError(errorLine(e));
    } finally {
      setBusy(false);
    }
  };
  const showAndOpen = useEffectEvent(() => {
    void api.invoke('forwards.list', {}).then(setAll);
    if (autoOpen && saved.length) void open();
  });
  useEffect(() => showAndOpen(), [connectionId]);

  const browse = (url: string) => api.invoke('app.openExternal', { url }).catch(() => { window.open(url, '_blank', 'noopener'); });
  const copy = async (address: string) => {
    try {
      await navigator.clipboard.writeText(address);
      setCopied(address);
    } catch {
      // No clipboard permission: the address is on screen to select.
    }
  };

  if (compact && saved.length === 0 && mine.length === 0) return null;
  return (
    <section className={`forwards-panel${compact ? ' compact' : ''}`} aria-labelledby={`fw-h-${connectionId}`} data-testid="forwards-panel">
      <h2 id={`fw-h-${connectionId}`}>{t('heading')}</h2>
      {!compact && <p className="muted">{t('intro')}</p>}
      {saved.length === 0 && mine.length === 0 && <p className="muted">{t('none')}</p>}
      {/* Forwards are part of the server's profile: its editor is one click away, not a place to find. */}
      {!compact && profile && <button onClick={() => setEditing(true)} data-testid="forwards-edit">{t('edit')}</button>}
      {editing && profile && <ProfileForm profile={profile} onDone={async () => { setEditing(false); await reloadProfiles(); }} onCancel={() => setEditing(false)} />}
      {saved.length > 0 && mine.length < saved.length && <button onClick={open} disabled={busy} data-testid="forwards-open">{busy ? t('opening') : t('open')}</button>}
      {error && <p className="banner error" role="alert">{error}</p>}
      <ul className="forwards">
        {mine.map((f) => {
          const address = `${f.localHost}:${f.localPort}`;
          return (
            <li key={f.id} data-testid={`forward-${f.remotePort}`} data-http={f.http}>
              <code data-testid="forward-address">{address}</code>{' '}
              <button onClick={() => void copy(address)} aria-label={t('copyAria', { address })}>{copied === address ? t('copied') : t('copy')}</button>{' '}
              <span className="muted">{t('remote', { host: f.remoteHost, port: f.remotePort })}</span>{' '}
              <span className={`http http-${f.http}`} data-testid="forward-http">{t(`http.${f.http}`)}</span>{' '}
              {f.url && <button className="primary" onClick={() => void browse(f.url!)} data-testid="forward-browse">{t('openBrowser')}</button>}{' '}
              <button onClick={() => void api.invoke('forwards.check', { forwardId: f.id }).catch((e) => setError(errorLine(e)))} disabled={f.http === 'checking'}>{t('checkAgain')}</button>{' '}
              <button onClick={() => void api.invoke('forwards.close', { forwardId: f.id }).catch((e) => setError(errorLine(e)))}>{t('close')}</button>
              {f.openFailed && <p className="banner error" role="alert" data-testid="forward-open-failed">{t('openFailed', { reason: errorLine(f.openFailed) })}</p>}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
