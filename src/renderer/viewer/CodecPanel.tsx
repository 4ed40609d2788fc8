import type { EncodingName, ViewerCodec, ViewerPrefs } from '../../shared/models';
import type { VideoView } from './video/videoMode';
import { PRESETS, matchPreset } from './presets';
import { TURBO_LEVELS } from './encodings';
import { useTranslation } from 'react-i18next';

/** Live codec controls: every change goes to the server as a new SetEncodings, no reconnect. */
export function CodecPanel(props: { prefs: ViewerPrefs; turbo: boolean; h264: boolean; live: { quality: number; compression: number }; video?: VideoView | null; onChange(p: ViewerPrefs): void; onClose(): void }) {
  const { t } = useTranslation('viewer');
  const { prefs: p, onChange } = props;
  const set = (patch: Partial<ViewerPrefs>) => onChange({ ...p, ...patch });
  const preset = matchPreset(p);
  const encodings: { id: EncodingName; label: string; enabled: boolean }[] = [
    { id: 'tight', label: t('codec.tight'), enabled: true },
    { id: 'zrle', label: 'ZRLE', enabled: true },
    { id: 'hextile', label: 'Hextile', enabled: true },
    { id: 'raw', label: t('codec.raw'), enabled: true },
    { id: 'h264', label: props.h264 ? t('codec.h264') : t('codec.h264No'), enabled: props.h264 },
  ];
  const lvl = TURBO_LEVELS[p.quality];
  return (
    <aside className="codec-panel" aria-label={t('codec.aria')} data-testid="codec-panel">
      <div className="panel-head"><h2>{t('codec.title')}</h2><button className="icon" onClick={props.onClose} aria-label={t('codec.close')}>×</button></div>
      <label>{t('codec.codec')}
        <select value={p.codec} onChange={(e) => set({ codec: e.target.value as ViewerCodec })} data-testid="codec-choice">
          <option value="auto">{t('codec.codecAuto')}</option>
          <option value="vnc">{t('codec.codecVnc')}</option>
          <option value="video" disabled={!props.h264}>{props.h264 ? t('codec.codecVideo') : t('codec.codecNoDecoder')}</option>
        </select>
      </label>
      {p.codec !== 'vnc' && props.video && (
        <p className="muted small" role="status" data-testid="codec-now">
          {t('codec.videoNow', { what: props.video.starting ? t('codec.videoStarting') : props.video.active === 'video' ? `H.264 · ${props.video.encoder ?? ''}` : 'VNC' })}
        </p>
      )}
      {p.codec !== 'vnc' && (
        <div className="row">
          <label>{t('codec.videoMin')}
            <input type="number" min={0.25} max={200} step={0.25} value={p.videoMinKbps / 1000} data-testid="video-min"
              onChange={(e) => { const v = Math.round(Number(e.target.value) * 1000); if (v >= 250 && v <= 200_000) set({ videoMinKbps: v, videoMaxKbps: Math.max(v, p.videoMaxKbps) }); }} />
          </label>
          <label>{t('codec.videoMax')}
            <input type="number" min={0.25} max={200} step={0.25} value={p.videoMaxKbps / 1000} data-testid="video-max"
              onChange={(e) => { const v = Math.round(Number(e.target.value) * 1000); if (v >= 250 && v <= 200_000) set({ videoMaxKbps: v, videoMinKbps: Math.min(v, p.videoMinKbps) }); }} />
          </label>
        </div>
      )}
      <label>{t('codec.preset')}
        <select value={preset ?? ''} onChange={(e) => { const x = PRESETS.find((y) => y.id === e.target.value); if (x) set({ ...x.prefs, adaptive: false }); }}>
          <option value="" disabled>{t('codec.custom')}</option>
          {PRESETS.map((x) => <option key={x.id} value={x.id}>{t('codec.presetOption', { label: t(`codec.presets.${x.id}`), link: x.link === 'gigabit' ? t('codec.presets.gigabit') : x.link })}</option>)}
        </select>
      </label>
      <label className="check"><input type="checkbox" checked={p.adaptive} onChange={(e) => set({ adaptive: e.target.checked })} /> {t('codec.adaptive')}</label>
      {p.adaptive && <p className="muted small" role="status">{t('codec.adaptiveNow', { quality: props.live.quality, compression: props.live.compression })}</p>}
      <label>{t('codec.encoding')}
        <select value={p.encoding} onChange={(e) => set({ encoding: e.target.value as EncodingName })}>
          {encodings.map((x) => <option key={x.id} value={x.id} disabled={!x.enabled}>{x.label}</option>)}
        </select>
      </label>
      <label className="check"><input type="checkbox" checked={p.lossless} disabled={p.adaptive} onChange={(e) => set({ lossless: e.target.checked })} /> {t('codec.lossless')}</label>
      <label>{t('codec.jpegQuality')} <output data-testid="quality-value">{p.quality}</output>
        <input type="range" min={0} max={9} step={1} value={p.quality} disabled={p.adaptive || p.lossless} aria-label={t('codec.jpegQualityAria')} data-testid="quality-slider"
          onChange={(e) => set({ quality: Number(e.target.value) })} />
      </label>
      {props.turbo && <p className="muted small">{t('codec.turboLevel', { level: p.quality, jpeg: lvl.jpeg, subsampling: lvl.subsampling.toUpperCase() })}</p>}
      <label>{t('codec.compression')} <output>{p.compression}</output>
        <input type="range" min={0} max={9} step={1} value={p.compression} disabled={p.adaptive} aria-label={t('codec.compressionAria')} data-testid="compression-slider"
          onChange={(e) => set({ compression: Number(e.target.value) })} />
      </label>
      <fieldset disabled={!props.turbo || p.adaptive || p.lossless}>
        <legend>{t('codec.fine')}{props.turbo ? '' : t('codec.fineOnly')}</legend>
        <label>{t('codec.jpeg100')}
          <input type="number" min={1} max={100} value={p.jpegQuality ?? ''} placeholder={t('codec.fromLevel', { value: lvl.jpeg })}
            onChange={(e) => set({ jpegQuality: e.target.value === '' ? null : Math.max(1, Math.min(100, Number(e.target.value))) })} />
        </label>
        <label>{t('codec.subsampling')}
          <select value={p.subsampling ?? ''} onChange={(e) => set({ subsampling: (e.target.value || null) as ViewerPrefs['subsampling'] })}>
            <option value="">{t('codec.fromLevelSub', { value: lvl.subsampling.toUpperCase() })}</option>
            <option value="1x">{t('codec.sub1x')}</option>
            <option value="2x">2X</option>
            <option value="4x">4X</option>
            <option value="gray">{t('codec.gray')}</option>
          </select>
        </label>
      </fieldset>
    </aside>
  );
}
