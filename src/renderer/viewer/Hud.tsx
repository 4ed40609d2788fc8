import { useTranslation } from 'react-i18next';
import { Sparkline } from '../app/Sparkline';
import { useFormat } from '../i18n/useFormat';
import type { TunnelRate, ViewerSample } from './stats';
import type { VideoView } from './video/videoMode';
import { HudGpus } from './HudGpus';
import { useHudDock } from './useHudDock';
import './hud.css';

/** Frames, latency, round trip, bandwidth and encoding, with the last 60 s charted. */
export function Hud({ history, tunnel, tunnelHistory, video, viewerId, renderGpu }: { history: ViewerSample[]; tunnel: TunnelRate | null; tunnelHistory: number[]; video?: VideoView | null; viewerId?: string | null; renderGpu?: number }) {
  const { t } = useTranslation('viewer');
  const fmt = useFormat();
  const s = history[history.length - 1];
  const videoOn = video?.active === 'video';
  const show = <T,>(v: T | null | undefined, f: (x: T) => string) => (v === null || v === undefined ? '—' : f(v));
  const dock = useHudDock();
  return (
    <aside ref={dock.hudRef} className={`hud hud-${dock.corner}${dock.dragging ? ' hud-dragging' : ''}`} style={dock.style} aria-label={t('hud.aria')} data-testid="hud" data-corner={dock.corner} aria-live="off">
      <div className="hud-bar" title={t('hud.dragHint')} data-testid="hud-bar" {...dock.handle}>
        <h2 className="hud-title">{t('hud.title')}</h2>
        {/* A mouse click leaves the keyboard with the desktop; Tab still reaches the button. */}
        <button type="button" className="hud-corner" aria-label={t('hud.nextCorner')} title={t('hud.nextCorner')} data-testid="hud-next-corner"
          onPointerDown={(e) => e.stopPropagation()} onMouseDown={(e) => e.preventDefault()} onClick={dock.nextCorner}>
          <svg width="12" height="12" viewBox="0 0 12 12" aria-hidden="true"><rect x="0.5" y="0.5" width="11" height="11" rx="1.5" fill="none" stroke="currentColor" /><rect x="6" y="2" width="4" height="4" fill="currentColor" /></svg>
        </button>
      </div>
      <dl>
        <dt>{t('hud.frames')}</dt><dd data-testid="hud-fps">{show(s?.fps, (v) => fmt.fps(v, 1))}</dd>
        <dt>{t('hud.latency')}</dt><dd data-testid="hud-latency" title={t('hud.latencyTitle')}>{s?.latencyMs == null ? <span className="muted">{t('hud.latencyWaiting')}</span> : fmt.ms(s.latencyMs)}</dd>
        <dt>{t('hud.rtt')}</dt><dd data-testid="hud-rtt">{show(tunnel?.rttMs, fmt.ms)}</dd>
        <dt>{t('hud.in')}</dt><dd data-testid="hud-in">{tunnel ? fmt.bitRate(tunnel.inPerSec * 8) : '—'}</dd>
        <dt>{t('hud.out')}</dt><dd data-testid="hud-out">{tunnel ? fmt.bitRate(tunnel.outPerSec * 8) : '—'}</dd>
        <dt>{t('hud.perFrame')}</dt><dd data-testid="hud-bpf" data-value={s?.bytesPerFrame ?? ''}>{s?.bytesPerFrame != null ? fmt.bytes(s.bytesPerFrame) : '—'}</dd>
        <dt>{t('hud.codec')}</dt><dd data-testid="hud-codec">{videoOn ? t('hud.codecVideo') : t('hud.codecVnc')}</dd>
        {videoOn && <><dt>{t('hud.encoder')}</dt><dd data-testid="hud-encoder">{encoderLabel(video!.encoder)}</dd></>}
        {videoOn && <><dt>{t('hud.bitrate')}</dt><dd data-testid="hud-bitrate">{`${show(video!.bitsPerSec, fmt.bitRate)} / ${show(video!.bitrateKbps, (k) => fmt.bitRate(k * 1000))}`}</dd></>}
        {videoOn && <><dt>{t('hud.capture')}</dt><dd data-testid="hud-capture">{show(video!.captureFps, (fps) => t('hud.captureValue', { fps }))}</dd></>}
        {videoOn && <><dt>{t('hud.decode')}</dt><dd data-testid="hud-decode">{show(video!.decodeMs, (ms) => t('hud.decodeValue', { ms: fmt.ms(ms), where: video!.hardware ? t('hud.hardware') : t('hud.software') }))}</dd></>}
        <dt>{t('hud.encoding')}</dt><dd data-testid="hud-encoding">{s?.encoding ?? '—'}</dd>
        <dt>{t('hud.quality')}</dt><dd data-testid="hud-quality">{s ? t('hud.qualityValue', { quality: s.quality, compression: s.compression }) : '—'}</dd>
      </dl>
      <Sparkline values={history.map((h) => h.fps)} label={t('hud.fpsChart')} width={200} height={36} />
      <Sparkline values={tunnelHistory} label={t('hud.bandwidthChart')} width={200} height={36} color="var(--accent-2)" />
      {viewerId && <HudGpus viewerId={viewerId} renderGpu={renderGpu} />}
    </aside>
  );
}

/** The HUD's short name for the server's encoder: which hardware (or the CPU) makes the video. */
function encoderLabel(e: string | null): string {
  return e === 'h264_nvenc' ? 'nvenc' : e === 'h264_vaapi' ? 'vaapi' : e === 'libx264' ? 'x264' : (e ?? '—');
}
