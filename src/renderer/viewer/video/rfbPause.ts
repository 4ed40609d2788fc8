import RFB from '@novnc/novnc';
import { internals, requestFullUpdate } from '../rfbPatches';

type Sock = ReturnType<typeof internals>['_sock'];
type FbUpdateRequest = (sock: Sock, incremental: boolean, x: number, y: number, w: number, h: number) => void;
const messages = (RFB as unknown as { messages: { fbUpdateRequest: FbUpdateRequest; enableContinuousUpdates(sock: Sock, enable: boolean, x: number, y: number, w: number, h: number): void } }).messages;

/** Sockets of the viewers whose screen the video stream draws: their RFB updates shrink to one pixel. */
const paused = new WeakSet<Sock>();
let installed = false;

function install(): void {
  if (installed) return;
  installed = true;
  const orig = messages.fbUpdateRequest;
  // noVNC asks for the whole screen after every update (without continuous updates): a paused
  // viewer asks for its last pixel only, so the link carries the video, cursor shapes and little else.
  messages.fbUpdateRequest = (sock, incremental, x, y, w, h) => {
    if (incremental && paused.has(sock)) {
      const r = owner.get(sock);
      if (r) return orig(sock, true, r._fbWidth - 1, r._fbHeight - 1, 1, 1);
    }
    return orig(sock, incremental, x, y, w, h);
  };
}
const owner = new WeakMap<Sock, ReturnType<typeof internals>>();

/**
 * While video mode draws the screen, RFB updates shrink to one pixel (the bottom-right corner): the
 * cursor pseudo-encodings still come (noVNC draws the cursor locally), keys, pointer and clipboard
 * still go, but the screen's pixels are not sent twice.
 */
export function pauseScreenUpdates(rfb: RFB): void {
  install();
  const r = internals(rfb);
  owner.set(r._sock, r);
  paused.add(r._sock);
  if (r._enabledContinuousUpdates && r._fbWidth && r._fbHeight) messages.enableContinuousUpdates(r._sock, true, r._fbWidth - 1, r._fbHeight - 1, 1, 1);
}

/** Back to the whole screen: continuous updates over all of it, and one full update now. */
export function resumeScreenUpdates(rfb: RFB): void {
  const r = internals(rfb);
  paused.delete(r._sock);
  if (r._rfbConnectionState !== 'connected') return;
  if (r._enabledContinuousUpdates && r._fbWidth && r._fbHeight) messages.enableContinuousUpdates(r._sock, true, 0, 0, r._fbWidth, r._fbHeight);
  requestFullUpdate(rfb);
}

export function screenUpdatesPaused(rfb: RFB): boolean {
  return paused.has(internals(rfb)._sock);
}
