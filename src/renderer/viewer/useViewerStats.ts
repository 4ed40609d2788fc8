import { useRef, useState, type RefObject } from 'react';
import type { ByteCounters } from '../../shared/models';
import { useApi } from '../app/api';
import { useVisiblePoll } from '../app/useVisiblePoll';
import type { VideoMode } from './video/videoMode';
import { tunnelRate, type TunnelRate } from './stats';

/**
 * The tunnel's counters and SSH round trip for the HUD, about once a second while the window is
 * visible. One ask at a time (useVisiblePoll): with `measureRtt` an answer can take as long as the
 * round-trip measurement (up to 3 s on a slow link), and a fixed interval asked again meanwhile.
 */
export function useViewerStats(o: { viewerId: RefObject<string | null>; videoMode: RefObject<VideoMode | null>; measureRtt: boolean }): { tunnel: TunnelRate | null; tunnelHistory: number[] } {
  const api = useApi();
  const [tunnel, setTunnel] = useState<TunnelRate | null>(null);
  const [tunnelHistory, setTunnelHistory] = useState<number[]>([]);
  const prev = useRef<ByteCounters | null>(null);
  useVisiblePoll('viewer-stats', async (alive) => {
    const viewerId = o.viewerId.current;
    if (!viewerId) return 'again';
    try {
      // Video mode's Auto and bitrate follow the link: they need the round trip of this second.
      const cur = await api.invoke('viewer.stats', { viewerId, measureRtt: o.measureRtt });
      if (!alive()) return 'stop';
      o.videoMode.current?.noteRtt(cur.rttMs);
      const r = tunnelRate(prev.current, cur);
      prev.current = cur;
      setTunnel(r);
      setTunnelHistory((h) => [...h, r.inPerSec].slice(-60));
    } catch {
      /* viewer closed between asks */
    }
    return 'again';
  });
  return { tunnel, tunnelHistory };
}
