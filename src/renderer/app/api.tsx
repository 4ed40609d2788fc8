import { createContext, useContext, useEffect, useRef } from 'react';
import type { EventName, EventPayload, GpuDeskApi } from '../../shared/contract';

export const ApiContext = createContext<GpuDeskApi | null>(null);

export function useApi(): GpuDeskApi {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside ApiContext');
  return api;
}

/** Subscribes for the component's life; the latest handler is always the one called. */
export function useEvent<E extends EventName>(event: E, handler: (p: EventPayload<E>) => void): void {
  const api = useApi();
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => api.on(event, (p) => ref.current(p)), [api, event]);
}

/** A call's error as one line for people: message, then the fix. */
export function errorLine(e: unknown): string {
  const x = e as { message?: string; fix?: string };
  const msg = x?.message ?? String(e);
  return x?.fix ? `${msg} — ${x.fix}` : msg;
}

export function errorCode(e: unknown): string | null {
  return (e as { code?: string })?.code ?? null;
}
