import { describe, expect, it } from 'vitest';
import { PromptBroker } from '../../../src/core/app/prompts';
import type { PromptRequest } from '../../../src/shared/models';

describe('PromptBroker', () => {
  const make = () => {
    const asked: PromptRequest[] = [];
    const cancelled: string[] = [];
    const b = new PromptBroker((r) => asked.push(r), (id) => cancelled.push(id));
    return { b, asked, cancelled };
  };

  it('routes an answer of the right kind to the waiting question, once', async () => {
    const { b, asked } = make();
    const p = b.ask('c1', { kind: 'password', user: 'u', host: 'h' });
    expect(asked[0]).toMatchObject({ connectionId: 'c1', kind: 'password', user: 'u' });
    expect(asked[0].promptId).toMatch(/^[A-Za-z0-9_-]{16}$/);
    b.answer(asked[0].promptId, { kind: 'secret', value: 'pw' });
    await expect(p).resolves.toEqual({ kind: 'secret', value: 'pw' });
    expect(() => b.answer(asked[0].promptId, { kind: 'secret', value: 'again' })).toThrow(/no longer waiting/);
  });

  it('refuses an answer of another kind (a host-key "accept" cannot answer a password prompt)', () => {
    const { b, asked } = make();
    void b.ask('c1', { kind: 'password', user: 'u', host: 'h' });
    expect(() => b.answer(asked[0].promptId, { kind: 'hostKey', decision: 'accept-save' })).toThrow(/needs a "secret" answer/);
    expect(b.pendingCount()).toBe(1);
  });

  it('a closed connection answers its open questions with "no" and tells the windows', async () => {
    const { b, asked, cancelled } = make();
    const hk = b.ask('c1', { kind: 'hostKey', host: 'h', port: 22, keyType: 'ssh-ed25519', fingerprint: 'SHA256:x', hop: 0 });
    const kb = b.ask('c1', { kind: 'keyboardInteractive', name: '', instructions: '', prompts: [{ prompt: 'OTP', echo: false }] });
    const other = b.ask('c2', { kind: 'passphrase', keyLabel: 'k' });
    b.cancelFor('c1');
    await expect(hk).resolves.toEqual({ kind: 'hostKey', decision: 'reject' });
    await expect(kb).resolves.toEqual({ kind: 'answers', values: null });
    expect(cancelled).toEqual([asked[0].promptId, asked[1].promptId]);
    expect(b.pendingCount()).toBe(1);
    b.answer(asked[2].promptId, { kind: 'secret', value: null });
    await expect(other).resolves.toEqual({ kind: 'secret', value: null });
  });
});
