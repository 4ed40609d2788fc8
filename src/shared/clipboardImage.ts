/** The largest image the clipboard carries either way (a full-screen 4K screenshot as PNG is 2–12 MiB). */
export const CLIPBOARD_IMAGE_MAX_BYTES = 16 * 1024 * 1024;

/** One message's share of an image on its way to the server, base64 (under the IPC's message caps). */
export const CLIPBOARD_IMAGE_PART_BYTES = 3 * 1024 * 1024;

/**
 * What a clipboard image call says: done (with the image, coming from the server), or why not —
 * noXclip/xselOnly: the server lacks xclip (xsel carries text only); noImage: the server's clipboard
 * holds no PNG; tooLarge: over CLIPBOARD_IMAGE_MAX_BYTES; failed: xclip could not reach the display.
 */
export type ClipboardImageResult =
  | { ok: true; bytes: number; png?: string }
  | { ok: false; why: 'noXclip' | 'xselOnly' | 'noImage' | 'tooLarge' | 'failed'; bytes?: number };
