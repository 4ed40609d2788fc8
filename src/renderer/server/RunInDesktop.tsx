import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { DesktopRunStateView, DesktopRunView, ServerReportView } from '../../shared/models';
import { useApi } from '../app/api';
import { Dialog } from '../app/Dialog';
import { useErrorLine } from '../i18n/errors';

/** How often the dialog asks for a running program's output (one small SSH exec each time). */
const POLL_MS = 1000;

/** VirtualGL's back end for programs started here: the EGL device the desktop itself uses, where it can. */
function vglBackend(report: ServerReportView | null): string | null {
  if (!report?.virtualgl.installed || !report.virtualgl.eglUsable) return null;
  return report.virtualgl.eglDevice ?? 'egl';
}

/**
 * "Run in desktop…": a command line started in display :N as the desktop's own program (vkcube,
 * glxspheres64, a simulator), through VirtualGL for OpenGL where the server has it; its output and
 * exit status shown while the dialog is open; Stop ends it. Closing the dialog leaves it running.
 */
export function RunInDesktop({ connectionId, display, report, onClose }: { connectionId: string; display: number; report: ServerReportView | null; onClose: () => void }) {
  const api = useApi();
  const { t } = useTranslation('server');
  const errorLine = useErrorLine();
  const backend = vglBackend(report);
  const [command, setCommand] = useState('');
  const [useVgl, setUseVgl] = useState(backend !== null);
  const [run, setRun] = useState<DesktopRunView | null>(null);
  const [state, setState] = useState<DesktopRunStateView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const running = state?.running ?? run !== null;
  useEffect(() => {
    if (!run) return;
    let live = true;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const poll = async () => {
      try {
        const s = await api.invoke('runs.output', { runId: run.runId });
        if (!live) return;
        setState(s);
        if (s.running) timer = setTimeout(poll, POLL_MS);
      } catch (e) {
        if (live) setError(errorLine(e));
      }
    };
    void poll();
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
  }, [api, run, errorLine]);

  const start = async (e: React.FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setState(null);
    try {
      setRun(await api.invoke('runs.start', { connectionId, display, command, virtualgl: useVgl ? backend : null }));
    } catch (err) {
      setError(errorLine(err));
    } finally {
      setBusy(false);
    }
  };
  const stop = async () => {
    if (!run) return;
    try {
      await api.invoke('runs.stop', { runId: run.runId });
      // Its end shows on the next poll; one now, in case the last poll already ended.
      setState(await api.invoke('runs.output', { runId: run.runId }));
    } catch (err) {
      setError(errorLine(err));
    }
  };

  const status = !run ? null
    : running ? t('run.running')
    : state?.exitCode !== null && state?.exitCode !== undefined ? t('run.exited', { code: state.exitCode })
    : t('run.ended');
  return (
    <Dialog title={t('run.title', { display })} onCancel={onClose} wide testId="run-dialog">
      {error && <p className="banner error" role="alert">{error}</p>}
      <form className="form" onSubmit={start}>
        <label>{t('run.command')}
          <input value={command} onChange={(e) => setCommand(e.target.value)} placeholder="vkcube" autoFocus spellCheck={false} autoComplete="off" data-testid="run-command" disabled={busy || (run !== null && running)} />
        </label>
        <label className="check">
          <input type="checkbox" checked={useVgl && backend !== null} disabled={backend === null || busy || (run !== null && running)} onChange={(e) => setUseVgl(e.target.checked)} data-testid="run-vgl" />
          {backend !== null ? t('run.vgl', { device: backend }) : t('run.noVgl')}
        </label>
        <p className="muted">{t('run.vulkanNote')}</p>
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>{t('run.close')}</button>
          {run && running && <button type="button" className="danger" onClick={stop} data-testid="run-stop">{t('run.stop')}</button>}
          <button type="submit" className="primary" disabled={busy || !command.trim() || (run !== null && running)} data-testid="run-start">{run && !running ? t('run.again') : t('run.start')}</button>
        </div>
      </form>
      {run && (
        <>
          <p role="status" data-testid="run-status" data-running={String(running)} data-exit={state?.exitCode ?? ''}>
            {status}{run.vglrun ? ` · ${t('run.underVgl')}` : ''}
          </p>
          {state?.truncated && <p className="muted">{t('run.truncated')}</p>}
          <pre className="run-output" aria-label={t('run.output')} data-testid="run-output">{state?.output ?? ''}</pre>
        </>
      )}
    </Dialog>
  );
}
