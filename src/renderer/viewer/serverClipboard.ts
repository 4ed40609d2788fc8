/** The most of the server's clipboard the viewer takes (ServerCutText has no limit of its own). */
export const CLIPBOARD_MAX_CHARS = 1 << 20;

/**
 * What the viewer does with a ServerCutText: the text to show in the clipboard panel and whether it
 * goes to the desk's clipboard. Over the cap nothing is kept or copied (a hostile or careless server
 * can send any amount); a view-only viewer, or one with automatic copy off, only shows it.
 */
export function fromServerClipboard(text: string, o: { auto: boolean; viewOnly: boolean }): { show: string | null; copy: boolean; tooLarge: boolean } {
  if (text.length > CLIPBOARD_MAX_CHARS) return { show: null, copy: false, tooLarge: true };
  return { show: text, copy: o.auto && !o.viewOnly, tooLarge: false };
}
