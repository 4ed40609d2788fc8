import { useEffect, useRef } from 'react';

/** What one ask says about the next: ask again after the interval, or stop (nothing more to ask). */
export type PollNext = 'again' | 'stop';

/**
 * Asks `ask` about once every `intervalMs` while the page is visible, from mount until unmount, and
 * from the start again when `key` changes. A hidden window asks nothing (figures nobody sees cost the
 * server a command a second); visible again, it asks at once. One ask at a time: a slow answer is
 * never overtaken by the next. `ask` gets `alive()`, false once its answer would land on an unmounted
 * or re-keyed component, and handles its own errors. One hook for the server page's GPU cards and the
 * viewer's GPU panel, which asked the same way in two copies.
 */
export function useVisiblePoll(key: string, ask: (alive: () => boolean) => Promise<PollNext>, intervalMs = 1000): void {
  // The latest ask, so a new closure each render (new translations, say) neither restarts the polling nor goes unused.
  const latest = useRef(ask);
  useEffect(() => {
    latest.current = ask;
  });
  useEffect(() => {
    let stopped = false;
    let finished = false;
    let asking = false;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const alive = () => !stopped;
    const poll = async () => {
      timer = null;
      if (stopped || asking || document.visibilityState !== 'visible') return;
      asking = true;
      let next: PollNext = 'again';
      try {
        next = await latest.current(alive);
      } finally {
        asking = false;
      }
      if (stopped) return;
      if (next === 'stop') finished = true;
      else timer = setTimeout(() => void poll(), intervalMs);
    };
    const onVisible = () => {
      if (document.visibilityState === 'visible' && !timer && !asking && !stopped && !finished) void poll();
    };
    document.addEventListener('visibilitychange', onVisible);
    void poll();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [key, intervalMs]);
}
