import { useState } from 'react';
import { useTranslation } from 'react-i18next';


/** Offered, not forced: the commands are shown on request and never run by gpu-desk. */
export function PasswordOffCommands({ commands }: { commands: string[] }) {
  const { t } = useTranslation('keys');
  const [open, setOpen] = useState(false);
  return (
    <div className="password-off">
      <button type="button" className="link" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="show-password-off">{open ? t('passwordOff.hide') : t('passwordOff.offer')}</button>
      {open && (
        <>
          <p className="muted">{t('passwordOff.explain')}</p>
          <pre className="mono" data-testid="password-off-commands">{commands.join('\n')}</pre>
        </>
      )}
    </div>
  );
}
