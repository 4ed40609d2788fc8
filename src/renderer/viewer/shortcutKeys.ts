/** The viewer's own shortcuts, pure (no DOM) so the key tests run anywhere; windowShortcut.ts wires them to the page. */

export type ShortcutKeys = { ctrlKey: boolean; altKey: boolean; shiftKey: boolean; metaKey: boolean; code: string };

/** A viewer shortcut: Ctrl+Alt+Shift and one letter, as TurboVNC Viewer's grab (Ctrl-Alt-Shift-G). */
export interface ViewerShortcut { label: string; aria: string; code: string }

export function viewerShortcut(letter: string): ViewerShortcut {
  return { label: `Ctrl+Alt+Shift+${letter}`, aria: `Control+Alt+Shift+${letter}`, code: `Key${letter}` };
}

export function isShortcut(s: ViewerShortcut, e: ShortcutKeys): boolean {
  return e.ctrlKey && e.altKey && e.shiftKey && !e.metaKey && e.code === s.code;
}

/** Leaves a spanning viewer (closes its window): beside the grab's G and the lossless refresh's L. */
export const SPAN_SHORTCUT = viewerShortcut('F');
