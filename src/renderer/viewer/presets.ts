import type { ViewerPrefs } from '../../shared/models';

export type PresetId = 'perceptual' | 'medium' | 'low' | 'lossless' | 'losslessZlib';

export interface Preset {
  id: PresetId;
  label: string;
  /** The link the preset is meant for (TurboVNC Viewer's own guidance). */
  link: string;
  prefs: Pick<ViewerPrefs, 'encoding' | 'quality' | 'compression' | 'lossless' | 'jpegQuality' | 'subsampling'>;
}

/**
 * TurboVNC Viewer's presets. Quality levels are the nearest RFB level for servers without the
 * fine-grained pseudo-encodings (level 8 = JPEG 92 1X, 5 = 77 2X, 1 = 29 4X on TurboVNC).
 */
export const PRESETS: Preset[] = [
  { id: 'perceptual', label: 'Perceptually lossless', link: '≥ 50 Mbit/s', prefs: { encoding: 'tight', quality: 8, compression: 1, lossless: false, jpegQuality: 95, subsampling: '1x' } },
  { id: 'medium', label: 'Medium quality', link: '~10 Mbit/s', prefs: { encoding: 'tight', quality: 5, compression: 6, lossless: false, jpegQuality: 80, subsampling: '2x' } },
  { id: 'low', label: 'Low quality', link: '< 10 Mbit/s', prefs: { encoding: 'tight', quality: 1, compression: 7, lossless: false, jpegQuality: 30, subsampling: '4x' } },
  { id: 'lossless', label: 'Lossless Tight', link: 'gigabit', prefs: { encoding: 'tight', quality: 9, compression: 0, lossless: true, jpegQuality: null, subsampling: null } },
  { id: 'losslessZlib', label: 'Lossless Tight + Zlib', link: '100 Mbit/s', prefs: { encoding: 'tight', quality: 9, compression: 6, lossless: true, jpegQuality: null, subsampling: null } },
];

export function matchPreset(p: Preset['prefs']): PresetId | null {
  const hit = PRESETS.find((x) =>
    x.prefs.encoding === p.encoding && x.prefs.compression === p.compression && x.prefs.lossless === p.lossless &&
    (p.lossless || (x.prefs.quality === p.quality && x.prefs.jpegQuality === p.jpegQuality && x.prefs.subsampling === p.subsampling)));
  return hit?.id ?? null;
}
