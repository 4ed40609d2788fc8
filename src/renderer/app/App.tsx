import { useCallback, useEffect, useState } from 'react';
import type { GpuDeskApi } from '../../shared/contract';
import type { ConnectionView, Profile, TunnelView } from '../../shared/models';
import { ApiContext } from './api';
import { ServersScreen } from '../servers/ServersScreen';
import { PromptHost } from '../connect/PromptHost';
import { ServerPage } from '../server/ServerPage';
import { ViewerScreen } from '../viewer/ViewerScreen';
import { TunnelScreen } from '../tunnel/TunnelScreen';
import { useTheme, ThemeSwitch } from './theme';

export type Route =
  | { screen: 'servers' }
  | { screen: 'server'; connectionId: string; profileId: string }
  | { screen: 'viewer'; connectionId: string; profileId: string; display: number }
  | { screen: 'tunnel'; connectionId: string; profileId: string; tunnelId: string };

export interface AppState {
  profiles: Profile[];
  connections: ConnectionView[];
  tunnels: TunnelView[];
  reloadProfiles(): Promise<void>;
  go(r: Route): void;
}

export function App({ api }: { api: GpuDeskApi }) {
  const [route, setRoute] = useState<Route>({ screen: 'servers' });
  const [profiles, setProfiles] = useState<Profile[]>([]);
  const [connections, setConnections] = useState<ConnectionView[]>([]);
  const [tunnels, setTunnels] = useState<TunnelView[]>([]);
  const [loadError, setLoadError] = useState<string | null>(null);
  const theme = useTheme();

  const reloadProfiles = useCallback(async () => {
    try {
      setProfiles(await api.invoke('profiles.list', {}));
      setLoadError(null);
    } catch (e) {
      setLoadError((e as Error).message);
    }
  }, [api]);

  useEffect(() => {
    void reloadProfiles();
    void api.invoke('connections.list', {}).then(setConnections);
    void api.invoke('tunnels.list', {}).then(setTunnels);
    const offs = [
      api.on('connection.state', (c) => setConnections((cs) => (c.state === 'closed' ? cs.filter((x) => x.id !== c.id).concat(c) : [...cs.filter((x) => x.id !== c.id), c]))),
      api.on('tunnels.changed', setTunnels),
    ];
    return () => offs.forEach((o) => o());
  }, [api, reloadProfiles]);

  // A route whose connection closed falls back to the server list.
  useEffect(() => {
    if (route.screen === 'servers') return;
    const c = connections.find((x) => x.id === route.connectionId);
    if (c && c.state === 'closed' && route.screen !== 'viewer') setRoute({ screen: 'servers' });
  }, [connections, route]);

  const state: AppState = { profiles, connections, tunnels, reloadProfiles, go: setRoute };
  const profileOf = (id: string) => profiles.find((p) => p.id === id);

  return (
    <ApiContext.Provider value={api}>
      <div className={`app theme-${theme.resolved}`} data-screen={route.screen}>
        <header className="topbar">
          <button className="brand" onClick={() => setRoute({ screen: 'servers' })} aria-label="gpu-desk: server list">gpu-desk</button>
          <nav aria-label="Breadcrumb" className="crumbs">
            {route.screen !== 'servers' && (
              <>
                <span aria-hidden="true">›</span>
                <button className="link" onClick={() => setRoute({ screen: 'server', connectionId: route.connectionId, profileId: route.profileId })}>{profileOf(route.profileId)?.name ?? 'server'}</button>
                {route.screen === 'viewer' && <><span aria-hidden="true">›</span><span>Display :{route.display}</span></>}
                {route.screen === 'tunnel' && <><span aria-hidden="true">›</span><span>Tunnel</span></>}
              </>
            )}
          </nav>
          <ThemeSwitch theme={theme} />
        </header>
        {loadError && <p className="banner error" role="alert">{loadError}</p>}
        <main className="content">
          {route.screen === 'servers' && <ServersScreen state={state} />}
          {route.screen === 'server' && <ServerPage key={route.connectionId} state={state} connectionId={route.connectionId} profile={profileOf(route.profileId)} />}
          {route.screen === 'viewer' && <ViewerScreen key={`${route.connectionId}:${route.display}`} state={state} connectionId={route.connectionId} display={route.display} profile={profileOf(route.profileId)} />}
          {route.screen === 'tunnel' && <TunnelScreen state={state} connectionId={route.connectionId} tunnelId={route.tunnelId} />}
        </main>
        <PromptHost />
      </div>
    </ApiContext.Provider>
  );
}
