import { useCallback, useEffect, useState } from 'react';
import type { CertificateView, KeyView, Profile } from '../../shared/models';
import { useReloadProfiles } from '../app/navigation';
import { useApi } from '../app/api';
import { useErrorLine } from '../i18n/errors';
import { Dialog } from '../app/Dialog';
import { useTranslation } from 'react-i18next';
import { useFormat } from '../i18n/useFormat';


/** Lists, generates, imports and removes keychain keys; installing one is on the server page. */
export function KeysScreen({ profiles }: { profiles: Profile[] }) {
  const api = useApi();
  const reloadProfiles = useReloadProfiles();
  const { t } = useTranslation('keys');
  const errorLine = useErrorLine();
  const fmt = useFormat();
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
  }, [api, errorLine]);
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
  // Without a name nothing can be made (servers and the CLI refer to a key by it): say so, rather than
  // a browser bubble that Electron may not show.
  const nameMissing = (): boolean => {
    if (name.trim()) return false;
    setNotice(null);
    setError(t('nameMissing'));
    document.querySelector<HTMLInputElement>('[data-testid="key-name"]')?.focus();
    return true;
  };
  const generate = () => nameMissing() ? undefined : run(async () => {
    const k = await api.invoke('keys.generate', { name: name.trim() });
    setName('');
    return t('generated', { name: k.name });
  });
  const importFile = () => run(async () => {
    const k = await api.invoke('keys.importFile', { name: name.trim() });
    if (!k) return null;
    setName('');
    return t('imported', { name: k.name });
  });
  const certificate = (k: KeyView, detach: boolean) => run(async () => {
    const v = await api.invoke('keys.certificate', { name: k.name, detach });
    if (!v) return null;
    return v.certificate ? t('certificate.attached', { name: k.name, file: v.certificate.file }) : t('certificate.detached', { name: k.name });
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
          <h1 id="keys-h">{t('heading')}</h1>
          <p className="muted">{t('intro')}</p>
        </div>
      </div>
      <form className="form inline" noValidate onSubmit={(e) => { e.preventDefault(); void generate(); }}>
        <label>{t('name')}<input value={name} onChange={(e) => { setName(e.target.value); if (e.target.value.trim()) setError(null); }} required placeholder="laptop-2026" data-testid="key-name" aria-describedby={name.trim() ? undefined : 'key-name-hint'} /></label>
        <button type="submit" className="primary" disabled={busy} data-testid="key-generate">{t('generate')}</button>
        <button type="button" disabled={busy || !name.trim()} title={name.trim() ? undefined : t('nameFirst')} onClick={() => void importFile()} data-testid="key-import">{t('importFile')}</button>
      </form>
      {!name.trim() && <p id="key-name-hint" className="muted small" data-testid="key-name-hint">{t('nameFirst')}</p>}
      {error && <p className="banner error" role="alert" data-testid="keys-error">{error}</p>}
      {notice && <p className="banner" role="status" data-testid="keys-notice">{notice}</p>}
      {keys && keys.length === 0 && <div className="empty"><p>{t('empty')}</p></div>}
      {keys && keys.length > 0 && (
        <table className="table keys-table" aria-labelledby="keys-h">
          <thead>
            <tr><th>{t('cols.name')}</th><th>{t('cols.type')}</th><th>{t('cols.fingerprint')}</th><th>{t('cols.installed')}</th><th>{t('cols.created')}</th><th /></tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.name} data-testid={`key-${k.name}`}>
                <td>{k.name}{k.certificate && <CertificateLine c={k.certificate} />}</td>
                <td className="mono">{k.type}</td>
                <td className="mono fingerprint" data-testid="key-fingerprint">{k.fingerprint}</td>
                <td data-testid="key-installed">{k.installedOn.length ? k.installedOn.join(', ') : <span className="muted">{t('nowhere')}</span>}</td>
                <td>{fmt.dateTime(new Date(k.createdAt))}</td>
                <td className="actions">
                  <button onClick={() => void copy(k)} data-testid="key-copy">{copied?.name === k.name ? (copied.ok ? t('copied') : t('copyFailed')) : t('copy')}</button>
                  <button disabled={busy} onClick={() => void certificate(k, false)} data-testid="key-certificate">{k.certificate ? t('certificate.change') : t('certificate.attach')}</button>
                  {k.certificate && <button disabled={busy} onClick={() => void certificate(k, true)} data-testid="key-certificate-detach">{t('certificate.detach')}</button>}
                  <button className="danger" onClick={() => setRemoving(k)} data-testid="key-remove">{t('remove')}</button>
                  <details>
                    <summary>{t('showPublic')}</summary>
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
          profiles={profiles}
          onDone={async (msg) => { setRemoving(null); if (msg) setNotice(msg); await reload(); await reloadProfiles(); }}
        />
      )}
    </section>
  );
}

function RemoveKeyDialog(props: { keyView: KeyView; profiles: Profile[]; onDone(msg: string | null): void }) {
  const api = useApi();
  const { t } = useTranslation('keys');
  const errorLine = useErrorLine();
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
      props.onDone(!r.server ? t('removed', { name: k.name }) : r.server.removed ? t('removedFrom', { name: k.name, server: r.server.label }) : t('removedNotOn', { name: k.name, server: r.server.label }));
    } catch (e) {
      setError(errorLine(e));
      setBusy(false);
    }
  };
  return (
    <Dialog title={t('removeTitle', { name: k.name })} onCancel={() => props.onDone(null)} testId="remove-key">
      <p>{t('removeText')}</p>
      {users.length > 0 && <p className="warn-text">{t('usedBy', { names: users.map((p) => p.name).join(', ') })}</p>}
      <label>{t('alsoFrom')}
        <select value={from} onChange={(e) => setFrom(e.target.value)} data-testid="remove-key-from">
          <option value="">{t('noServer')}</option>
          {props.profiles.map((p) => <option key={p.id} value={p.id}>{p.name}</option>)}
        </select>
      </label>
      {error && <p className="banner error" role="alert" data-testid="remove-key-error">{error}</p>}
      <div className="dialog-actions">
        <button onClick={() => props.onDone(null)} disabled={busy}>{t('cancel')}</button>
        <button className="danger" onClick={() => void remove()} disabled={busy} data-testid="remove-key-go">{t('remove')}</button>
      </div>
    </Dialog>
  );
}

/** The key's certificate: its principals and until when it is valid, or why it is not offered. */
function CertificateLine({ c }: { c: CertificateView }) {
  const { t } = useTranslation('keys');
  const fmt = useFormat();
  const who = c.principals.length ? t('certificate.principals', { list: c.principals.join(', ') }) : t('certificate.anyPrincipal');
  const until = c.validBefore ? t('certificate.until', { when: fmt.dateTime(new Date(c.validBefore)) }) : t('certificate.noExpiry');
  return (
    <span className={`certificate-line${c.problem ? ' error' : ''}`} data-testid="key-cert" data-cert-valid-before={c.validBefore ?? ''} title={c.file}>
      {c.problem ? t('certificate.problem', { why: c.problem }) : t('certificate.line', { who, until })}
    </span>
  );
}
