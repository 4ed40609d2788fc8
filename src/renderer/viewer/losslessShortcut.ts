import type { RefObject } from 'react';
import type { ViewerSession } from './rfbSession';
import { LOSSLESS_SHORTCUT } from './lossless';
import { useWindowShortcut } from './windowShortcut';

export { LOSSLESS_SHORTCUT } from './lossless';

/** Ctrl+Alt+Shift+L anywhere in the viewer's page asks for a lossless refresh. */
export function useLosslessShortcut(session: RefObject<ViewerSession | null>): void {
  useWindowShortcut(LOSSLESS_SHORTCUT, () => session.current?.losslessRefresh());
}
