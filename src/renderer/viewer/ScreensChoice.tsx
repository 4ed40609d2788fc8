import { useEffect, useRef, useState } from 'react';
import type RFB from '@novnc/novnc';
import { useTranslation } from 'react-i18next';
import { installScreenLayout, type ScreenLayoutControl } from './rfbScreens';
import { SCREENS_MODES, layoutFromMonitors, sideBySide, type Rect, type ScreensMode } from './screenLayout';
import { deskMonitors } from './deskMonitors';
import { useApi } from '../app/api';

const KEY = (profileId: string) => `gpu-desk.viewer.screens.${profileId}`;

/**
 * The viewer's "Screens" choice: one screen (noVNC's own resize), two side by side in the viewer's
 * area, or one per desk monitor. Kept per server in localStorage, like the viewer's other window-side
 * settings (prefs.ts).
 */
export function useScreensChoice(profileId: string | undefined, forced?: ScreensMode) {
  const { t } = useTranslation('viewer');
  const api = useApi();
  const [chosen, setMode] = useState<ScreensMode>(() => {
    const v = profileId ? localStorage.getItem(KEY(profileId)) : null;
    return (SCREENS_MODES as readonly string[]).includes(v ?? '') ? (v as ScreensMode) : 'one';
  });
  // A spanning viewer is one screen per monitor whatever the server's saved choice is, and keeps that choice as it was.
  const mode = forced ?? chosen;
  const [note, setNote] = useState<string | null>(null);
  /** How many desk monitors the layout has, once known (0 before, and outside "Match my monitors"). */
  const [found, setFound] = useState(0);
  const modeRef = useRef(mode);
  modeRef.current = mode;
  const monitors = useRef<Rect[] | null>(null);
  const control = useRef<ScreenLayoutControl | null>(null);

  useEffect(() => {
    if (profileId && !forced) localStorage.setItem(KEY(profileId), mode);
    let stale = false;
    if (mode !== 'monitors') { setNote(null); setFound(0); control.current?.request(); return; }
    void deskMonitors(() => api.invoke('app.displays', {})).then((d) => {
      if (stale) return;
      monitors.current = d.monitors;
      setFound(d.monitors.length);
      setNote(d.source === 'all' ? t('screens.found', { count: d.monitors.length }) : t('screens.onlyThis'));
      control.current?.request();
    });
    return () => { stale = true; };
  }, [api, mode, forced, profileId, t]);

  /** Called with each new noVNC session: the layout rides on its remote resize from the first update. */
  const attach = (rfb: RFB) => {
    control.current = installScreenLayout(rfb, (area) => {
      const m = modeRef.current;
      if (m === 'two') return sideBySide(2, area.width, area.height);
      try {
        if (m === 'monitors' && monitors.current) return layoutFromMonitors(monitors.current);
      } catch {
        /* no usable monitor reported: one screen, as noVNC would */
      }
      return null;
    });
  };

  const ui = (
    <label>{t('screens.label')}
      <select value={mode} onChange={(e) => setMode(e.target.value as ScreensMode)} aria-label={t('screens.aria')} data-testid="screens-choice">
        <option value="one">{t('screens.one')}</option>
        <option value="two">{t('screens.two')}</option>
        <option value="monitors">{t('screens.monitors')}</option>
      </select>
      {note && <span className="screens-note" data-testid="screens-note">{note}</span>}
    </label>
  );
  return { ui, attach, mode, found };
}
