import { useEffect, useRef, useState } from 'react';
import { takeAutoConnect } from '../api/client';
import type { Profile } from '../../shared/models';
import type { AppState } from '../app/App';
import { errorCode, errorLine, useApi } from '../app/api';
import { Dialog } from '../app/Dialog';
import { ProfileForm } from './ProfileForm';
import { ImportDialog } from './ImportDialog';
import { InstallKeyDialog } from '../keys/InstallKeyDialog';

// UI text in one place, for the message catalogues (issue 18).
const T = {
  exportServers: 'Export servers…',
  importServers: 'Import servers…',
  dismiss: 'Dismiss',
  removeText: 'The profile is removed from this computer, with its remembered password in the OS keychain. Keys in the keychain and the server itself are not touched.',
};

const STATE_LABEL: Record<string, string> = { connecting: 'Connecting…', ready: 'Connected', reconnecting: 'Reconnecting…', closed: 'Not connected', idle: 'Not connected' };

export function ServersScreen({ state }: { state: AppState }) {
  const api = useApi();
  const [editing, setEditing] = useState<Profile | 'new' | null>(null);
  const [importing, setImporting] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [keyChanged, setKeyChanged] = useState<{ profile: string; message: string; fix?: string } | null>(null);
  const [removing, setRemoving] = useState<Profile | null>(null);
  const [installFor, setInstallFor] = useState<Profile | null>(null);
  const ex = state.exchange;

  const auto = useRef<string | null | undefined>(undefined);
  useEffect(() => {
    if (auto.current === undefined) auto.current = takeAutoConnect();
    const p = auto.current ? state.profiles.find((x) => x.id === auto.current) : undefined;
    if (p) {
      auto.current = null;
      void connect(p);
    }
  });

  const connOf = (p: Profile) => state.connections.filter((c) => c.profileId === p.id && c.state !== 'closed').at(-1);

  const connect = async (p: Profile) => {
    setError(null);
    const existing = connOf(p);
    if (existing) {
      state.go({ screen: 'server', connectionId: existing.id, profileId: p.id });
      return;
    }
    setBusy(p.id);
    try {
      const c = await api.invoke('connections.open', { profileId: p.id });
      // A profile with a default display goes straight to that desktop, like a saved VNC connection.
      if (p.display.number !== undefined) state.go({ screen: 'viewer', connectionId: c.id, profileId: p.id, display: p.display.number });
      else state.go({ screen: 'server', connectionId: c.id, profileId: p.id });
    } catch (e) {
      if (errorCode(e) === 'HOST_KEY_CHANGED') {
        const x = e as { message: string; fix?: string };
        setKeyChanged({ profile: p.name, message: x.message, fix: x.fix });
      } else setError(`${p.name}: ${errorLine(e)}`);
    } finally {
      setBusy(null);
    }
  };

  return (
    <section aria-labelledby="servers-h" className="screen servers">
      <div className="screen-head">
        <h1 id="servers-h">Servers</h1>
        <div className="actions">
          <button onClick={() => void ex.exportAll()} disabled={ex.busy} data-testid="export-profiles">{T.exportServers}</button>
          <button onClick={() => void ex.importFile()} disabled={ex.busy} data-testid="import-profiles">{T.importServers}</button>
          <button onClick={() => setImporting(true)}>Import from ~/.ssh/config</button>
          <button className="primary" onClick={() => setEditing('new')}>Add server</button>
        </div>
      </div>
      {error && <p className="banner error" role="alert" data-testid="connect-error">{error}</p>}
      {ex.message && (
        <div className={`banner${ex.message.kind === 'error' ? ' error' : ''}`} role={ex.message.kind === 'error' ? 'alert' : 'status'} data-testid="exchange-message" data-kind={ex.message.kind}>
          <p>{ex.message.text}</p>
          {ex.message.details.length > 0 && <ul>{ex.message.details.map((d) => <li key={d}>{d}</li>)}</ul>}
          <button className="link" onClick={ex.dismiss}>{T.dismiss}</button>
        </div>
      )}
      {state.profiles.length === 0 ? (
        <div className="empty">
          <p>No servers yet. Add the GPU server you reach with <code>ssh</code>, or import its Host entry from your ssh config.</p>
        </div>
      ) : (
        <ul className="server-list" aria-label="Saved servers">
          {state.profiles.map((p) => {
            const c = connOf(p);
            const st = c?.state ?? 'closed';
            return (
              <li key={p.id} className="server-card" data-testid={`server-${p.name}`}>
                <div className="server-main">
                  <span className={`dot state-${st}`} aria-hidden="true" />
                  <div>
                    <h2>{p.name}</h2>
                    <p className="muted">{p.user ? `${p.user}@` : ''}{p.host}{p.port !== 22 ? `:${p.port}` : ''}{p.jumpHosts.length ? ` via ${p.jumpHosts.join(' → ')}` : ''}</p>
                  </div>
                </div>
                <p className="server-state" aria-live="polite">{busy === p.id ? 'Connecting…' : STATE_LABEL[st]}{c?.rttMs != null && st === 'ready' ? ` · ${c.rttMs.toFixed(1)} ms` : ''}{c?.error && st === 'reconnecting' ? ` · ${c.error.message}` : ''}</p>
                <div className="actions">
                  <button className="primary" onClick={() => connect(p)} disabled={busy === p.id} aria-label={`${c ? 'Open' : 'Connect to'} ${p.name}`}>{c ? 'Open' : busy === p.id ? 'Connecting…' : 'Connect'}</button>
                  {c && <button onClick={() => api.invoke('connections.close', { connectionId: c.id })} aria-label={`Disconnect ${p.name}`}>Disconnect</button>}
                  <button onClick={() => setEditing(p)} aria-label={`Edit ${p.name}`}>Edit</button>
                  <button className="danger" onClick={() => setRemoving(p)} aria-label={`Remove ${p.name}`}>Remove</button>
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
            await state.reloadProfiles();
          }}
          onCancel={() => setEditing(null)}
        />
      )}
      {installFor && <InstallKeyDialog profile={installFor} onClose={async () => { setInstallFor(null); await state.reloadProfiles(); }} />}
      {importing && <ImportDialog onDone={async () => { setImporting(false); await state.reloadProfiles(); }} onCancel={() => setImporting(false)} />}
      {removing && (
        <Dialog title={`Remove ${removing.name}?`} onCancel={() => setRemoving(null)}>
          <p>{T.removeText}</p>
          <div className="dialog-actions">
            <button onClick={() => setRemoving(null)}>Cancel</button>
            <button className="danger" onClick={async () => { try { await api.invoke('profiles.remove', { id: removing.id }); } catch (e) { setError(errorLine(e)); } setRemoving(null); await state.reloadProfiles(); }}>Remove</button>
          </div>
        </Dialog>
      )}
      {keyChanged && (
        <Dialog title="Warning: the server's identity has changed" alert testId="host-key-changed">
          <p className="stop"><strong>gpu-desk did not connect to {keyChanged.profile}.</strong> The server presented a different host key from the one saved for it. Someone could be intercepting the connection, or the server was reinstalled.</p>
          <p className="mono">{keyChanged.message}</p>
          {keyChanged.fix && <p>If you know the server was reinstalled: {keyChanged.fix}</p>}
          <div className="dialog-actions">
            <button className="primary" onClick={() => setKeyChanged(null)}>Close</button>
          </div>
        </Dialog>
      )}
    </section>
  );
}
