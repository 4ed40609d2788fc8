import { useEffect, useState } from 'react';
import { useApi } from '../app/api';

/**
 * How many monitors the shell reports (Electron's screen module; 0 in a browser, which cannot put one
 * window over several). Not deskMonitors(): that one also asks the browser, for the layout only.
 */
export function useDeskDisplayCount(): number {
  const api = useApi();
  const [n, setN] = useState(0);
  useEffect(() => {
    let live = true;
    api.invoke('app.displays', {}).then((d) => { if (live) setN(d?.length ?? 0); }, () => {});
    return () => { live = false; };
  }, [api]);
  return n;
}
