import type { EncodingName, ViewerPrefs } from '../../shared/models';
import { PRESETS, matchPreset } from './presets';
import { TURBO_LEVELS } from './encodings';

/** Live codec controls: every change goes to the server as a new SetEncodings, no reconnect. */
export function CodecPanel(props: { prefs: ViewerPrefs; turbo: boolean; h264: boolean; live: { quality: number; compression: number }; onChange(p: ViewerPrefs): void; onClose(): void }) {
  const { prefs: p, onChange } = props;
  const set = (patch: Partial<ViewerPrefs>) => onChange({ ...p, ...patch });
  const preset = matchPreset(p);
  const encodings: { id: EncodingName; label: string; enabled: boolean }[] = [
    { id: 'tight', label: 'Tight (JPEG + zlib)', enabled: true },
    { id: 'zrle', label: 'ZRLE', enabled: true },
    { id: 'hextile', label: 'Hextile', enabled: true },
    { id: 'raw', label: 'Raw', enabled: true },
    { id: 'h264', label: props.h264 ? 'H.264 (if the server offers it)' : 'H.264 (this browser cannot decode it)', enabled: props.h264 },
  ];
  const lvl = TURBO_LEVELS[p.quality];
  return (
    <aside className="codec-panel" aria-label="Picture quality and codec" data-testid="codec-panel">
      <div className="panel-head"><h2>Quality</h2><button className="icon" onClick={props.onClose} aria-label="Close quality panel">×</button></div>
      <label>Preset
        <select value={preset ?? ''} onChange={(e) => { const x = PRESETS.find((y) => y.id === e.target.value); if (x) set({ ...x.prefs, adaptive: false }); }}>
          <option value="" disabled>Custom</option>
          {PRESETS.map((x) => <option key={x.id} value={x.id}>{x.label} ({x.link})</option>)}
        </select>
      </label>
      <label className="check"><input type="checkbox" checked={p.adaptive} onChange={(e) => set({ adaptive: e.target.checked })} /> Adaptive (fluid on slow links, sharp on fast ones)</label>
      {p.adaptive && <p className="muted small" role="status">Adaptive now: quality {props.live.quality}, compression {props.live.compression}</p>}
      <label>Encoding
        <select value={p.encoding} onChange={(e) => set({ encoding: e.target.value as EncodingName })}>
          {encodings.map((x) => <option key={x.id} value={x.id} disabled={!x.enabled}>{x.label}</option>)}
        </select>
      </label>
      <label className="check"><input type="checkbox" checked={p.lossless} disabled={p.adaptive} onChange={(e) => set({ lossless: e.target.checked })} /> Lossless (no JPEG)</label>
      <label>JPEG quality <output data-testid="quality-value">{p.quality}</output>
        <input type="range" min={0} max={9} step={1} value={p.quality} disabled={p.adaptive || p.lossless} aria-label="JPEG quality level" data-testid="quality-slider"
          onChange={(e) => set({ quality: Number(e.target.value) })} />
      </label>
      {props.turbo && <p className="muted small">TurboVNC level {p.quality}: JPEG {lvl.jpeg}, {lvl.subsampling.toUpperCase()} subsampling</p>}
      <label>Compression <output>{p.compression}</output>
        <input type="range" min={0} max={9} step={1} value={p.compression} disabled={p.adaptive} aria-label="Compression level" data-testid="compression-slider"
          onChange={(e) => set({ compression: Number(e.target.value) })} />
      </label>
      <fieldset disabled={!props.turbo || p.adaptive || p.lossless}>
        <legend>TurboVNC fine control{props.turbo ? '' : ' (TurboVNC servers only)'}</legend>
        <label>JPEG quality 1–100
          <input type="number" min={1} max={100} value={p.jpegQuality ?? ''} placeholder={`from level (${lvl.jpeg})`}
            onChange={(e) => set({ jpegQuality: e.target.value === '' ? null : Math.max(1, Math.min(100, Number(e.target.value))) })} />
        </label>
        <label>Chroma subsampling
          <select value={p.subsampling ?? ''} onChange={(e) => set({ subsampling: (e.target.value || null) as ViewerPrefs['subsampling'] })}>
            <option value="">From level ({lvl.subsampling.toUpperCase()})</option>
            <option value="1x">1X (none)</option>
            <option value="2x">2X</option>
            <option value="4x">4X</option>
            <option value="gray">Grayscale</option>
          </select>
        </label>
      </fieldset>
    </aside>
  );
}
