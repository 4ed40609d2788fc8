import { RemoteCallError, type GpuDeskApi } from '../../shared/contract';
import type { GpuDeskBridge } from '../../shared/bridge';
import { connectHarness } from './wsClient';

declare global {
  interface Window {
    /** The Electron preload's bridge (contract methods and events only); see src/preload/bridge.ts. */
    gpuDesk?: GpuDeskBridge;
  }
}

const TOKEN_KEY = 'gpu-desk.harness-token';
const AUTOCONNECT_KEY = 'gpu-desk.autoconnect';

/** A profile id the page was opened to connect to (once). */
export function takeAutoConnect(): string | null {
  const id = sessionStorage.getItem(AUTOCONNECT_KEY);
  sessionStorage.removeItem(AUTOCONNECT_KEY);
  return id;
}

/** The Electron bridge when present, else the harness's WebSocket client: same interface. */
export async function getApi(): Promise<GpuDeskApi> {
  if (window.gpuDesk) return fromBridge(window.gpuDesk);
  const m = /(?:^#|&)token=([A-Za-z0-9_-]+)/.exec(location.hash);
  // `npm run demo` opens the app with a profile to connect to straight away.
  const auto = /(?:^#|&)connect=([A-Za-z0-9_.:-]+)/.exec(location.hash);
  if (auto) sessionStorage.setItem(AUTOCONNECT_KEY, auto[1]);
  if (m) {
    sessionStorage.setItem(TOKEN_KEY, m[1]);
    // Keep the token out of the address bar (screenshots, copy-paste).
    history.replaceState(null, '', location.pathname + location.search);
  }
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token) throw new Error('This page needs the address printed by `npm run harness` (it carries a #token).');
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return connectHarness(`${proto}//${location.host}/ipc?token=${token}`);
}

/**
 * The preload answers with an envelope ({ok, value} | {ok: false, error}) because contextBridge
 * strips `code`/`fix` from a rejected Error; here it becomes the same API the harness client gives.
 */
export function fromBridge(b: GpuDeskBridge): GpuDeskApi {
  return {
    invoke: (async (method: string, input: unknown) => {
      const r = await b.invoke(method, input);
      if (r.ok) return r.value;
      throw new RemoteCallError(r.error);
    }) as GpuDeskApi['invoke'],
    on: b.on as GpuDeskApi['on'],
  };
}
