import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createDispatcher, createEventForwarder, checkInputShape } from '../../src/core/ipc';
import { GpuDeskError, registerSecret } from '../../src/core/errors';

// A small stand-in contract: the dispatcher is generic; test/main/router.test.ts runs the real one.
interface Sender { id: number }
const OUR_WINDOW: Sender = { id: 1 };
const inputs = {
  'echo.say': z.object({ text: z.string().max(100), times: z.number().int().min(1).max(3).optional() }),
  'echo.nested': z.object({ outer: z.object({ inner: z.string() }), list: z.array(z.object({ n: z.number() })) }),
  'echo.none': z.undefined(),
  'echo.fail': z.object({ kind: z.enum(['gpudesk', 'plain', 'secret']) }),
};
const SECRET = 'hunter2-very-secret-passphrase';
registerSecret(SECRET);
const calls: string[] = [];
const handlers = {
  'echo.say': (i: { text: string; times?: number }) => (calls.push('say'), i.text.repeat(i.times ?? 1)),
  'echo.nested': (i: { outer: { inner: string } }) => i.outer.inner,
  'echo.none': () => 'nothing',
  'echo.fail': (i: { kind: string }) => {
    if (i.kind === 'gpudesk') throw new GpuDeskError('PROFILE_NOT_FOUND', 'No profile named "x".', 'Pick a saved profile.');
    if (i.kind === 'secret') throw new Error(`ssh said: bad passphrase ${SECRET}\n-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----`);
    throw new TypeError('Cannot read properties of undefined (reading "x")');
  },
};
const logLines: string[] = [];
const dispatch = createDispatcher<Sender>({
  inputs, handlers, isTrustedSender: (s) => s.id === OUR_WINDOW.id, log: (l) => logLines.push(l),
});

