import { useState } from 'react';
import type { PromptRequest } from '../../shared/models';
import { useApi, useEvent } from '../app/api';
import { Trans, useTranslation } from 'react-i18next';
import { useErrorLine } from '../i18n/errors';
import { Dialog } from '../app/Dialog';

/**
 * Answers the questions a connection asks: unknown host key, key passphrase, password, 2FA.
 * Secrets typed here go straight to core in one call and are not kept in React state afterwards.
 */
export function PromptHost() {
  const api = useApi();
  const { t } = useTranslation(['prompts', 'common']);
  const errorLine = useErrorLine();
  const [queue, setQueue] = useState<PromptRequest[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEvent('prompt', (p) => setQueue((q) => [...q, p]));
  useEvent('prompt.cancel', ({ promptId }) => setQueue((q) => q.filter((x) => x.promptId !== promptId)));
  const current = queue[0];
  if (!current) return null;
  const done = () => setQueue((q) => q.slice(1));
  const send = async (answer: Parameters<typeof api.invoke<'prompts.answer'>>[1]['answer']) => {
    setError(null);
    try {
      await api.invoke('prompts.answer', { promptId: current.promptId, answer });
    } catch (e) {
      setError(errorLine(e));
    }
    done();
  };
  switch (current.kind) {
    case 'hostKey':
      return (
        <Dialog title={t('hostKey.title')} onCancel={() => send({ kind: 'hostKey', decision: 'reject' })} testId="host-key-prompt">
          <p>
            <Trans
              t={t}
              i18nKey="hostKey.first"
              values={{
                host: current.host,
                where: `${current.port !== 22 && !current.host.startsWith('[') ? t('hostKey.port', { port: current.port }) : ''}${current.hop > 0 ? t('hostKey.hop', { hop: current.hop + 1 }) : ''}`,
                command: `ssh-keygen -lf /etc/ssh/ssh_host_${keyFileType(current.keyType)}_key.pub`,
              }}
              components={{ strong: <strong />, code: <code className="nowrap" /> }}
            />
          </p>
          <dl className="kv">
            <dt>{t('hostKey.keyType')}</dt><dd>{current.keyType}</dd>
            <dt>{t('hostKey.fingerprint')}</dt><dd className="mono fingerprint" data-testid="fingerprint">{current.fingerprint}</dd>
          </dl>
          {error && <p className="banner error" role="alert">{error}</p>}
          <div className="dialog-actions">
            <button onClick={() => send({ kind: 'hostKey', decision: 'reject' })}>{t('common:actions.cancel')}</button>
            <button onClick={() => send({ kind: 'hostKey', decision: 'accept-once' })}>{t('hostKey.acceptOnce')}</button>
            <button className="primary" onClick={() => send({ kind: 'hostKey', decision: 'accept-save' })}>{t('hostKey.acceptSave')}</button>
          </div>
        </Dialog>
      );
    case 'passphrase':
    case 'password':
      return (
        <SecretDialog
          key={current.promptId}
          title={current.kind === 'password' ? t('passwordTitle', { user: current.user, host: current.host }) : t('passphraseTitle')}
          label={current.kind === 'password' ? t('password') : t('passphrase', { key: current.keyLabel })}
          onSubmit={(v) => send({ kind: 'secret', value: v })}
          onCancel={() => send({ kind: 'secret', value: null })}
        />
      );
    case 'keyboardInteractive':
      return <KbdDialog key={current.promptId} req={current} onSubmit={(v) => send({ kind: 'answers', values: v })} onCancel={() => send({ kind: 'answers', values: null })} />;
  }
}

function SecretDialog(props: { title: string; label: string; onSubmit(v: string): void; onCancel(): void }) {
  const { t } = useTranslation(['prompts', 'common']);
  const [v, setV] = useState('');
  return (
    <Dialog title={props.title} onCancel={props.onCancel} testId="secret-prompt">
      <form onSubmit={(e) => { e.preventDefault(); props.onSubmit(v); setV(''); }} className="form">
        <label>{props.label}<input type="password" autoComplete="off" value={v} onChange={(e) => setV(e.target.value)} autoFocus /></label>
        <div className="dialog-actions">
          <button type="button" onClick={props.onCancel}>{t('common:actions.cancel')}</button>
          <button type="submit" className="primary">{t('common:actions.continue')}</button>
        </div>
      </form>
    </Dialog>
  );
}

function KbdDialog(props: { req: Extract<PromptRequest, { kind: 'keyboardInteractive' }>; onSubmit(v: string[]): void; onCancel(): void }) {
  const { t } = useTranslation(['prompts', 'common']);
  const [vals, setVals] = useState(() => props.req.prompts.map(() => ''));
  return (
    <Dialog title={props.req.name || t('serverAsks')} onCancel={props.onCancel} testId="kbd-prompt">
      {props.req.instructions && <p>{props.req.instructions}</p>}
      <form onSubmit={(e) => { e.preventDefault(); props.onSubmit(vals); }} className="form">
        {props.req.prompts.map((p, i) => (
          <label key={i}>{p.prompt.replace(/:\s*$/, '')}
            <input type={p.echo ? 'text' : 'password'} autoComplete={p.echo ? 'one-time-code' : 'off'} value={vals[i]} autoFocus={i === 0}
              onChange={(e) => setVals((v) => v.map((x, j) => (j === i ? e.target.value : x)))} />
          </label>
        ))}
        <div className="dialog-actions">
          <button type="button" onClick={props.onCancel}>{t('common:actions.cancel')}</button>
          <button type="submit" className="primary">{t('common:actions.continue')}</button>
        </div>
      </form>
    </Dialog>
  );
}

function keyFileType(keyType: string): string {
  if (keyType.startsWith('ecdsa')) return 'ecdsa';
  return keyType.replace(/^ssh-/, '');
}
