import { useCallback, useEffect, useMemo, useState } from 'react';
import type { GpuDeskApi } from '../../shared/contract';
import type { ClusterJobView, ConnectionView, Profile, TunnelView } from '../../shared/models';
import { ApiContext } from './api';
import { ServersScreen } from '../servers/ServersScreen';
import { PromptHost } from '../connect/PromptHost';
import { ServerPage } from '../server/ServerPage';
import { ViewerScreen } from '../viewer/ViewerScreen';
import { routeFromHash } from './viewerLink';
import { prefetchViewer } from '../viewer/ticketPrefetch';
import { TunnelScreen } from '../tunnel/TunnelScreen';
import { KeysScreen } from '../keys/KeysScreen';
import { ClusterPage } from '../cluster/ClusterPage';
import { useProfileExchange } from '../servers/profileExchange';
import { AppActionsContext, type AppActions, type Route } from './navigation';
import { useTheme, ThemeSwitch } from './theme';
import { useTranslation } from 'react-i18next';
import { LanguageSwitch, useLanguageSetting } from '../i18n/language';

export function App({ api }: { api: GpuDeskApi }) {
  // A window opened onto one desktop (the viewer's "New window") starts at that viewer.
  const [route, setRoute] = useState<Route>(() => routeFromHash(location.hash) ?? { screen: 'servers' });
  const [profiles, setProfiles] = useState<Profile[]>([]);
  const [connections, setConnections] = useState<ConnectionView[]>([]);
  const [tunnels, setTunnels] = useState<TunnelView[]>([]);
  const [jobs, setJobs] = useState<Record<string, ClusterJobView>>({});
  const [loadError, setLoadError] = useState<string | null>(null);
  const theme = useTheme();
  const language = useLanguageSetting(api);
  const { t } = useTranslation('common');
  const { t: tKeys } = useTranslation('keys');

  const reloadProfiles = useCallback(async () => {
    try {
      setProfiles(await api.invoke('profiles.list', {}));
      setLoadError(null);
    } catch (e) {
      setLoadError((e as Error).message);
    }
  }, [api]);

  const exchange = useProfileExchange(api, reloadProfiles);
  // A call's answer can arrive after a newer event for the same job: the later observation wins.
  const putJobs = useCallback((list: ClusterJobView[]) => setJobs((js) => {
    const next = { ...js };
    for (const j of list) if (!next[j.jobId] || next[j.jobId].at <= j.at) next[j.jobId] = j;
    return next;
  }), []);

  useEffect(() => {
    void reloadProfiles();
    void api.invoke('connections.list', {}).then(setConnections);
    void api.invoke('tunnels.list', {}).then(setTunnels);
    const offs = [
      api.on('connection.state', (c) => setConnections((cs) => (c.state === 'closed' ? cs.filter((x) => x.id !== c.id).concat(c) : [...cs.filter((x) => x.id !== c.id), c]))),
      api.on('tunnels.changed', setTunnels),
      api.on('profiles.changed', setProfiles),
      api.on('clusters.job', (j) => putJobs([j])),
    ];
    return () => offs.forEach((o) => o());
  }, [api, reloadProfiles, putJobs]);

  // File menu items (Electron): carried out here, with the same flow and messages as the buttons.
  const { exportAll, importFile } = exchange;
  useEffect(() => api.on('app.command', ({ command }) => {
    if (command === 'keys.show') setRoute({ screen: 'keys' });
    else {
      setRoute({ screen: 'servers' });
      void (command === 'profiles.export' ? exportAll() : importFile());
    }
  }), [api, exportAll, importFile]);

  // A route whose connection closed falls back to the server list.
  useEffect(() => {
    if (route.screen === 'servers' || route.screen === 'keys') return;
    const c = connections.find((x) => x.id === route.connectionId);
    if (c && c.state === 'closed' && route.screen !== 'viewer' && route.screen !== 'job') setRoute({ screen: 'servers' });
  }, [connections, route]);

  // Going to a server's desktop: its ticket is asked for now, beside the viewer screen's first render.
  const go = useCallback((r: Route) => {
    if (r.screen === 'viewer') prefetchViewer(api, r.connectionId, r.display);
    setRoute(r);
  }, [api]);
  const actions = useMemo<AppActions>(() => ({ go, reloadProfiles, putJobs }), [go, reloadProfiles, putJobs]);
  const profileOf = (id: string) => profiles.find((p) => p.id === id);
  const connectionOf = (id: string) => connections.find((c) => c.id === id);

  const serverName = route.screen === 'servers' || route.screen === 'keys' ? null : (profileOf(route.profileId)?.name ?? t('serverFallback'));
  const place = route.screen === 'viewer' ? `${serverName} ${t('displayCrumb', { display: route.display })}` : route.screen === 'job' ? `${serverName} ${t('jobCrumb', { jobId: route.jobId })}` : route.screen === 'keys' ? tKeys('nav') : serverName;
  useEffect(() => {
    document.title = place ? t('windowTitleWith', { place }) : t('windowTitle');
  }, [place, t]);

  return (
    <ApiContext.Provider value={api}>
      <div className={`app theme-${theme.resolved}`} data-screen={route.screen} data-span={route.screen === 'viewer' && route.span ? 'on' : undefined}>
        <header className="topbar">
          <button className="brand" onClick={() => setRoute({ screen: 'servers' })} aria-label={t('home')}>{t('appName')}</button>
          <nav aria-label={t('breadcrumb')} className="crumbs">
            {route.screen === 'keys' && <><span aria-hidden="true">›</span><span>{tKeys('nav')}</span></>}
            {route.screen !== 'servers' && route.screen !== 'keys' && (
              <>
                <span aria-hidden="true">›</span>
                <button className="link" onClick={() => setRoute({ screen: profileOf(route.profileId)?.kind === 'cluster' ? 'cluster' : 'server', connectionId: route.connectionId, profileId: route.profileId })}>{serverName}</button>
                {route.screen === 'viewer' && <><span aria-hidden="true">›</span><span>{t('displayCrumb', { display: route.display })}</span></>}
                {route.screen === 'tunnel' && <><span aria-hidden="true">›</span><span>{t('tunnelCrumb')}</span></>}
                {route.screen === 'job' && <><span aria-hidden="true">›</span><span>{t('jobCrumb', { jobId: route.jobId })}</span></>}
              </>
            )}
          </nav>
          <button className={route.screen === 'keys' ? 'link current' : 'link'} onClick={() => setRoute({ screen: 'keys' })} aria-current={route.screen === 'keys' ? 'page' : undefined} data-testid="nav-keys">{tKeys('nav')}</button>
          <LanguageSwitch setting={language} />
          <ThemeSwitch theme={theme} />
        </header>
        {loadError && <p className="banner error" role="alert">{loadError}</p>}
        <main className="content">
          <AppActionsContext.Provider value={actions}>
            {route.screen === 'servers' && <ServersScreen profiles={profiles} connections={connections} exchange={exchange} />}
            {route.screen === 'keys' && <KeysScreen profiles={profiles} />}
            {route.screen === 'server' && <ServerPage key={route.connectionId} connectionId={route.connectionId} connection={connectionOf(route.connectionId)} profile={profileOf(route.profileId)} />}
            {route.screen === 'viewer' && <ViewerScreen key={`${route.connectionId}:${route.display}`} connectionId={route.connectionId} connection={connectionOf(route.connectionId)} display={route.display} profile={profileOf(route.profileId)} renderGpu={route.renderGpu} span={route.span === true} />}
            {route.screen === 'cluster' && <ClusterPage key={route.connectionId} connectionId={route.connectionId} connection={connectionOf(route.connectionId)} jobs={jobs} profile={profileOf(route.profileId)} />}
            {route.screen === 'job' && <ViewerScreen key={`${route.connectionId}:job:${route.jobId}`} connectionId={route.connectionId} connection={connectionOf(route.connectionId)} display={null} job={route.jobId} jobView={jobs[route.jobId]} profile={profileOf(route.profileId)} />}
            {route.screen === 'tunnel' && <TunnelScreen connectionId={route.connectionId} connection={connectionOf(route.connectionId)} tunnel={tunnels.find((x) => x.id === route.tunnelId)} password={route.password} />}
          </AppActionsContext.Provider>
        </main>
        <PromptHost />
      </div>
    </ApiContext.Provider>
  );
}
