import { useEffect, useState, type ReactNode } from 'react';
import type { SshConfigHost } from '../../shared/models';
import { useApi } from '../app/api';
import { useTranslation } from 'react-i18next';
import { useErrorLine } from '../i18n/errors';
import { Dialog } from '../app/Dialog';

export function ImportDialog(props: { onDone(): void; onCancel(): void }) {
  const api = useApi();
  const { t } = useTranslation(['servers', 'common']);
  const errorLine = useErrorLine();
  const [hosts, setHosts] = useState<SshConfigHost[] | null>(null);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [error, setError] = useState<ReactNode>(null);
  const [result, setResult] = useState<string | null>(null);

  useEffect(() => {
    api.invoke('profiles.sshConfigHosts', {}).then(
      (h) => { setHosts(h); setChosen(new Set(h.filter((x) => !x.exists).map((x) => x.alias))); },
      // Core's fix for an unreadable config is the CLI's (--file): here the user fixes the file itself.
      (e: { code?: string; message?: string }) => setError(e?.code === 'BAD_SSH_CONFIG'
        ? <>{t('import.unreadable')} <code>{e.message}</code></>
        : errorLine(e)),
    );
  }, [api, errorLine, t]);

  const run = async () => {
    try {
      const r = await api.invoke('profiles.importSshConfig', { aliases: [...chosen] });
      const skipped = r.skipped.length ? ` ${t('import.skipped', { list: r.skipped.map((s) => t('import.skippedOne', { name: s.name, reason: s.reason })).join(', ') })}` : '';
      setResult(`${t('import.imported', { count: r.added.length })}${skipped}${r.warnings.length ? ' ' + r.warnings.join(' ') : ''}`);
    } catch (e) {
      setError(errorLine(e));
    }
  };

  return (
    <Dialog title={t('import.title')} onCancel={props.onCancel} wide>
      {error && <p className="banner error" role="alert">{error}</p>}
      {!hosts && !error && <p role="status">{t('import.reading')}</p>}
      {hosts && hosts.length === 0 && <p>{t('import.none')}</p>}
      {hosts && hosts.length > 0 && !result && (
        <ul className="check-list">
          {hosts.map((h) => (
            <li key={h.alias}>
              <label className="check">
                <input type="checkbox" checked={chosen.has(h.alias)} disabled={h.exists} onChange={(e) => setChosen((s) => { const n = new Set(s); if (e.target.checked) n.add(h.alias); else n.delete(h.alias); return n; })} />
                <span><strong>{h.alias}</strong> <span className="muted">{h.user ? `${h.user}@` : ''}{h.host}:{h.port}{h.jumpHosts.length ? t('via', { hops: h.jumpHosts.join(' → ') }) : ''}{h.exists ? t('import.alreadySaved') : ''}</span></span>
              </label>
              {h.warnings.map((w) => <p key={w} className="muted small">{w}</p>)}
            </li>
          ))}
        </ul>
      )}
      {result && <p role="status">{result}</p>}
      <div className="dialog-actions">
        {result ? <button className="primary" onClick={props.onDone}>{t('common:actions.done')}</button> : (
          <>
            <button onClick={props.onCancel}>{t('common:actions.cancel')}</button>
            <button className="primary" disabled={!chosen.size} onClick={run}>{chosen.size ? t('import.run', { count: chosen.size }) : t('import.runNone')}</button>
          </>
        )}
      </div>
    </Dialog>
  );
}
