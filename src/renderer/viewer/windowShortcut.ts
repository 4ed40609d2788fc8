import { useEffect, useRef } from 'react';
import { isShortcut, type ViewerShortcut } from './shortcutKeys';

export { viewerShortcut } from './shortcutKeys';

/**
 * `shortcut` anywhere in the viewer's page runs `onPress`. Caught before noVNC's keyboard handler
 * (capture phase on the window), both its keydown and keyup, so the keys never reach the remote desktop.
 */
export function useWindowShortcut(shortcut: ViewerShortcut, onPress: () => void, enabled = true): void {
  const press = useRef(onPress);
  press.current = onPress;
  useEffect(() => {
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (!isShortcut(shortcut, e)) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      if (e.type === 'keydown' && !e.repeat) press.current();
    };
    window.addEventListener('keydown', onKey, true);
    window.addEventListener('keyup', onKey, true);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      window.removeEventListener('keyup', onKey, true);
    };
  }, [shortcut, enabled]);
}
