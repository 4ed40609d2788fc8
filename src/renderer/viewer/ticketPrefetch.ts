import type { GpuDeskApi } from '../../shared/contract';
import type { ViewerTicket } from '../../shared/models';

/**
 * viewer.open asked for as the person clicks through to a desktop, not once the viewer screen has
 * rendered: the app's side of it (the stream to the session opening, a one-time password being
 * fetched) overlaps the page's first render of that screen (20–50 ms with software rendering, in
 * bench:viewer's connect phases). One per display; the viewer takes it on its first attempt, and
 * one nobody takes within a few seconds is closed.
 */
const waiting = new Map<string, { ticket: Promise<ViewerTicket>; timer: ReturnType<typeof setTimeout> }>();

export function prefetchViewer(api: GpuDeskApi, connectionId: string, display: number): void {
  const key = `${connectionId}:${display}`;
  if (waiting.has(key)) return;
  const ticket = api.invoke('viewer.open', { connectionId, display });
  // Its failure is the viewer's to show, when it takes the ticket.
  ticket.catch(() => {});
  const timer = setTimeout(() => {
    if (waiting.get(key)?.ticket !== ticket) return;
    waiting.delete(key);
    void ticket.then((t) => api.invoke('viewer.close', { viewerId: t.viewerId }), () => {});
  }, 10_000);
  waiting.set(key, { ticket, timer });
}

/** The ticket asked for by prefetchViewer, once: null when there is none. */
export function takeViewerTicket(connectionId: string, display: number): Promise<ViewerTicket> | null {
  const key = `${connectionId}:${display}`;
  const w = waiting.get(key);
  if (!w) return null;
  waiting.delete(key);
  clearTimeout(w.timer);
  return w.ticket;
}
