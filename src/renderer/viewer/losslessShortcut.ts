import { useEffect, type RefObject } from 'react';
import type { ViewerSession } from './rfbSession';
import { isLosslessShortcut } from './lossless';

export { LOSSLESS_SHORTCUT } from './lossless';

/**
 * Ctrl+Alt+Shift+L anywhere in the viewer's page asks for a lossless refresh. Caught before noVNC's
 * keyboard handler (capture phase on the window), so the keys never reach the remote desktop.
 */
export function useLosslessShortcut(session: RefObject<ViewerSession | null>): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isLosslessShortcut(e)) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      if (e.type === 'keydown' && !e.repeat) session.current?.losslessRefresh();
    };
    window.addEventListener('keydown', onKey, true);
    window.addEventListener('keyup', onKey, true);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      window.removeEventListener('keyup', onKey, true);
    };
  }, [session]);
}
