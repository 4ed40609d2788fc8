import { useCallback, useEffect, useRef, useState } from 'react';
import type { Profile, ServerReportView, VncSessionView } from '../../shared/models';
import { leastBusyGpu } from '../../shared/gpuPick';
import { useGo } from '../app/navigation';
import { useApi } from '../app/api';
import { useTranslation } from 'react-i18next';
import { useErrorLine } from '../i18n/errors';
import { Dialog } from '../app/Dialog';
import { MonitorsGeometryButton } from './MonitorsGeometryButton';
import { RunInDesktop } from './RunInDesktop';

/** The server's VNC desktops: open one in the viewer or as a tunnel only, start a new one, stop one. */
export function Sessions({ connectionId, profile, report }: { connectionId: string; profile?: Profile; report: ServerReportView | null }) {
  const api = useApi();
  const go = useGo();
  const { t } = useTranslation(['server', 'common']);
  const errorLine = useErrorLine();
  const [sessions, setSessions] = useState<VncSessionView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const [geometry, setGeometry] = useState(profile?.display.geometry ?? '1920x1080');
  const [wm, setWm] = useState('');
  const [transport, setTransport] = useState<'' | 'unix' | 'tcp'>('');
  // "Render on": the least busy GPU by default (utilisation, then memory in use), as the probe saw them.
  const gpus = report?.vnc.flavor === 'turbovnc' ? report.gpus : [];
  const [gpu, setGpu] = useState<string | null>(null);
  const gpuChoice = gpu ?? (leastBusyGpu(gpus)?.index.toString() ?? '');
  const [manual, setManual] = useState(profile?.display.number !== undefined ? String(profile.display.number) : '');
  const [killing, setKilling] = useState<VncSessionView | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [started, setStarted] = useState<VncSessionView | null>(null);
  // The window manager the last Start asked for ('' = the server's default, Openbox on most).
  const [startedWm, setStartedWm] = useState('');
  // Only the newest list counts: one asked before a desktop came up (or went) and answered after
  // would show a stale "No VNC desktop is running".
  const listSeq = useRef(0);
  const [running, setRunning] = useState<number | null>(null);

  const reload = useCallback(async () => {
    try {
      const seq = ++listSeq.current;
      const list = await api.invoke('sessions.list', { connectionId });
      if (seq !== listSeq.current) return;
      setSessions(list);
      setError(null);
    } catch (e) {
      setError(errorLine(e));
    }
  }, [api, connectionId, errorLine]);
  useEffect(() => { void reload(); }, [reload]);

  const profileId = profile?.id ?? '';
  // The desktop's render GPU (when its info has one) goes with it: the viewer's HUD shows that GPU.
  const view = (display: number) => {
    const renderGpu = sessions?.find((s) => s.display === display)?.renderGpu;
    go({ screen: 'viewer', connectionId, profileId, display, ...(renderGpu !== undefined ? { renderGpu } : {}) });
  };
  const tunnel = async (display: number) => {
    setBusy(`tunnel-${display}`);
    try {
      const t = await api.invoke('tunnels.open', { connectionId, display });
      go({ screen: 'tunnel', connectionId, profileId, tunnelId: t.id, ...(t.oneTimePassword ? { password: t.oneTimePassword } : {}) });
    } catch (e) {
      setError(errorLine(e));
    } finally {
      setBusy(null);
    }
  };
  const start = async (e: React.FormEvent) => {
    e.preventDefault();
    setStarting(true);
    setError(null);
    try {
      const s = await api.invoke('sessions.start', { connectionId, ...(geometry ? { geometry } : {}), ...(wm ? { windowManager: wm } : {}), ...(transport ? { transport } : {}), ...(gpuChoice !== '' ? { gpu: Number(gpuChoice) } : {}) });
      setStarted(s);
      setStartedWm(wm);
      await reload();
      setSessions((xs) => (xs && !xs.some((x) => x.display === s.display) ? [...xs, s] : xs));
    } catch (err) {
      setError(errorLine(err));
    } finally {
      setStarting(false);
    }
  };
  const kill = async (s: VncSessionView) => {
    setKilling(null);
    setBusy(`kill-${s.display}`);
    try {
      await api.invoke('sessions.kill', { connectionId, display: s.display });
      await reload();
    } catch (e) {
      setError(errorLine(e));
    } finally {
      setBusy(null);
    }
  };

  return (
    <div className="sessions">
      {error && <p className="banner error" role="alert">{error}</p>}
      {started && (
        <p className="banner ok" role="status" data-testid="started-display" data-display={started.display}>
          {t('sessions.started', { display: started.display })} <button className="link" onClick={() => view(started.display)}>{t('sessions.viewNow')}</button>
          {(startedWm === '' || /openbox/i.test(startedWm)) && <span className="muted" data-testid="wm-hint"> {t('sessions.openboxHint')}</span>}
        </p>
      )}
      <h2>{t('sessions.title')}</h2>
      {sessions === null && !error && <p role="status" className="progress">{t('sessions.listing')}</p>}
      {sessions && sessions.length === 0 && <p>{t('sessions.none')}</p>}
      {sessions && sessions.length > 0 && (
        <table className="table" aria-label={t('sessions.tableAria')}>
          <thead><tr><th scope="col">{t('sessions.display')}</th><th scope="col">{t('sessions.server')}</th><th scope="col">{t('sessions.listensOn')}</th><th scope="col"><span className="sr-only">{t('sessions.actions')}</span></th></tr></thead>
          <tbody>
            {sessions.map((s) => (
              <tr key={s.display} data-testid={`session-${s.display}`}>
                <td>:{s.display} <span className="muted">{s.unixPath ? t('sessions.socket', { path: s.unixPath }) : t('sessions.port', { port: s.port ?? '?' })}</span></td>
                <td>{s.flavor === 'turbovnc' ? 'TurboVNC' : s.flavor === 'tigervnc' ? 'TigerVNC' : '?'}{s.pid ? <span className="muted">{t('sessions.pid', { pid: s.pid })}</span> : null}</td>
                <td>{s.localhostOnly === true ? t('sessions.localhostOnly') : s.localhostOnly === false ? <span className="warn-text">{t('sessions.allInterfaces')}</span> : t('sessions.unknown')}</td>
                <td className="actions">
                  <button className="primary" onClick={() => view(s.display)} aria-label={t('sessions.viewAria', { display: s.display })}>{t('sessions.view')}</button>
                  <button onClick={() => tunnel(s.display)} disabled={busy === `tunnel-${s.display}`} aria-label={t('sessions.tunnelAria', { display: s.display })}>{t('sessions.tunnelOnly')}</button>
                  <button onClick={() => setRunning(s.display)} aria-label={t('sessions.runAria', { display: s.display })}>{t('sessions.run')}</button>
                  <button className="danger" onClick={() => setKilling(s)} disabled={busy === `kill-${s.display}`} aria-label={t('sessions.stopAria', { display: s.display })}>{busy === `kill-${s.display}` ? t('sessions.stopping') : t('sessions.stop')}</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>{t('sessions.startTitle')}</h2>
      <form className="form inline" onSubmit={start} aria-label={t('sessions.startAria')}>
        <label>{t('sessions.size')}<input value={geometry} onChange={(e) => setGeometry(e.target.value)} placeholder="1920x1080" /></label>
        <MonitorsGeometryButton onGeometry={setGeometry} />
        <label>{t('sessions.wm')}
          <select value={wm} onChange={(e) => setWm(e.target.value)}>
            <option value="">{t('sessions.serverDefault')}</option>
            {(report?.windowManagers ?? []).map((w) => <option key={w} value={w}>{w}</option>)}
          </select>
        </label>
        {report?.vnc.flavor === 'turbovnc' && turboHasSockets(report.vnc.version) && (
          // TurboVNC ≥ 3.1 listens on a 0600 Unix socket by default: no port on the server for other users to
          // try. TCP is for tools on the server that need a port; gpu-desk reaches either through SSH.
          <label>{t('sessions.listensOn')}
            <select value={transport} onChange={(e) => setTransport(e.target.value as '' | 'unix' | 'tcp')} data-testid="session-transport">
              <option value="">{t('sessions.unixSocket')}</option>
              <option value="tcp">{t('sessions.tcp')}</option>
            </select>
          </label>
        )}
        {gpus.length > 0 && (
          <label>{t('sessions.renderOn')}
            <select value={gpuChoice} onChange={(e) => setGpu(e.target.value)} data-testid="session-gpu">
              {gpus.map((g) => <option key={g.index} value={String(g.index)}>{t('sessions.gpuOption', { index: g.index, name: g.name, util: g.utilizationPct ?? '?' })}</option>)}
              <option value="">{t('sessions.gpuAny')}</option>
            </select>
          </label>
        )}
        <button type="submit" className="primary" disabled={starting}>{starting ? t('sessions.starting') : t('sessions.start')}</button>
      </form>
      <details className="manual">
        <summary>{t('sessions.byNumber')}</summary>
        <form className="form inline" onSubmit={(e) => { e.preventDefault(); if (/^\d{1,2}$/.test(manual)) view(Number(manual)); }}>
          <label>{t('sessions.display')}<input value={manual} onChange={(e) => setManual(e.target.value)} inputMode="numeric" placeholder="1" aria-label={t('sessions.displayNumber')} /></label>
          <button type="submit" disabled={!/^\d{1,2}$/.test(manual)}>{t('sessions.view')}</button>
          <button type="button" disabled={!/^\d{1,2}$/.test(manual)} onClick={() => tunnel(Number(manual))}>{t('sessions.tunnelOnly')}</button>
        </form>
      </details>
      {running !== null && <RunInDesktop connectionId={connectionId} display={running} report={report} onClose={() => setRunning(null)} />}
      {killing && (
        <Dialog title={t('sessions.stopTitle', { display: killing.display })} onCancel={() => setKilling(null)}>
          <p>{t('sessions.stopText')}</p>
          <div className="dialog-actions">
            <button onClick={() => setKilling(null)}>{t('common:actions.cancel')}</button>
            <button className="danger" onClick={() => kill(killing)}>{t('sessions.stopDesktop')}</button>
          </div>
        </Dialog>
      )}
    </div>
  );
}

/** TurboVNC listens on Unix sockets from 3.1 (-rfbunixpath); older ones only on TCP, so there is no choice to offer. */
function turboHasSockets(version: string | null): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version ?? '');
  return !!m && (Number(m[1]) > 3 || (Number(m[1]) === 3 && Number(m[2]) >= 1));
}

