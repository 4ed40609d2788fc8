import { useState } from 'react';
import type { AppState } from '../app/App';
import { errorLine, useApi } from '../app/api';
import { formatBytes } from '../viewer/stats';

/** Tunnel-only mode: a loopback address for a native viewer, ready-made commands, extra forwards. */
export function TunnelScreen({ state, connectionId, tunnelId }: { state: AppState; connectionId: string; tunnelId: string }) {
  const api = useApi();
  const t = state.tunnels.find((x) => x.id === tunnelId);
  const [copied, setCopied] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (!t) return <p role="status">This tunnel is closed. <button onClick={() => state.go({ screen: 'servers' })}>Back to servers</button></p>;
  const address = `${t.localHost}:${t.localPort}`;
  const copy = async (what: string, text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(what);
      setTimeout(() => setCopied(null), 1500);
    } catch {
      setError('The clipboard is not available here: select the text and copy it.');
    }
  };
  const profileId = state.connections.find((c) => c.id === connectionId)?.profileId ?? '';
  return (
    <section className="screen tunnel" aria-labelledby="tunnel-h" data-testid="tunnel-screen">
      <div className="screen-head">
        <h1 id="tunnel-h">Tunnel to display :{t.display}</h1>
        <div className="actions">
          <button onClick={() => state.go({ screen: 'viewer', connectionId, profileId, display: t.display })}>Open in gpu-desk's viewer</button>
          <button className="danger" onClick={async () => { try { await api.invoke('tunnels.close', { tunnelId }); state.go({ screen: 'server', connectionId, profileId }); } catch (e) { setError(errorLine(e)); } }}>Close tunnel</button>
        </div>
      </div>
      {error && <p className="banner error" role="alert">{error}</p>}
      <p>Point any VNC viewer at this address. It listens on this computer only (127.0.0.1); the traffic travels inside SSH.</p>
      <div className="address">
        <code data-testid="tunnel-address">{address}</code>
        <button onClick={() => copy('address', address)} aria-label="Copy the local address">{copied === 'address' ? 'Copied' : 'Copy'}</button>
      </div>
      <p className="muted">{t.clients} viewer{t.clients === 1 ? '' : 's'} connected · {formatBytes(t.bytesIn)} in · {formatBytes(t.bytesOut)} out</p>
      <h2>Ready-made commands</h2>
      <dl className="commands">
        {([['turbovnc', 'TurboVNC Viewer'], ['tigervnc', 'TigerVNC Viewer'], ['realvnc', 'RealVNC Viewer']] as const).map(([k, label]) => (
          <div key={k}>
            <dt>{label}</dt>
            <dd><code>{t.commands[k]}</code> <button onClick={() => copy(k, t.commands[k])} aria-label={`Copy the ${label} command`}>{copied === k ? 'Copied' : 'Copy'}</button></dd>
          </div>
        ))}
      </dl>
      <h2>Extra forwards</h2>
      {t.forwards.length === 0 ? <p className="muted">None. Add forwards (e.g. Jupyter on 8888) to the server's profile.</p> : (
        <ul className="forwards">
          {t.forwards.map((f) => (
            <li key={f.localPort}>
              <code>127.0.0.1:{f.localPort}</code> → {f.remoteHost}:{f.remotePort}{' '}
              {f.url ? <button onClick={() => api.invoke('app.openExternal', { url: f.url! }).catch(() => window.open(f.url!, '_blank', 'noopener'))}>Open in browser</button> : <span className="muted">(not a web service)</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
