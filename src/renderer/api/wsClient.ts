import {
  RemoteCallError,
  type EventName,
  type EventPayload,
  type GpuDeskApi,
  type MethodInput,
  type MethodName,
  type MethodOutput,
} from '../../shared/contract';

/** Wire format of the harness's IPC WebSocket (src/harness/server.ts, its /ipc socket, speaks the other side). */
export type HarnessMessage =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: { code: string; message: string; fix?: string } }
  | { event: string; payload: unknown };

/**
 * The harness's implementation of the same API the Electron preload exposes: calls go over an
 * authenticated loopback WebSocket (token from the URL the harness printed, Origin checked there).
 */
export function connectHarness(url: string): Promise<GpuDeskApi> {
  const ws = new WebSocket(url);
  let nextId = 1;
  const calls = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  const listeners = new Map<string, Set<(p: unknown) => void>>();
  let closedError: RemoteCallError | null = null;

  ws.onmessage = (e: MessageEvent<string>) => {
    const msg = JSON.parse(e.data) as HarnessMessage;
    if ('event' in msg) {
      for (const l of listeners.get(msg.event) ?? []) l(msg.payload);
      return;
    }
    const c = calls.get(msg.id);
    if (!c) return;
    calls.delete(msg.id);
    if (msg.ok) c.resolve(msg.value);
    else c.reject(new RemoteCallError(msg.error));
  };
  ws.onclose = () => {
    closedError = new RemoteCallError({ code: 'NOT_CONNECTED', message: 'the gpu-desk harness went away', fix: 'restart `npm run harness` and reload' });
    for (const c of calls.values()) c.reject(closedError);
    calls.clear();
    for (const l of listeners.get('harness.closed') ?? []) l(null);
  };

  const api: GpuDeskApi = {
    invoke<M extends MethodName>(method: M, input: MethodInput<M>): Promise<MethodOutput<M>> {
      if (closedError) return Promise.reject(closedError);
      const id = nextId++;
      return new Promise<MethodOutput<M>>((resolve, reject) => {
        calls.set(id, { resolve: resolve as (v: unknown) => void, reject });
        ws.send(JSON.stringify({ id, method, input }));
      });
    },
    on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      const l = listener as (p: unknown) => void;
      set.add(l);
      return () => set.delete(l);
    },
  };
  return new Promise((resolve, reject) => {
    ws.onopen = () => resolve(api);
    ws.onerror = () => reject(new RemoteCallError({ code: 'NOT_CONNECTED', message: 'could not reach the gpu-desk harness', fix: 'open the address `npm run harness` printed, with its #token' }));
  });
}
