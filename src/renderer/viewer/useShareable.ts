import { useEffect, useState } from 'react';
import type { GpuDeskApi } from '../../shared/contract';

/**
 * Whether another account could watch this desktop: only one on a TCP port is reachable by another
 * SSH login (TurboVNC's Unix socket is 0600). false: on a socket only; null: not known (yet).
 * Asked once, so Invite to watch… can be greyed out with the reason before anyone clicks it.
 */
export function useShareable(api: GpuDeskApi, connectionId: string, display: number | null, ask: boolean): boolean | null {
  const [shareable, setShareable] = useState<boolean | null>(null);
  useEffect(() => {
    if (!ask || display === null) return;
    let gone = false;
    api.invoke('sessions.list', { connectionId }).then((list) => {
      const s = list.find((x) => x.display === display);
      if (!gone && s) setShareable(!(s.unixPath && s.port == null));
    }, () => { /* unknown: Invite stays offered and says why itself if it cannot */ });
    return () => { gone = true; };
  }, [api, connectionId, display, ask]);
  return shareable;
}
