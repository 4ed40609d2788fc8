import { useEffect, useRef, useState, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import type { GpuDeskApi } from '../../shared/contract';
import { CLIPBOARD_IMAGE_MAX_BYTES } from '../../shared/clipboardImage';
import { ClipboardSync, type ClipNote } from './clipboardSync';
import type { ViewerSession } from './rfbSession';

/** How often the desk's clipboard is looked at while the viewer has focus (no browser announces a copy). */
const WATCH_MS = 1500;
/** How long a note stays on the viewer. */
const NOTE_MS = 8000;

/**
 * Automatic clipboard sharing for one viewer: a round when its screen gains focus (the desk's new copy
 * to the server, else the server's image to the desk) and, while it keeps focus, the desk watched for
 * a new copy. Off when `enabled` is false (the setting, and always for a view-only viewer).
 */
export function useClipboardSync(o: { api: GpuDeskApi; session: RefObject<ViewerSession | null>; viewerId: RefObject<string | null>; screen: RefObject<HTMLElement | null>; enabled: boolean; connected: boolean }) {
  const { t } = useTranslation('viewer');
  // Numbered, so the same words twice still read as a new note.
  const [note, setNote] = useState<{ text: string; n: number } | null>(null);
  const noteCount = useRef(0);
  const tRef = useRef(t);
  tRef.current = t;
  const noteTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const sync = useRef<ClipboardSync | null>(null);
  sync.current ??= new ClipboardSync({
    api: o.api,
    viewerId: () => o.viewerId.current,
    sendText: (text) => o.session.current?.paste(text),
    note: (n: ClipNote) => {
      setNote({ text: tRef.current(`clipSync.${n.key}`, { size: n.size ?? '', limit: `${CLIPBOARD_IMAGE_MAX_BYTES / 1048576} MiB` }), n: ++noteCount.current });
      if (noteTimer.current) clearTimeout(noteTimer.current);
      noteTimer.current = setTimeout(() => setNote(null), NOTE_MS);
    },
  });
  const { enabled, connected, screen } = o;

  useEffect(() => {
    const host = screen.current;
    if (!host) return;
    if (!enabled || !connected) { host.setAttribute('data-clip-sync', 'off'); return; }
    const focused = () => document.hasFocus() && host.contains(document.activeElement);
    // The round count on the screen, for the e2e spec ("off" while sharing is off): rounds it can wait for.
    let rounds = 0;
    // A round still on its way when sharing is turned off (View only, the setting) must not mark the
    // screen again: "off" is what the person chose, whatever finishes after it.
    let live = true;
    const round = (pullImage: boolean) => void sync.current!.sync({ pullImage }).then(() => { if (live) host.setAttribute('data-clip-sync', String(++rounds)); });
    host.setAttribute('data-clip-sync', '0');
    const onFocus = () => { if (focused()) round(true); };
    host.addEventListener('focusin', onFocus);
    window.addEventListener('focus', onFocus);
    const watch = setInterval(() => { if (focused()) round(false); }, WATCH_MS);
    onFocus();
    return () => {
      live = false;
      host.removeEventListener('focusin', onFocus);
      window.removeEventListener('focus', onFocus);
      clearInterval(watch);
      host.setAttribute('data-clip-sync', 'off');
    };
  }, [enabled, connected, screen]);

  useEffect(() => () => { if (noteTimer.current) clearTimeout(noteTimer.current); }, []);

  return {
    note,
    /** The server's text reached the desk's clipboard: not to be sent back. */
    deskGotText: (text: string) => void sync.current!.noteDeskText(text),
    pasteImageFromServer: () => void sync.current!.pasteImageFromServer(),
  };
}
