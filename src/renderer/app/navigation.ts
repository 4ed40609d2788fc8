import { createContext, useContext } from 'react';
import type { ClusterJobView } from '../../shared/models';

/** Which screen the window shows, and for what. */
export type Route =
  | { screen: 'servers' }
  | { screen: 'keys' }
  | { screen: 'server'; connectionId: string; profileId: string }
  | { screen: 'viewer'; connectionId: string; profileId: string; display: number; renderGpu?: number; /** A window spanning every monitor (viewerLink.ts). */ span?: true }
  | { screen: 'tunnel'; connectionId: string; profileId: string; tunnelId: string; /** The desktop's password for a native viewer, as tunnels.open gave it (memory only). */ password?: string }
  | { screen: 'cluster'; connectionId: string; profileId: string }
  | { screen: 'job'; connectionId: string; profileId: string; jobId: string };

/**
 * What any screen may ask of the app as a whole. The functions never change (effects may list them);
 * the app's data (profiles, connections, tunnels, jobs) reaches each screen as the props it uses.
 */
export interface AppActions {
  go(r: Route): void;
  reloadProfiles(): Promise<void>;
  /** Desktop jobs as a call answered them: kept unless a newer `clusters.job` event was seen. */
  putJobs(jobs: ClusterJobView[]): void;
}

export const AppActionsContext = createContext<AppActions | null>(null);

function useAppActions(): AppActions {
  const actions = useContext(AppActionsContext);
  if (!actions) throw new Error('useAppActions outside AppActionsContext');
  return actions;
}

export const useGo = (): AppActions['go'] => useAppActions().go;
export const useReloadProfiles = (): AppActions['reloadProfiles'] => useAppActions().reloadProfiles;
export const usePutJobs = (): AppActions['putJobs'] => useAppActions().putJobs;
