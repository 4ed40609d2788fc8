import { useState } from 'react';
import type { SetupPlanView, SetupProgress, SetupResultView, SetupStepStatus } from '../../shared/models';
import { errorLine, useApi, useEvent } from '../app/api';

type Phase = 'idle' | 'review' | 'sudo' | 'running' | 'result';

/** Plan review (every command and why) → sudo password → per-step progress with its log → result. */
export function SetupWizard({ connectionId, onFinished }: { connectionId: string; onFinished(): void }) {
  const api = useApi();
  const [phase, setPhase] = useState<Phase>('idle');
  const [plan, setPlan] = useState<SetupPlanView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [consent, setConsent] = useState(false);
  const [sudo, setSudo] = useState('');
  const [runId, setRunId] = useState('');
  const [status, setStatus] = useState<Record<string, SetupStepStatus>>({});
  const [logs, setLogs] = useState<Record<string, string>>({});
  const [result, setResult] = useState<SetupResultView | null>(null);
  const [mirror, setMirror] = useState('');
  const [allowUnverified, setAllowUnverified] = useState(false);
  const [desktop, setDesktop] = useState<'xfce' | 'openbox'>('xfce');
  // The same choices go with the review and the run: core makes the plan again from them.
  const options = { windowManager: desktop, ...(mirror.trim() ? { packagesFrom: mirror.trim() } : {}), ...(allowUnverified ? { allowUnverified } : {}) };

  useEvent('setup.progress', (p: SetupProgress) => {
    if (p.runId !== runId) return;
    setStatus((s) => ({ ...s, [p.stepId]: p.status }));
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
  const needsRoot = plan?.steps.some((s) => s.needsRoot) ?? false;
  const run = async (password: string | null) => {
    const id = `run-${Date.now().toString(36)}`;
    setRunId(id);
    setStatus({});
    setLogs({});
    setPhase('running');
    try {
      const r = await api.invoke('setup.apply', { connectionId, runId: id, sudoPassword: password, options });
      setResult(r);
    } catch (e) {
      setResult({ ok: false, steps: [], error: { code: 'INTERNAL', message: errorLine(e) } });
    } finally {
      setSudo('');
      setPhase('result');
      onFinished();
    }
  };

  return (
    <div className="wizard" data-testid="setup-wizard">
      <ol className="wizard-steps" aria-label="Set-up steps">
        {(['review', 'sudo', 'running', 'result'] as const).map((p, i) => <li key={p} aria-current={phase === p ? 'step' : undefined}>{i + 1}. {{ review: 'Review the plan', sudo: 'Administrator password', running: 'Apply', result: 'Result' }[p]}</li>)}
      </ol>
      {error && <p className="banner error" role="alert">{error}</p>}
      {phase === 'idle' && (
        <div>
          <p>gpu-desk works out what this server needs for GPU-rendered desktops (VirtualGL, a VNC server, a window manager, safe VNC defaults) and shows you every command before anything runs.</p>
          <details className="plan-options" data-testid="setup-options">
            <summary>Options</summary>
            <label>Desktop to install if the server has none
              <select data-testid="setup-desktop" value={desktop} onChange={(e) => setDesktop(e.target.value as 'xfce' | 'openbox')}>
                <option value="xfce">Xfce (a light, complete desktop)</option>
                <option value="openbox">Openbox (a minimal window manager)</option>
              </select>
            </label>
            <label>Package mirror (optional)
              <input type="url" data-testid="setup-mirror" placeholder="https://mirror.example.org/gpu-packages" value={mirror} onChange={(e) => setMirror(e.target.value)} aria-describedby="mirror-help" />
            </label>
            <p id="mirror-help" className="muted small">A directory with the VirtualGL and TurboVNC packages under their upstream names and a <code>SHA256SUMS</code> file. Empty: GitHub's releases, checked against GitHub's digests.</p>
            <label className="check"><input type="checkbox" checked={allowUnverified} onChange={(e) => setAllowUnverified(e.target.checked)} /> Install a package even when there is no checksum to check it against (it is marked unverified in the plan)</label>
          </details>
          <button className="primary" data-testid="setup-make-plan" onClick={load}>Make the plan</button>
        </div>
      )}
      {phase === 'review' && plan && (
        <div>
          <p>{plan.steps.length} step{plan.steps.length === 1 ? '' : 's'} for {plan.distro}, rendering back end <strong>{plan.backend.toUpperCase()}</strong>. Steps already done on the server are checked and skipped.</p>
          <ol className="plan">
            {plan.steps.map((s) => (
              <li key={s.id}>
                <h3>{s.title}{s.needsRoot && <span className="badge">root</span>}</h3>
                <p>{s.why}</p>
                <details><summary>Commands</summary>
                  <p className="muted small">Check (already done when it succeeds):</p><pre className="mono">{s.check}</pre>
                  <p className="muted small">Apply:</p><pre className="mono">{s.apply}</pre>
                </details>
              </li>
            ))}
          </ol>
          {plan.notes.map((n) => <p key={n} className="muted">{n}</p>)}
          <label className="check"><input type="checkbox" data-testid="setup-consent" checked={consent} onChange={(e) => setConsent(e.target.checked)} /> I have reviewed these commands and want gpu-desk to run them on this server.</label>
          <div className="dialog-actions">
            <button onClick={() => setPhase('idle')}>Back</button>
            <button className="primary" data-testid="setup-continue" disabled={!consent} onClick={() => (needsRoot ? setPhase('sudo') : run(null))}>Continue</button>
          </div>
        </div>
      )}
      {phase === 'sudo' && (
        <form className="form" onSubmit={(e) => { e.preventDefault(); void run(sudo || null); }}>
          <p>Some steps need root. The password goes to <code>sudo -S</code> on the server for this run only; it is never saved or logged. Leave empty if sudo needs no password.</p>
          <label>sudo password<input type="password" data-testid="setup-sudo-password" autoComplete="off" value={sudo} onChange={(e) => setSudo(e.target.value)} autoFocus /></label>
          <div className="dialog-actions">
            <button type="button" onClick={() => setPhase('review')}>Back</button>
            <button type="submit" className="primary" data-testid="setup-apply">Apply the plan</button>
          </div>
        </form>
      )}
      {(phase === 'running' || phase === 'result') && plan && (
        <div>
          {phase === 'running' && <p role="status" className="progress">Applying… each step is checked first and re-checked after it runs.</p>}
          <ol className="plan progress-list">
            {plan.steps.map((s) => {
              const st = status[s.id] ?? result?.steps.find((x) => x.id === s.id)?.status ?? 'pending';
              return (
                <li key={s.id} className={`st-${st}`} data-testid={`step-${s.id}`}>
                  <h3><span className="step-status">{String(st)}</span> {s.title}</h3>
                  {(logs[s.id] || result?.steps.find((x) => x.id === s.id)?.output) && <pre className="mono log" aria-label={`Output of ${s.title}`}>{logs[s.id] || result?.steps.find((x) => x.id === s.id)?.output}</pre>}
                </li>
              );
            })}
          </ol>
          {result && (result.ok
            ? <p className="banner ok" role="status" data-testid="setup-result" data-ok="true">Done: {result.steps.filter((s) => s.status === 'applied').length} step(s) applied, {result.steps.filter((s) => s.status === 'skipped').length} already in place.</p>
            : <p className="banner error" role="alert" data-testid="setup-result" data-ok="false">Stopped{result.error?.stepId ? ` at ${result.error.stepId}` : ''}: {result.error?.message}{result.error?.fix ? ` — ${result.error.fix}` : ''}</p>)}
          {phase === 'result' && <button onClick={() => { setPhase('idle'); setResult(null); setConsent(false); }}>Close</button>}
        </div>
      )}
    </div>
  );
}
