import { useState } from 'react';
import type { ConnectionView, TunnelView } from '../../shared/models';
import { useGo } from '../app/navigation';
import { useApi } from '../app/api';
import { useTranslation } from 'react-i18next';
import { useErrorLine } from '../i18n/errors';
import { useFormat } from '../i18n/useFormat';

/** Tunnel-only mode: a loopback address for a native viewer, ready-made commands, extra forwards. */
export function TunnelScreen({ connectionId, connection, tunnel: t, password }: { connectionId: string; connection?: ConnectionView; tunnel?: TunnelView; password?: string }) {
  const api = useApi();
  const go = useGo();
  const { t: tr } = useTranslation('viewer');
  const errorLine = useErrorLine();
  const fmt = useFormat();
  const [copied, setCopied] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (!t) return <p role="status">{tr('tunnel.closed')} <button onClick={() => go({ screen: 'servers' })}>{tr('tunnel.backToServers')}</button></p>;
  const address = `${t.localHost}:${t.localPort}`;
  const copy = async (what: string, text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(what);
      setTimeout(() => setCopied(null), 1500);
    } catch {
      setError(tr('tunnel.noClipboard'));
    }
  };
  const profileId = connection?.profileId ?? '';
  return (
    <section className="screen tunnel" aria-labelledby="tunnel-h" data-testid="tunnel-screen">
      <div className="screen-head">
        <h1 id="tunnel-h">{tr('tunnel.title', { display: t.display })}</h1>
        <div className="actions">
          <button onClick={() => go({ screen: 'viewer', connectionId, profileId, display: t.display })}>{tr('tunnel.openViewer')}</button>
          <button className="danger" onClick={async () => { try { await api.invoke('tunnels.close', { tunnelId: t.id }); go({ screen: 'server', connectionId, profileId }); } catch (e) { setError(errorLine(e)); } }}>{tr('tunnel.close')}</button>
        </div>
      </div>
      {error && <p className="banner error" role="alert">{error}</p>}
      <p>{tr('tunnel.intro')}</p>
      <div className="address">
        <code data-testid="tunnel-address">{address}</code>
        <button onClick={() => copy('address', address)} aria-label={tr('tunnel.copyAddress')}>{copied === 'address' ? tr('tunnel.copied') : tr('tunnel.copy')}</button>
      </div>
      {password && (
        <div className="address">
          <span>{tr('tunnel.password')}</span> <code data-testid="tunnel-password">{password}</code>
          <button onClick={() => copy('password', password)} aria-label={tr('tunnel.copyPassword')}>{copied === 'password' ? tr('tunnel.copied') : tr('tunnel.copy')}</button>
        </div>
      )}
      <p className="muted">{tr('tunnel.clients', { count: t.clients })}{tr('tunnel.traffic', { in: fmt.bytes(t.bytesIn), out: fmt.bytes(t.bytesOut) })}</p>
      <h2>{tr('tunnel.commands')}</h2>
      <dl className="commands">
        {([['turbovnc', 'TurboVNC Viewer'], ['tigervnc', 'TigerVNC Viewer'], ['realvnc', 'RealVNC Viewer']] as const).map(([k, label]) => (
          <div key={k}>
            <dt>{label}</dt>
            <dd><code>{t.commands[k]}</code> <button onClick={() => copy(k, t.commands[k])} aria-label={tr('tunnel.copyCommand', { viewer: label })}>{copied === k ? tr('tunnel.copied') : tr('tunnel.copy')}</button></dd>
          </div>
        ))}
      </dl>
      <h2>{tr('tunnel.forwards')}</h2>
      {t.forwards.length === 0 ? <p className="muted">{tr('tunnel.noForwards')}</p> : (
        <ul className="forwards">
          {t.forwards.map((f) => (
            <li key={f.localPort}>
              <code>127.0.0.1:{f.localPort}</code> → {f.remoteHost}:{f.remotePort}{' '}
              {f.url ? <button onClick={() => api.invoke('app.openExternal', { url: f.url! }).catch(() => window.open(f.url!, '_blank', 'noopener'))}>{tr('tunnel.openBrowser')}</button> : <span className="muted">{tr('tunnel.notWeb')}</span>}
              {f.openFailed && <p className="banner error" role="alert" data-testid="forward-open-failed">{tr('tunnel.openFailed', { reason: errorLine(f.openFailed) })}</p>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
