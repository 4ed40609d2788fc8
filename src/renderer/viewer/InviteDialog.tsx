import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { ViewOnlyInviteView } from '../../shared/models';
import { useApi } from '../app/api';
import { Dialog } from '../app/Dialog';
import { useErrorLine } from '../i18n/errors';

/**
 * "Invite to watch…": a view-only one-time password for this TurboVNC desktop (vncpasswd -o -v on the
 * server), and exactly what the colleague runs with their own SSH login. Made only when asked: each
 * password lets one viewer in once.
 */
export function InviteDialog(props: { connectionId: string; display: number; onClose(): void }) {
  const api = useApi();
  const { t } = useTranslation(['viewer', 'common']);
  const errorLine = useErrorLine();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [invite, setInvite] = useState<ViewOnlyInviteView | null>(null);
  const make = async () => {
    setBusy(true);
    setError(null);
    try {
      setInvite(await api.invoke('sessions.invite', { connectionId: props.connectionId, display: props.display }));
    } catch (e) {
      setError(errorLine(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog title={t('invite.title', { display: props.display })} onCancel={props.onClose} testId="invite-dialog">
      <p>{t('invite.text')}</p>
      {error && <p className="banner error" role="alert">{error}</p>}
      {invite && (
        <div data-testid="invite-result">
          <p>{t('invite.step1')}</p>
          <pre data-testid="invite-command">{invite.command}</pre>
          <p className="small muted">{t('invite.login')}</p>
          <p>{t('invite.step2')}</p>
          <pre data-testid="invite-password">{invite.password}</pre>
          <p className="small" data-testid="invite-expiry">{t('invite.expiry')}</p>
        </div>
      )}
      <div className="dialog-actions">
        <button onClick={props.onClose}>{t('common:actions.close')}</button>
        <button className="primary" onClick={() => void make()} disabled={busy} data-testid="invite-make">{invite ? t('invite.another') : t('invite.make')}</button>
      </div>
    </Dialog>
  );
}
