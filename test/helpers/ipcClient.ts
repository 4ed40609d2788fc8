/** A window's side of the harness IPC socket, for tests: calls by contract name, events collected in order. */
import WebSocket from 'ws';

export interface Client {
  call(method: string, input: unknown): Promise<{ ok: boolean; value?: unknown; error?: { code: string; message: string; fix?: string } }>;
  events: { event: string; payload: Record<string, unknown> }[];
  nextEvent(name: string): Promise<Record<string, unknown>>;
  close(): void;
}

export function openIpc(url: string, origin: string | undefined): Promise<Client> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, origin ? { origin } : {});
    let id = 0;
    const waiting = new Map<number, (v: never) => void>();
    const events: Client['events'] = [];
    const eventWaiters: { name: string; resolve(p: Record<string, unknown>): void }[] = [];
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString());
      if ('event' in m) {
        const w = eventWaiters.findIndex((x) => x.name === m.event);
        if (w >= 0) eventWaiters.splice(w, 1)[0].resolve(m.payload);
        else events.push(m);
      } else waiting.get(m.id)?.(m as never);
    });
    ws.once('unexpected-response', (_q, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
    ws.once('open', () => resolve({
      call: (method, input) => new Promise((r) => { const i = ++id; waiting.set(i, r as never); ws.send(JSON.stringify({ id: i, method, input })); }),
      events,
      nextEvent: (name) => {
        const i = events.findIndex((e) => e.event === name);
        if (i >= 0) return Promise.resolve(events.splice(i, 1)[0].payload);
        return new Promise((r) => eventWaiters.push({ name, resolve: r }));
      },
      close: () => ws.close(),
    }));
  });
}

