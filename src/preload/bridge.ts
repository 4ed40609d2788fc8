import { EVENT_CHANNEL, INVOKE_CHANNEL, type GpuDeskBridge, type IpcResult } from '../shared/bridge';

/**
 * The whole preload, as a pure factory (tested in Node with a stand-in for ipcRenderer): two
 * functions, contract names only, no Electron object ever handed to the page. In particular the
 * IpcRendererEvent is dropped, because its `sender` is ipcRenderer itself.
 */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

export interface ContractNames {
  methods: readonly string[];
  events: readonly string[];
}

const refused = (code: 'IPC_UNKNOWN_METHOD' | 'IPC_BAD_INPUT' | 'INTERNAL', message: string): IpcResult => ({ ok: false, error: { code, message } });

function isEnvelope(x: unknown): x is IpcResult {
  if (x === null || typeof x !== 'object') return false;
  const r = x as { ok?: unknown; error?: unknown };
  if (r.ok === true) return true;
  return r.ok === false && typeof r.error === 'object' && r.error !== null;
}

export function createBridge(ipc: IpcRendererLike, names: ContractNames, reportError: (e: unknown) => void = () => {}): GpuDeskBridge {
  const methods = new Set(names.methods);
  const events = new Set(names.events);
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  let attached = false;

  const onMessage = (_event: unknown, name: unknown, payload: unknown) => {
    if (typeof name !== 'string') return;
    for (const l of [...(listeners.get(name) ?? [])]) {
      try {
        l(payload);
      } catch (e) {
        // One faulty listener must not stop the others from hearing the event.
        reportError(e);
      }
    }
  };

  const bridge: GpuDeskBridge = {
    async invoke(method: string, input?: unknown): Promise<IpcResult> {
      if (typeof method !== 'string' || !methods.has(method)) return refused('IPC_UNKNOWN_METHOD', 'Unknown IPC method.');
      let result: unknown;
      try {
        result = await ipc.invoke(INVOKE_CHANNEL, method, input);
      } catch (e) {
        // Structured clone refuses functions, DOM nodes and the like before anything reaches main.
        const msg = e instanceof Error ? e.message.split('\n')[0].slice(0, 200) : 'the call failed';
        return refused(/clone/i.test(msg) ? 'IPC_BAD_INPUT' : 'INTERNAL', `${method}: ${msg}`);
      }
      return isEnvelope(result) ? result : refused('INTERNAL', `${method}: malformed reply from the main process.`);
    },
    on(event: string, listener: (payload: unknown) => void): () => void {
      if (typeof event !== 'string' || !events.has(event)) throw new TypeError(`gpuDesk.on: unknown event "${String(event).slice(0, 64)}"`);
      if (typeof listener !== 'function') throw new TypeError('gpuDesk.on: listener must be a function');
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      // Wrap so the same function subscribed twice gets two independent subscriptions.
      const wrapped = (p: unknown) => listener(p);
      set.add(wrapped);
      if (!attached) {
        ipc.on(EVENT_CHANNEL, onMessage as (event: unknown, ...args: unknown[]) => void);
        attached = true;
      }
      return () => {
        set.delete(wrapped);
        if (set.size === 0) listeners.delete(event);
        if (listeners.size === 0 && attached) {
          ipc.removeListener(EVENT_CHANNEL, onMessage as (event: unknown, ...args: unknown[]) => void);
          attached = false;
        }
      };
    },
  };
  return Object.freeze(bridge);
}
