import { useEffect, useState } from 'react';
import type { KeyInstallView, KeyView, Profile } from '../../shared/models';
import { errorLine, useApi } from '../app/api';
import { Dialog } from '../app/Dialog';
import { useTranslation } from 'react-i18next';
import { PasswordOffCommands } from './PasswordOffCommands';


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
  const { t } = useTranslation('keys');
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
    <Dialog title={t('install.title', { server })} onCancel={() => props.onClose(result)} wide testId="install-key">
      {!result ? (
        <form className="form" onSubmit={(e) => { e.preventDefault(); void install(); }}>
          <p>{t('install.intro')}</p>
          <label>{t('install.key')}
            <select value={choice} onChange={(e) => setChoice(e.target.value)} data-testid="install-key-choice" disabled={busy}>
              <option value="new">{t('install.newKey')}</option>
              {(keys ?? []).map((k) => <option key={k.name} value={k.name}>{k.name} ({k.fingerprint})</option>)}
            </select>
          </label>
          {choice === 'new' && <label>{t('install.newKeyName')}<input value={newName} onChange={(e) => setNewName(e.target.value)} required data-testid="install-key-name" disabled={busy} /></label>}
          {busy && <p className="muted" role="status">{t('install.busy')}</p>}
          {error && <p className="banner error" role="alert" data-testid="install-key-error">{error}</p>}
          <div className="dialog-actions">
            <button type="button" onClick={() => props.onClose(null)} disabled={busy}>{t('install.notNow')}</button>
            <button type="submit" className="primary" disabled={busy || keys === null} data-testid="install-key-go">{t('install.go')}</button>
          </div>
        </form>
      ) : (
        <div data-testid="install-result" data-key-login={result.keyLoginOk ? 'ok' : 'failed'} data-switched={String(result.profileSwitched)} data-added={String(result.added)}>
          <p>{t(result.added ? 'install.added' : 'install.present', { key: result.key, server: result.server })}</p>
          {result.keyLoginOk ? <p>{t('install.loginOk')} {result.profileSwitched && t('install.switched', { name: server })}</p> : <p className="banner error" role="alert">{t('install.loginFailed', { why: result.keyLoginError ?? '' })}</p>}
          {result.keyLoginOk && <PasswordOffCommands commands={result.passwordOffCommands} />}
          <div className="dialog-actions">
            <button className="primary" onClick={() => props.onClose(result)} data-testid="install-key-close">{t('install.close')}</button>
          </div>
        </div>
      )}
    </Dialog>
  );
}
