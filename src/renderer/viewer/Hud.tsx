import { Sparkline } from '../app/Sparkline';
import { formatBytes, formatRate, type TunnelRate, type ViewerSample } from './stats';

/** Frames, latency, round trip, bandwidth and encoding, with the last 60 s charted. */
export function Hud({ history, tunnel, tunnelHistory }: { history: ViewerSample[]; tunnel: TunnelRate | null; tunnelHistory: number[] }) {
  const s = history[history.length - 1];
  const fmt = (v: number | null | undefined, d = 0, unit = '') => (v === null || v === undefined ? '—' : `${v.toFixed(d)}${unit}`);
  return (
    <aside className="hud" aria-label="Performance figures" data-testid="hud" aria-live="off">
      <dl>
        <dt>Frames</dt><dd data-testid="hud-fps">{fmt(s?.fps, 1, ' fps')}</dd>
        <dt>Update latency</dt><dd data-testid="hud-latency" title="input sent → next frame drawn">{fmt(s?.latencyMs, 0, ' ms')}</dd>
        <dt>SSH round trip</dt><dd data-testid="hud-rtt">{fmt(tunnel?.rttMs, 1, ' ms')}</dd>
        <dt>In (tunnel)</dt><dd data-testid="hud-in">{tunnel ? formatRate(tunnel.inPerSec) : '—'}</dd>
        <dt>Out (tunnel)</dt><dd data-testid="hud-out">{tunnel ? formatRate(tunnel.outPerSec) : '—'}</dd>
        <dt>Per frame</dt><dd data-testid="hud-bpf" data-value={s?.bytesPerFrame ?? ''}>{s?.bytesPerFrame != null ? formatBytes(s.bytesPerFrame) : '—'}</dd>
        <dt>Encoding</dt><dd data-testid="hud-encoding">{s?.encoding ?? '—'}</dd>
        <dt>Quality</dt><dd data-testid="hud-quality">{s ? `q${s.quality} c${s.compression}` : '—'}</dd>
      </dl>
      <Sparkline values={history.map((h) => h.fps)} label="fps, last 60 s" width={200} height={36} />
      <Sparkline values={tunnelHistory} label="bandwidth in, last 60 s" width={200} height={36} color="var(--accent-2)" />
    </aside>
  );
}
