import { useState } from 'react';
import { useTranslation } from 'react-i18next';

const KEY = (profileId: string) => `gpu-desk.cluster.reviewed.${profileId}`;
/** Scripts kept per cluster: switching between a few settings does not ask again for each. */
const KEEP = 20;

function consented(profileId: string): string[] {
  try {
    const v: unknown = JSON.parse(localStorage.getItem(KEY(profileId)) ?? '[]');
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
  } catch {
    return [];
  }
}

/** Whether the user already agreed to this exact script for this cluster (this window's storage; never a secret). */
export function wasReviewed(profileId: string, script: string): boolean {
  return consented(profileId).includes(script);
}

function remember(profileId: string, script: string): void {
  try {
    localStorage.setItem(KEY(profileId), JSON.stringify([script, ...consented(profileId).filter((x) => x !== script)].slice(0, KEEP)));
  } catch { /* storage full or off: asked again next time */ }
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
            remember(props.profileId, props.script);
            props.onSubmit();
          }}
        >
          {props.busy ? t('review.submitting') : t('review.submit')}
        </button>
      </div>
    </div>
  );
}
