import { useState } from 'react';
import { useTranslation } from 'react-i18next';

const KEY = (profileId: string) => `gpu-desk.cluster.reviewed.${profileId}`;

/** The job script the user last agreed to for this cluster (this window's storage; never a secret). */
export function reviewedScript(profileId: string): string | null {
  try {
    return localStorage.getItem(KEY(profileId));
  } catch {
    return null;
  }
}

/**
 * The sbatch line and the job script, in full, before it first runs on the cluster under the user's
 * name (like the set-up plan's review): Submit stays disabled until the user says they read it.
 */
export function ScriptReview(props: { profileId: string; script: string; busy: boolean; onSubmit(): void; onBack(): void }) {
  const { t } = useTranslation(['cluster', 'common']);
  const [consent, setConsent] = useState(false);
  const [head, ...body] = props.script.split('\n');
  return (
    <div className="panel script-review" data-testid="job-review">
      <h2>{t('review.title')}</h2>
      <p>{t('review.text')}</p>
      <p className="muted small">{t('review.command')}</p>
      <pre className="mono" data-testid="job-sbatch">{head}</pre>
      <p className="muted small">{t('review.script')}</p>
      <pre className="mono job-script" data-testid="job-script">{body.join('\n')}</pre>
      <label className="check"><input type="checkbox" data-testid="job-consent" checked={consent} onChange={(e) => setConsent(e.target.checked)} /> {t('review.consent')}</label>
      <div className="dialog-actions">
        <button onClick={props.onBack}>{t('common:actions.back')}</button>
        <button
          className="primary"
          data-testid="job-submit"
          disabled={!consent || props.busy}
          onClick={() => {
            try { localStorage.setItem(KEY(props.profileId), props.script); } catch { /* storage full or off: asked again next time */ }
            props.onSubmit();
          }}
        >
          {props.busy ? t('review.submitting') : t('review.submit')}
        </button>
      </div>
    </div>
  );
}
