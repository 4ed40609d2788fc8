import { useEffect, useState } from 'react';
import type { KeyInstallView, KeyView, Profile } from '../../shared/models';
import { errorLine, useApi } from '../app/api';
import { Dialog } from '../app/Dialog';
import { PasswordOffCommands } from './PasswordOffCommands';

// UI text in one place, for the message catalogues (issue 18).
const T = {
  title: (server: string) => `Sign in to ${server} with a key`,
  intro: 'gpu-desk puts a key on the server, checks that a login with only that key works, and from then on signs in with it. If the server asks for your password, you type it once; it is not stored unless the server\'s "Remember the password" is ticked.',
  keyLabel: 'Key',
  newKey: 'A new ed25519 key',
  newKeyName: 'New key name',
  install: 'Install the key',
  installing: 'Installing… (answer the server\'s questions if it asks)',
  notNow: 'Not now',
  close: 'Close',
  added: (key: string, server: string) => `Added "${key}" to ~/.ssh/authorized_keys on ${server}.`,
  present: (key: string, server: string) => `"${key}" was already in ~/.ssh/authorized_keys on ${server}; nothing was added.`,
  loginOk: 'A login with only this key worked.',
  switched: (name: string) => `${name} now signs in with the key.`,
  loginFailed: (why: string) => `The key is on the server, but a login with it failed: ${why}. The server still signs in as before. Check the server's sshd (PubkeyAuthentication, AuthorizedKeysFile, StrictModes, ownership of ~/.ssh).`,
};

/** A key name from the server's name: the same rules (letters, digits, . _ -), at most 64 long. */
function defaultKeyName(profile: Profile, taken: string[]): string {
  const base = `${profile.name}-key`.slice(0, 60);
  let n = base;
  for (let i = 2; taken.includes(n); i++) n = `${base}-${i}`;
  return n;
}

/**
 * "Use keys, turn password login off" as one button: from the server page, or right after adding a
 * server that signs in with a password.
 */
export function InstallKeyDialog(props: { profile: Profile; onClose(result: KeyInstallView | null): void }) {
  const api = useApi();
  const [keys, setKeys] = useState<KeyView[] | null>(null);
  const [choice, setChoice] = useState<string>('new');
  const [newName, setNewName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [result, setResult] = useState<KeyInstallView | null>(null);

  useEffect(() => {
    void api.invoke('keys.list', {}).then(
      (ks) => {
        setKeys(ks);
        setNewName(defaultKeyName(props.profile, ks.map((k) => k.name)));
      },
      (e) => setError(errorLine(e)),
    );
  }, [api, props.profile]);

  const install = async () => {
    setBusy(true);
    setError(null);
    try {
      const name = choice === 'new' ? (await api.invoke('keys.generate', { name: newName.trim() })).name : choice;
      if (choice === 'new') setChoice(name);
      setResult(await api.invoke('keys.install', { name, profileId: props.profile.id }));
    } catch (e) {
      setError(errorLine(e));
    } finally {
      setBusy(false);
    }
  };

  const server = props.profile.name;
  return (
    <Dialog title={T.title(server)} onCancel={() => props.onClose(result)} wide testId="install-key">
      {!result ? (
        <form className="form" onSubmit={(e) => { e.preventDefault(); void install(); }}>
          <p>{T.intro}</p>
          <label>{T.keyLabel}
            <select value={choice} onChange={(e) => setChoice(e.target.value)} data-testid="install-key-choice" disabled={busy}>
              <option value="new">{T.newKey}</option>
              {(keys ?? []).map((k) => <option key={k.name} value={k.name}>{k.name} ({k.fingerprint})</option>)}
            </select>
          </label>
          {choice === 'new' && <label>{T.newKeyName}<input value={newName} onChange={(e) => setNewName(e.target.value)} required data-testid="install-key-name" disabled={busy} /></label>}
          {busy && <p className="muted" role="status">{T.installing}</p>}
          {error && <p className="banner error" role="alert" data-testid="install-key-error">{error}</p>}
          <div className="dialog-actions">
            <button type="button" onClick={() => props.onClose(null)} disabled={busy}>{T.notNow}</button>
            <button type="submit" className="primary" disabled={busy || keys === null} data-testid="install-key-go">{T.install}</button>
          </div>
        </form>
      ) : (
        <div data-testid="install-result" data-key-login={result.keyLoginOk ? 'ok' : 'failed'} data-switched={String(result.profileSwitched)} data-added={String(result.added)}>
          <p>{result.added ? T.added(result.key, result.server) : T.present(result.key, result.server)}</p>
          {result.keyLoginOk ? <p>{T.loginOk} {result.profileSwitched && T.switched(server)}</p> : <p className="banner error" role="alert">{T.loginFailed(result.keyLoginError ?? '')}</p>}
          {result.keyLoginOk && <PasswordOffCommands commands={result.passwordOffCommands} />}
          <div className="dialog-actions">
            <button className="primary" onClick={() => props.onClose(result)} data-testid="install-key-close">{T.close}</button>
          </div>
        </div>
      )}
    </Dialog>
  );
}
