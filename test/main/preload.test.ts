import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createBridge, type IpcRendererLike } from '../../src/preload/bridge';
import { EVENT_CHANNEL, INVOKE_CHANNEL } from '../../src/shared/bridge';
import { eventNames, methodNames } from '../../src/shared/contract';

/**
 * ipcRenderer cannot exist without the Electron binary; this stand-in records calls and is an
 * EventEmitter like the real one, so listener bookkeeping is exercised for real.
 */
class IpcRendererStandIn extends EventEmitter implements IpcRendererLike {
  calls: unknown[][] = [];
  reply: (args: unknown[]) => Promise<unknown> = async () => ({ ok: true, value: 'pong' });
  async invoke(channel: string, ...args: unknown[]) {
    this.calls.push([channel, ...args]);
    return this.reply(args);
  }
}

const names = { methods: ['app.info', 'tunnels.list'], events: ['tunnels.changed', 'prompt'] };

describe('preload bridge', () => {
  it('exposes exactly invoke and on, frozen', () => {
    const b = createBridge(new IpcRendererStandIn(), names);
    expect(Object.keys(b).sort()).toEqual(['invoke', 'on']);
    expect(Object.isFrozen(b)).toBe(true);
  });

  it('forwards contract methods on the one invoke channel and returns the envelope', async () => {
    const ipc = new IpcRendererStandIn();
    const b = createBridge(ipc, names);
    expect(await b.invoke('app.info', {})).toEqual({ ok: true, value: 'pong' });
    expect(ipc.calls).toEqual([[INVOKE_CHANNEL, 'app.info', {}]]);
  });

  it('refuses names outside the contract without touching IPC', async () => {
    const ipc = new IpcRendererStandIn();
    const b = createBridge(ipc, names);
    for (const m of ['shell.openExternal', '__proto__', 'constructor', 42 as unknown as string]) {
      expect(await b.invoke(m, {})).toMatchObject({ ok: false, error: { code: 'IPC_UNKNOWN_METHOD' } });
    }
    expect(ipc.calls).toEqual([]);
    expect(() => b.on('anything', () => {})).toThrow(/unknown event/);
    expect(() => b.on('prompt', 'x' as unknown as () => void)).toThrow(/function/);
  });

  it('turns clone failures and malformed replies into error values', async () => {
    const ipc = new IpcRendererStandIn();
    const b = createBridge(ipc, names);
    ipc.reply = async () => { throw new Error('An object could not be cloned.'); };
    expect(await b.invoke('app.info', { f: () => 1 })).toMatchObject({ ok: false, error: { code: 'IPC_BAD_INPUT' } });
    ipc.reply = async () => 'not an envelope';
    expect(await b.invoke('app.info', {})).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
  });

  it('delivers only the payload to listeners of that event and unsubscribes cleanly', () => {
    const ipc = new IpcRendererStandIn();
    const errors: unknown[] = [];
    const b = createBridge(ipc, names, (e) => errors.push(e));
    const got: unknown[] = [];
    const offA = b.on('tunnels.changed', (...args: unknown[]) => got.push(args));
    const offB = b.on('prompt', () => { throw new Error('listener bug'); });
    b.on('prompt', (p) => got.push(['prompt', p]));
    expect(ipc.listenerCount(EVENT_CHANNEL)).toBe(1);
    const fakeEvent = { sender: ipc };
    ipc.emit(EVENT_CHANNEL, fakeEvent, 'tunnels.changed', [{ id: 't1' }]);
    ipc.emit(EVENT_CHANNEL, fakeEvent, 'prompt', { promptId: 'p' });
    // The page never receives the IpcRendererEvent (its sender is ipcRenderer itself).
    expect(got).toEqual([[[{ id: 't1' }]], ['prompt', { promptId: 'p' }]]);
    expect(errors).toHaveLength(1);
    offA();
    ipc.emit(EVENT_CHANNEL, fakeEvent, 'tunnels.changed', []);
    expect(got).toHaveLength(2);
    offB();
    expect(ipc.listenerCount(EVENT_CHANNEL)).toBe(1);
  });

  it('is built from the real contract names', () => {
    const b = createBridge(new IpcRendererStandIn(), { methods: methodNames, events: eventNames });
    expect(methodNames.length).toBeGreaterThan(5);
    for (const e of eventNames) b.on(e, () => {})();
  });
});
