import { useEffect, useState } from 'react';
import type { SetupPlanView, SetupProgress, SetupResultView, SetupStepStatus, SetupStepView } from '../../shared/models';
import { useApi, useEvent } from '../app/api';
import { Trans, useTranslation } from 'react-i18next';
import { useErrorLine } from '../i18n/errors';
import { usePlanText } from '../i18n/planText';
import { keepWizard, lastWizard } from './lastPlans';
import en from '../i18n/locales/en/setup';

type Phase = 'idle' | 'review' | 'sudo' | 'running' | 'result';

type Plan = SetupPlanView & { planId: string };
/** A failed run shown again for Retry: core's new id for the same plan, and the step it runs from. */
interface RetryOf { planId: string; fromStepId: string }

/** Plan review (every command and why) → sudo password → per-step progress with its log → result. */
export function SetupWizard({ connectionId, onFinished }: { connectionId: string; onFinished(): void }) {
  const api = useApi();
  const { t } = useTranslation(['setup', 'common']);
  const errorLine = useErrorLine();
  const planText = usePlanText();
  // What this page showed when the person left it (the server page unmounts on every trip away).
  const [was] = useState(() => lastWizard(connectionId));
  const [phase, setPhase] = useState<Phase>(was?.phase ?? 'idle');
  const [plan, setPlan] = useState<Plan | null>(was?.plan ?? null);
  const [error, setError] = useState<string | null>(null);
  const [consent, setConsent] = useState(was?.consent ?? false);
  const [sudo, setSudo] = useState('');
  const [runId, setRunId] = useState('');
  const [status, setStatus] = useState<Record<string, SetupStepStatus>>(was?.status ?? {});
  const [logs, setLogs] = useState<Record<string, string>>({});
  const [result, setResult] = useState<SetupResultView | null>(was?.result ?? null);
  const [mirror, setMirror] = useState(was?.options.mirror ?? '');
  const [allowUnverified, setAllowUnverified] = useState(was?.options.allowUnverified ?? false);
  const [desktop, setDesktop] = useState<'xfce' | 'openbox'>(was?.options.desktop ?? 'xfce');
  // auto: core chooses (into the home where the account has no sudo, as the CLI); home: there where sudo exists too; system: /opt with sudo.
  const [where, setWhere] = useState<'auto' | 'home' | 'system'>(was?.options.where ?? 'auto');
  const [transfers, setTransfers] = useState<Record<string, { bytes: number; total: number }>>({});
  const [retry, setRetry] = useState<RetryOf | null>(null);
  // Kept for the next visit: the plan under review, or the last result (a run in progress is kept once it ends).
  useEffect(() => {
    if (phase === 'running' || phase === 'sudo') return;
    keepWizard(connectionId, plan && (phase === 'review' || (phase === 'result' && result))
      ? { phase, plan, consent, options: { desktop, mirror, allowUnverified, where }, ...(phase === 'result' && result ? { result, status } : {}) }
      : null);
  }, [connectionId, phase, plan, consent, desktop, mirror, allowUnverified, where, result, status]);
  // The same choices go with the review and the run: core makes the plan again from them.
  const options = { windowManager: desktop, ...(mirror.trim() ? { packagesFrom: mirror.trim() } : {}), ...(allowUnverified ? { allowUnverified } : {}), ...(where === 'auto' ? {} : { userInstall: where === 'home' }) };

  useEvent('setup.progress', (p: SetupProgress) => {
    if (p.runId !== runId) return;
    setStatus((s) => ({ ...s, [p.stepId]: p.status }));
    if (p.transfer) setTransfers((x) => ({ ...x, [p.stepId]: p.transfer! }));
    if (p.output || p.message) setLogs((l) => ({ ...l, [p.stepId]: ((l[p.stepId] ?? '') + (p.output ?? `${p.message}\n`)).slice(-20_000) }));
  });

  const load = async () => {
    setError(null);
    try {
      setPlan(await api.invoke('setup.plan', { connectionId, options }));
      setPhase('review');
    } catch (e) {
      setError(errorLine(e));
    }
  };
  const stepTitle = (id: string) => {
    const s = plan?.steps.find((x) => x.id === id);
    return s ? planText.step(s).title : id;
  };
  const review = plan?.review;
  const isDone = (id: string) => review?.status[id] === 'done';
  // A step still to do (a retry: from the failed one on) that needs root.
  const fromIndex = retry && plan ? Math.max(0, plan.steps.findIndex((s) => s.id === retry.fromStepId)) : 0;
  const needsRoot = plan?.steps.slice(fromIndex).some((s) => s.needsRoot && !isDone(s.id)) ?? false;
  // Asked only where sudo itself would ask: a plan made by an older core has no review, and asks as before.
  const needsPassword = needsRoot && (!review || review.sudo === 'password');
  const reasonText = (s: SetupStepView): string | null => {
    const r = review?.reasons[s.id];
    if (!r) return null;
    return r.key in en.reasons ? (t as unknown as (k: string, v: Record<string, string>) => string)(`reasons.${r.key}`, r.params) : r.text;
  };
  const run = async (password: string | null) => {
    const id = `run-${Date.now().toString(36)}`;
    const again = retry;
    setRunId(id);
    // A retry shows the steps before the failed one as they finished; the run starts at the failed one.
    const before = again && plan ? plan.steps.slice(0, plan.steps.findIndex((s) => s.id === again.fromStepId)).map((s) => s.id) : [];
    setStatus((st) => Object.fromEntries(before.map((sid) => [sid, st[sid] ?? 'done'])));
    setLogs((l) => Object.fromEntries(before.filter((sid) => l[sid]).map((sid) => [sid, l[sid]])));
    setTransfers({});
    setResult(null);
    setPhase('running');
    try {
      const r = await api.invoke('setup.apply', { connectionId, runId: id, sudoPassword: password, planId: again?.planId ?? plan!.planId, ...(again ? { fromStepId: again.fromStepId } : {}) });
      setResult(r);
    } catch (e) {
      // Kept as core sent it: the result line translates it by its code.
      const x = e as { code?: string; message?: string; fix?: string };
      setResult({ ok: false, steps: [], error: { code: x.code ?? 'INTERNAL', message: x.message ?? String(e), ...(x.fix ? { fix: x.fix } : {}) } });
    } finally {
      setSudo('');
      setRetry(null);
      setPhase('result');
      onFinished();
    }
  };
  const retryFailed = () => {
    if (!result?.retryPlanId || !plan) return;
    const from = result.error?.stepId ?? plan.steps.find((s) => status[s.id] !== 'done' && status[s.id] !== 'skipped')?.id ?? plan.steps[0].id;
    setRetry({ planId: result.retryPlanId, fromStepId: from });
    setPhase('sudo');
  };

  return (
    <div className="wizard" data-testid="setup-wizard">
      <ol className="wizard-steps" aria-label={t('stepsAria')}>
        {(['review', 'sudo', 'running', 'result'] as const).map((p, i) => <li key={p} aria-current={phase === p ? 'step' : undefined}>{t('phaseItem', { n: i + 1, label: t(`phases.${p === 'sudo' && plan && !needsPassword ? 'confirm' : p}`) })}</li>)}
      </ol>
      {error && <p className="banner error" role="alert">{error}</p>}
      {phase === 'idle' && (
        <div>
          <p>{t('intro')}</p>
          <details className="plan-options" data-testid="setup-options">
            <summary>{t('options')}</summary>
            <label>{t('desktop')}
              <select data-testid="setup-desktop" value={desktop} onChange={(e) => setDesktop(e.target.value as 'xfce' | 'openbox')}>
                <option value="xfce">{t('xfce')}</option>
                <option value="openbox">{t('openbox')}</option>
              </select>
            </label>
            <label>{t('mirror')}
              <input type="url" data-testid="setup-mirror" placeholder="https://mirror.example.org/gpu-packages" value={mirror} onChange={(e) => setMirror(e.target.value)} aria-describedby="mirror-help" />
            </label>
            <p id="mirror-help" className="muted small"><Trans t={t} i18nKey="mirrorHelp" components={{ code: <code /> }} /></p>
            <label className="check"><input type="checkbox" checked={allowUnverified} onChange={(e) => setAllowUnverified(e.target.checked)} /> {t('unverified')}</label>
            <label>{t('where')}
              <select data-testid="setup-where" value={where} onChange={(e) => setWhere(e.target.value as 'auto' | 'home' | 'system')} aria-describedby="user-install-help">
                <option value="auto">{t('whereAuto')}</option>
                <option value="home">{t('userInstall')}</option>
                <option value="system">{t('whereSystem')}</option>
              </select>
            </label>
            <p id="user-install-help" className="muted small">{t('userInstallHelp')}</p>
          </details>
          <button className="primary" data-testid="setup-make-plan" onClick={load}>{t('makePlan')}</button>
        </div>
      )}
      {phase === 'review' && plan && (
        <div>
          <p><Trans t={t} i18nKey="summary" count={plan.steps.length} values={{ distro: plan.distro, backend: t(`backend.${plan.backend}`) }} components={{ strong: <strong /> }} /></p>
          <ol className="plan">
            {plan.steps.map((s) => ({ s, text: planText.step(s) })).map(({ s, text }) => (
              <li key={s.id} data-testid={`plan-step-${s.id}`} className={isDone(s.id) ? 'st-skipped' : undefined} data-state={review?.status[s.id]}>
                <h3>{isDone(s.id) && <span className="step-status">{t('status.willSkip')}</span>} {text.title}{s.needsRoot && <span className="badge">{t('root')}</span>}</h3>
                {reasonText(s) && <p className={isDone(s.id) ? 'muted' : undefined} data-testid={`plan-reason-${s.id}`}><strong>{reasonText(s)}</strong></p>}
                <p>{text.why}</p>
                <details><summary>{t('commands')}</summary>
                  <p className="muted small">{t('check')}</p><pre className="mono">{s.check}</pre>
                  <p className="muted small">{t('apply')}</p><pre className="mono">{s.apply}</pre>
                </details>
              </li>
            ))}
          </ol>
          {planText.notes(plan).map((n) => <p key={n} className="muted">{n}</p>)}
          {plan.carried && <p className="muted" data-testid="setup-carried">{t('carried')}</p>}
          <label className="check"><input type="checkbox" data-testid="setup-consent" checked={consent} onChange={(e) => setConsent(e.target.checked)} /> {t('consent')}</label>
          <div className="dialog-actions">
            <button onClick={() => setPhase('idle')}>{t('common:actions.back')}</button>
            <button className="primary" data-testid="setup-continue" disabled={!consent} onClick={() => setPhase('sudo')}>{t('common:actions.continue')}</button>
          </div>
        </div>
      )}
      {phase === 'sudo' && (
        <form className="form" onSubmit={(e) => { e.preventDefault(); void run(needsPassword ? sudo || null : null); }}>
          {/* Asked only where sudo would ask: where no step still to do needs root, or sudo needs no password, this is the last look before it runs. */}
          {retry && <p data-testid="setup-retry-from">{t('retryFrom', { step: stepTitle(retry.fromStepId) })}</p>}
          {needsPassword ? (
            <>
              <p><Trans t={t} i18nKey="sudoText" components={{ code: <code /> }} /></p>
              <label>{t('sudoPassword')}<input type="password" data-testid="setup-sudo-password" autoComplete="off" value={sudo} onChange={(e) => setSudo(e.target.value)} autoFocus /></label>
            </>
          ) : <p data-testid="setup-no-password">{needsRoot ? t(review?.sudo === 'root' ? 'asRootText' : 'passwordlessText') : t(plan?.steps.some((s) => s.needsRoot) ? 'rootDoneText' : 'noRootText')}</p>}
          <div className="dialog-actions">
            <button type="button" onClick={() => { if (retry) { setRetry(null); setPhase('result'); } else setPhase('review'); }}>{t('common:actions.back')}</button>
            <button type="submit" className="primary" data-testid="setup-apply">{t('applyPlan')}</button>
          </div>
        </form>
      )}
      {(phase === 'running' || phase === 'result') && plan && (
        <div>
          {phase === 'running' && <p role="status" className="progress">{t('applying')}</p>}
          {phase === 'running' && (
            <progress className="plan-progress" data-testid="setup-progress" aria-label={t('progressAria')} max={plan.steps.length}
              value={plan.steps.filter((s) => ['done', 'skipped', 'failed'].includes(status[s.id] ?? '')).length} />
          )}
          <ol className="plan progress-list">
            {plan.steps.map((s) => {
              const st = (status[s.id] as SetupStepStatus | undefined) ?? result?.steps.find((x) => x.id === s.id)?.status ?? 'pending';
              const title = planText.step(s).title;
              return (
                <li key={s.id} className={`st-${st}`} data-testid={`step-${s.id}`}>
                  <h3><span className="step-status">{t(`status.${st === 'not-run' ? 'notRun' : st}`)}</span> {title}</h3>
                  {transfers[s.id] && st === 'running' && (
                    <p className="small" data-testid={`transfer-${s.id}`}>
                      <progress max={transfers[s.id].total} value={transfers[s.id].bytes} aria-label={t('uploadAria', { step: title })} />{' '}
                      {t('uploading', { done: (transfers[s.id].bytes / 1e6).toFixed(1), total: (transfers[s.id].total / 1e6).toFixed(1) })}
                    </p>
                  )}
                  {(logs[s.id] || result?.steps.find((x) => x.id === s.id)?.output) && <pre className="mono log" aria-label={t('outputOf', { step: title })}>{logs[s.id] || result?.steps.find((x) => x.id === s.id)?.output}</pre>}
                </li>
              );
            })}
          </ol>
          {result && (result.ok
            ? <p className="banner ok" role="status" data-testid="setup-result" data-ok="true">{t('done', { applied: result.steps.filter((s) => s.status === 'applied').length, skipped: result.steps.filter((s) => s.status === 'skipped').length })}</p>
            : <p className="banner error" role="alert" data-testid="setup-result" data-ok="false">{result.error?.stepId ? t('stoppedAt', { step: stepTitle(result.error.stepId), error: errorLine(result.error) }) : t('stopped', { error: errorLine(result.error) })}</p>)}
          {phase === 'result' && (
            <div className="dialog-actions">
              {result && !result.ok && result.retryPlanId && <button className="primary" data-testid="setup-retry" onClick={retryFailed}>{t('retry')}</button>}
              <button onClick={() => { setPhase('idle'); setResult(null); setConsent(false); setStatus({}); }}>{t('common:actions.close')}</button>
            </div>
          )}
        </div>
      )}
    </div>
  );
}
