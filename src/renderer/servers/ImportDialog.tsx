import { useEffect, useState } from 'react';
import type { SshConfigHost } from '../../shared/models';
import { errorLine, useApi } from '../app/api';
import { Dialog } from '../app/Dialog';

export function ImportDialog(props: { onDone(): void; onCancel(): void }) {
  const api = useApi();
  const [hosts, setHosts] = useState<SshConfigHost[] | null>(null);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<string | null>(null);

  useEffect(() => {
    api.invoke('profiles.sshConfigHosts', {}).then(
      (h) => { setHosts(h); setChosen(new Set(h.filter((x) => !x.exists).map((x) => x.alias))); },
      (e) => setError(errorLine(e)),
    );
  }, [api]);

  const run = async () => {
    try {
      const r = await api.invoke('profiles.importSshConfig', { aliases: [...chosen] });
      setResult(`Imported ${r.added.length}${r.skipped.length ? `, skipped ${r.skipped.map((s) => `${s.name} (${s.reason})`).join(', ')}` : ''}.${r.warnings.length ? ' ' + r.warnings.join(' ') : ''}`);
    } catch (e) {
      setError(errorLine(e));
    }
  };

  return (
    <Dialog title="Import from ~/.ssh/config" onCancel={props.onCancel} wide>
      {error && <p className="banner error" role="alert">{error}</p>}
      {!hosts && !error && <p role="status">Reading your ssh config…</p>}
      {hosts && hosts.length === 0 && <p>No concrete Host entries (wildcards are not imported).</p>}
      {hosts && hosts.length > 0 && !result && (
        <ul className="check-list">
          {hosts.map((h) => (
            <li key={h.alias}>
              <label className="check">
                <input type="checkbox" checked={chosen.has(h.alias)} disabled={h.exists} onChange={(e) => setChosen((s) => { const n = new Set(s); if (e.target.checked) n.add(h.alias); else n.delete(h.alias); return n; })} />
                <span><strong>{h.alias}</strong> <span className="muted">{h.user ? `${h.user}@` : ''}{h.host}:{h.port}{h.jumpHosts.length ? ` via ${h.jumpHosts.join(' → ')}` : ''}{h.exists ? ' — already saved' : ''}</span></span>
              </label>
              {h.warnings.map((w) => <p key={w} className="muted small">{w}</p>)}
            </li>
          ))}
        </ul>
      )}
      {result && <p role="status">{result}</p>}
      <div className="dialog-actions">
        {result ? <button className="primary" onClick={props.onDone}>Done</button> : (
          <>
            <button onClick={props.onCancel}>Cancel</button>
            <button className="primary" disabled={!chosen.size} onClick={run}>Import {chosen.size || ''}</button>
          </>
        )}
      </div>
    </Dialog>
  );
}
