import { useTranslation } from 'react-i18next';
import { useApi } from '../app/api';
import { deskMonitors } from '../viewer/deskMonitors';
import { layoutFromMonitors } from '../viewer/screenLayout';
import { formatGeometry } from '../../shared/screenGeometry';

/** Fills the start form's size with one screen per desk monitor (TurboVNC's multi-screen -geometry). */
export function MonitorsGeometryButton({ onGeometry }: { onGeometry(g: string): void }) {
  const { t } = useTranslation('server');
  const api = useApi();
  const fill = async () => {
    const d = await deskMonitors(() => api.invoke('app.displays', {}));
    onGeometry(formatGeometry(layoutFromMonitors(d.monitors).screens));
  };
  return <button type="button" onClick={() => void fill()} title={t('startScreens.title')} data-testid="geometry-from-monitors">{t('startScreens.button')}</button>;
}