describe('IPC dispatcher', () => {
  it('calls the handler with parsed input and wraps the value', async () => {
    expect(await dispatch(OUR_WINDOW, 'echo.say', { text: 'ab', times: 2 })).toEqual({ ok: true, value: 'abab' });
    expect(await dispatch(OUR_WINDOW, 'echo.none', undefined)).toEqual({ ok: true, value: 'nothing' });
  });

  it('refuses a sender that is not our window before anything else runs', async () => {
    calls.length = 0;
    const r = await dispatch({ id: 2 }, 'echo.say', { text: 'hi' });
    expect(r).toMatchObject({ ok: false, error: { code: 'IPC_BAD_SENDER' } });
    expect(calls).toEqual([]);
    const throwing = createDispatcher<Sender>({ inputs, handlers, isTrustedSender: () => { throw new Error('boom'); } });
    expect(await throwing(OUR_WINDOW, 'echo.say', { text: 'hi' })).toMatchObject({ ok: false, error: { code: 'IPC_BAD_SENDER' } });
  });

  it('rejects unknown and prototype method names without echoing junk', async () => {
    for (const m of ['nope', '__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const r = await dispatch(OUR_WINDOW, m, {});
      expect(r).toMatchObject({ ok: false, error: { code: 'IPC_UNKNOWN_METHOD' } });
    }
    const weird = await dispatch(OUR_WINDOW, 'x'.repeat(5000), {});
    expect(weird.ok).toBe(false);
    if (!weird.ok) expect(weird.error.message).toBe('Unknown IPC method.');
    expect((await dispatch(OUR_WINDOW, 42, {})).ok).toBe(false);
  });

  it('rejects wrong types with the path and without the value', async () => {
    const r = await dispatch(OUR_WINDOW, 'echo.say', { text: 12345678 });
    expect(r).toMatchObject({ ok: false, error: { code: 'IPC_BAD_INPUT' } });
    if (!r.ok) {
      expect(r.error.message).toContain('input.text');
      expect(r.error.message).not.toContain('12345678');
    }
    for (const bad of [null, 'text', 7, [], [{ text: 'a' }], true]) {
      expect((await dispatch(OUR_WINDOW, 'echo.say', bad)).ok).toBe(false);
    }
    expect((await dispatch(OUR_WINDOW, 'echo.none', { a: 1 })).ok).toBe(false);
  });

  it('rejects unknown keys at any depth even though the schema is non-strict', async () => {
    calls.length = 0;
    const top = await dispatch(OUR_WINDOW, 'echo.say', { text: 'a', isAdmin: true });
    expect(top).toMatchObject({ ok: false, error: { code: 'IPC_BAD_INPUT' } });
    if (!top.ok) expect(top.error.message).toContain('input.isAdmin');
    const deep = await dispatch(OUR_WINDOW, 'echo.nested', { outer: { inner: 'x', evil: 1 }, list: [{ n: 1 }, { n: 2, m: 3 }] });
    if (!deep.ok) expect(deep.error.message).toContain('input.outer.evil');
    else expect.fail('extra nested key accepted');
    const inList = await dispatch(OUR_WINDOW, 'echo.nested', { outer: { inner: 'x' }, list: [{ n: 1 }, { n: 2, m: 3 }] });
    if (!inList.ok) expect(inList.error.message).toContain('input.list[1].m');
    else expect.fail('extra key in array item accepted');
    expect(calls).toEqual([]);
  });

  it('rejects huge strings, deep nesting, prototype keys and non-plain objects', async () => {
    const huge = 'A'.repeat(8 << 20);
    const r = await dispatch(OUR_WINDOW, 'echo.say', { text: huge });
    expect(r).toMatchObject({ ok: false, error: { code: 'IPC_BAD_INPUT' } });
    if (!r.ok) expect(r.error.message.length).toBeLessThan(400);
    // Within the structural limit but over the schema's max(100):
    expect(await dispatch(OUR_WINDOW, 'echo.say', { text: 'B'.repeat(101) })).toMatchObject({ ok: false, error: { code: 'IPC_BAD_INPUT' } });
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 100_000; i++) deep = { inner: deep };
    expect(await dispatch(OUR_WINDOW, 'echo.nested', deep)).toMatchObject({ ok: false, error: { code: 'IPC_BAD_INPUT' } });
    const polluted = JSON.parse('{"text":"a","__proto__":{"polluted":true}}');
    expect(await dispatch(OUR_WINDOW, 'echo.say', polluted)).toMatchObject({ ok: false, error: { code: 'IPC_BAD_INPUT' } });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await dispatch(OUR_WINDOW, 'echo.say', { text: new Date() })).toMatchObject({ ok: false });
    expect(checkInputShape(new Map())).toMatch(/not a plain object/);
    expect(checkInputShape(Array.from({ length: 30_000 }, () => 1))).toMatch(/more than/);
  });

  it('turns handler errors into clean one-line values with no secret inside', async () => {
    expect(await dispatch(OUR_WINDOW, 'echo.fail', { kind: 'gpudesk' })).toEqual({
      ok: false, error: { code: 'PROFILE_NOT_FOUND', message: 'No profile named "x".', fix: 'Pick a saved profile.' },
    });
    const plain = await dispatch(OUR_WINDOW, 'echo.fail', { kind: 'plain' });
    expect(plain).toMatchObject({ ok: false, error: { code: 'INTERNAL' } });
    logLines.length = 0;
    const secret = await dispatch(OUR_WINDOW, 'echo.fail', { kind: 'secret' });
    expect(secret.ok).toBe(false);
    const text = JSON.stringify(secret);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('BEGIN OPENSSH');
    expect(text).not.toContain('\\n');
    expect(logLines.join('\n')).not.toContain(SECRET);
    expect(logLines.join('\n')).toContain('echo.fail');
  });

  it('refuses to start with a contract method that has no handler, or a handler with no method', () => {
    expect(() => createDispatcher({ inputs, handlers: { 'echo.say': () => 1 }, isTrustedSender: () => true })).toThrow(/no handler for echo.nested/);
    expect(() => createDispatcher({ inputs: {}, handlers: { x: () => 1 }, isTrustedSender: () => true })).toThrow(/without contract entry: x/);
  });

  it('forwards only contract events', () => {
    const sent: [string, unknown][] = [];
    const fwd = createEventForwarder(['tunnel.changed'], (e, p) => sent.push([e, p]));
    expect(fwd('tunnel.changed', { n: 1 })).toBe(true);
    expect(fwd('anything.else', {})).toBe(false);
    expect(sent).toEqual([['tunnel.changed', { n: 1 }]]);
  });
});
