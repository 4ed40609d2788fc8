import type { ServerReportView } from '../../shared/models';

const SEV_LABEL = { error: 'Problem', warning: 'Warning', info: 'Note' } as const;
const SEV_ORDER = { error: 0, warning: 1, info: 2 } as const;

export function ProbeReport({ report, probing, error, onSetup }: { report: ServerReportView | null; probing: boolean; error: string | null; onSetup(): void }) {
  if (error) return <p className="banner error" role="alert">{error}</p>;
  if (!report) return <p role="status" className="progress">{probing ? 'Probing the server (a few seconds, no root needed)…' : 'No report yet.'}</p>;
  const r = report;
  return (
    <div className="report" data-testid="probe-report">
      <h2>Findings</h2>
      {r.findings.length === 0 ? <p>Nothing to fix: this server is ready for GPU desktops.</p> : (
        <ul className="findings">
          {[...r.findings].sort((a, b) => SEV_ORDER[a.severity] - SEV_ORDER[b.severity]).map((f) => (
            <li key={f.code} className={`finding sev-${f.severity}`} data-code={f.code}>
              <p><span className="sev">{SEV_LABEL[f.severity]}</span> {f.message}</p>
              <p className="fix"><strong>Fix:</strong> {f.fix}</p>
            </li>
          ))}
        </ul>
      )}
      {r.findings.some((f) => f.severity !== 'info') && <button className="primary" onClick={onSetup}>Review the set-up plan</button>}
      <h2>Server</h2>
      <dl className="kv">
        <dt>System</dt><dd>{r.os.prettyName} · {r.os.arch} · kernel {r.os.kernel}{r.os.supported ? '' : ' (no set-up recipe for this release)'}</dd>
        <dt>Account</dt><dd>{r.user} · sudo: {r.sudo}</dd>
        <dt>NVIDIA</dt><dd>{r.gpus.length ? `${r.gpus.length} GPU${r.gpus.length > 1 ? 's' : ''}, driver ${r.nvidia.driverVersion ?? '?'}` : r.nvidia.smiError ?? 'no NVIDIA driver'}</dd>
        <dt>VirtualGL</dt><dd>{r.virtualgl.installed ? `${r.virtualgl.version ?? 'installed'}; EGL back end ${r.virtualgl.eglUsable ? 'usable' : `not usable (${r.virtualgl.eglReason})`}` : 'not installed'}</dd>
        <dt>3D X server</dt><dd>{r.xserver.running ? `${r.xserver.renderer ?? 'unknown renderer'}${r.xserver.softwareRenderer ? ' — software rendering!' : ''}` : 'none on :0'}</dd>
        <dt>VNC server</dt><dd>{r.vnc.flavor ? `${r.vnc.flavor === 'turbovnc' ? 'TurboVNC' : 'TigerVNC'} ${r.vnc.version ?? ''}` : 'none'}</dd>
        <dt>Window managers</dt><dd>{r.windowManagers.length ? r.windowManagers.join(', ') : 'none found'}</dd>
        <dt>Display manager</dt><dd>{r.displayManager ?? 'none'}</dd>
        <dt>Probe time</dt><dd>{(r.probeMs / 1000).toFixed(1)} s</dd>
      </dl>
    </div>
  );
}
