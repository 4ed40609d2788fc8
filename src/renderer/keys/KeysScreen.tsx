import { useCallback, useEffect, useState } from 'react';
import type { KeyView, Profile } from '../../shared/models';
import type { AppState } from '../app/App';
import { errorLine, useApi } from '../app/api';
import { Dialog } from '../app/Dialog';

// UI text in one place, for the message catalogues (issue 18).
const T = {
  heading: 'SSH keys',
  intro: 'Key pairs whose private half lives only in the OS keychain. The same keys as "gpu-desk keys" on the command line.',
  empty: 'No keys yet. Generate an ed25519 key, or import the private key file you use with ssh.',
  name: 'Key name',
  generate: 'Generate ed25519 key',
  importFile: 'Import a key file…',
  cols: { name: 'Name', type: 'Type', fingerprint: 'Fingerprint', installed: 'Installed on', created: 'Created' },
  nowhere: 'not installed by gpu-desk',
  copy: 'Copy public key',
  copied: 'Copied',
  copyFailed: 'Copy failed: select the key below and copy it',
  remove: 'Remove',
  showPublic: 'Public key',
  generated: (n: string) => `Generated "${n}". Its private key is in the OS keychain.`,
  imported: (n: string) => `Imported "${n}" into the OS keychain. The file itself is untouched.`,
  removeTitle: (n: string) => `Remove key ${n}?`,
  removeText: 'The private key is deleted from the OS keychain. Servers that trust it keep trusting it unless you remove it from them too.',
  alsoFrom: 'Also remove it from the authorized_keys of',
  noServer: '(no server)',
  usedBy: (names: string) => `Used by ${names}: they will sign in automatically (agent, default keys, password) instead.`,
  cancel: 'Cancel',
  removed: (n: string, server: string | null, gone: boolean) => `Removed "${n}" from the keychain${server ? (gone ? ` and from ${server}` : `; it was not on ${server}`) : ''}.`,
};

function created(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(d);
}

/** Lists, generates, imports and removes keychain keys; installing one is on the server page. */
export function KeysScreen({ state }: { state: AppState }) {
  const api = useApi();
  const [keys, setKeys] = useState<KeyView[] | null>(null);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [copied, setCopied] = useState<{ name: string; ok: boolean } | null>(null);
  const [removing, setRemoving] = useState<KeyView | null>(null);

  const reload = useCallback(async () => {
    try {
      setKeys(await api.invoke('keys.list', {}));
    } catch (e) {
      setError(errorLine(e));
    }
  }, [api]);
  useEffect(() => { void reload(); }, [reload]);

  const run = async (what: () => Promise<string | null>) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      const msg = await what();
      if (msg) setNotice(msg);
      await reload();
    } catch (e) {
      setError(errorLine(e));
    } finally {
      setBusy(false);
    }
  };
  const generate = () => run(async () => {
    const k = await api.invoke('keys.generate', { name: name.trim() });
    setName('');
    return T.generated(k.name);
  });
  const importFile = () => run(async () => {
    const k = await api.invoke('keys.importFile', { name: name.trim() });
    if (!k) return null;
    setName('');
    return T.imported(k.name);
  });
  const copy = async (k: KeyView) => {
    try {
      await navigator.clipboard.writeText(k.publicKey);
      setCopied({ name: k.name, ok: true });
    } catch {
      setCopied({ name: k.name, ok: false });
    }
  };

  return (
    <section className="screen keys" aria-labelledby="keys-h" data-testid="keys-screen">
      <div className="screen-head">
        <div>
          <h1 id="keys-h">{T.heading}</h1>
          <p className="muted">{T.intro}</p>
        </div>
      </div>
      <form className="form inline" onSubmit={(e) => { e.preventDefault(); void generate(); }}>
        <label>{T.name}<input value={name} onChange={(e) => setName(e.target.value)} required placeholder="laptop-2026" data-testid="key-name" /></label>
        <button type="submit" className="primary" disabled={busy} data-testid="key-generate">{T.generate}</button>
        <button type="button" disabled={busy || !name.trim()} onClick={() => void importFile()} data-testid="key-import">{T.importFile}</button>
      </form>
      {error && <p className="banner error" role="alert" data-testid="keys-error">{error}</p>}
      {notice && <p className="banner" role="status" data-testid="keys-notice">{notice}</p>}
      {keys && keys.length === 0 && <div className="empty"><p>{T.empty}</p></div>}
      {keys && keys.length > 0 && (
        <table className="table keys-table" aria-labelledby="keys-h">
          <thead>
            <tr><th>{T.cols.name}</th><th>{T.cols.type}</th><th>{T.cols.fingerprint}</th><th>{T.cols.installed}</th><th>{T.cols.created}</th><th /></tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.name} data-testid={`key-${k.name}`}>
                <td>{k.name}</td>
                <td className="mono">{k.type}</td>
                <td className="mono fingerprint" data-testid="key-fingerprint">{k.fingerprint}</td>
                <td data-testid="key-installed">{k.installedOn.length ? k.installedOn.join(', ') : <span className="muted">{T.nowhere}</span>}</td>
                <td>{created(k.createdAt)}</td>
                <td className="actions">
                  <button onClick={() => void copy(k)} data-testid="key-copy">{copied?.name === k.name ? (copied.ok ? T.copied : T.copyFailed) : T.copy}</button>
                  <button className="danger" onClick={() => setRemoving(k)} data-testid="key-remove">{T.remove}</button>
                  <details>
                    <summary>{T.showPublic}</summary>
                    <code className="mono public-key" data-testid="key-public">{k.publicKey}</code>
                  </details>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {removing && (
        <RemoveKeyDialog
          keyView={removing}
          profiles={state.profiles}
          onDone={async (msg) => { setRemoving(null); if (msg) setNotice(msg); await reload(); await state.reloadProfiles(); }}
        />
      )}
    </section>
  );
}

function RemoveKeyDialog(props: { keyView: KeyView; profiles: Profile[]; onDone(msg: string | null): void }) {
  const api = useApi();
  const k = props.keyView;
  const [from, setFrom] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const users = props.profiles.filter((p) => p.auth.kind === 'keychain-key' && p.auth.key === k.name);
  const remove = async () => {
    setBusy(true);
    setError(null);
    try {
      // The person has been told which servers switch to automatic sign-in: that is the confirmation.
      const r = await api.invoke('keys.remove', { name: k.name, force: users.length > 0, ...(from ? { fromProfileId: from } : {}) });
      props.onDone(T.removed(k.name, r.server?.label ?? null, r.server?.removed ?? false));
    } catch (e) {
      setError(errorLine(e));
      setBusy(false);
    }
  };
  return (
    <Dialog title={T.removeTitle(k.name)} onCancel={() => props.onDone(null)} testId="remove-key">
      <p>{T.removeText}</p>
      {users.length > 0 && <p className="warn-text">{T.usedBy(users.map((p) => p.name).join(', '))}</p>}
      <label>{T.alsoFrom}
        <select value={from} onChange={(e) => setFrom(e.target.value)} data-testid="remove-key-from">
          <option value="">{T.noServer}</option>
          {props.profiles.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
        </select>
      </label>
      {error && <p className="banner error" role="alert" data-testid="remove-key-error">{error}</p>}
      <div className="dialog-actions">
        <button onClick={() => props.onDone(null)} disabled={busy}>{T.cancel}</button>
        <button className="danger" onClick={() => void remove()} disabled={busy} data-testid="remove-key-go">{T.remove}</button>
      </div>
    </Dialog>
  );
}
