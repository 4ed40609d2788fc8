import { describe, expect, it } from 'vitest';
import { PromptBroker } from '../../../../src/core/app/prompts';
import { appConnectOptions, type PasswordState } from '../../../../src/core/app/services/appConnectOptions';
import type { Profile, PromptRequest } from '../../../../src/shared/models';

function setup(auth: Profile['auth']) {
  const asked: PromptRequest[] = [];
  const prompts = new PromptBroker((r) => {
    asked.push(r);
    // The person types "typed-<host>" into whatever is asked.
    setImmediate(() => prompts.answer(r.promptId, r.kind === 'keyboardInteractive' ? { kind: 'answers', values: r.prompts.map(() => `typed-${r.name}`) } : { kind: 'secret', value: `typed-${r.kind === 'password' ? r.host : ''}` }));
  }, () => {});
  const p = { id: 'p1', name: 'gpu', kind: 'server', host: 'gpu1', port: 22, user: 'me', jumpHosts: ['j@bastion'], auth, display: {}, forwards: [] } as unknown as Profile;
  const pw: PasswordState = { saved: 'the-targets-saved-password' };
  return { asked, pw, opts: appConnectOptions({ prompts, knownHostsFile: '/dev/null', log: () => {} }, p, { id: 'c1', typed: [], accepted: new Set() }, pw) };
}

const pwPrompt = [{ prompt: 'Password: ', echo: false }];

describe("the app's questions name the hop that asks (issue 34, finding 2)", () => {
  it("a jump host's \"Password:\" is asked in its own name, never filled in with the target's, and not kept as the target's", async () => {
    const { asked, pw, opts } = setup({ kind: 'password', remember: true });
    const kb = (await opts).callbacks!.keyboardInteractive!;
    expect(await kb({ name: '', instructions: '', prompts: pwPrompt, user: 'j', host: 'bastion', hop: 0, isTarget: false })).toEqual(['typed-bastion']);
    expect(asked.map((a) => [a.kind, a.kind === 'password' ? `${a.user}@${a.host}` : ''])).toEqual([['password', 'j@bastion']]);
    expect(pw.typed).toBeUndefined();
    // The target's own prompt gets the remembered password, with no question.
    expect(await kb({ name: '', instructions: '', prompts: pwPrompt, user: 'me', host: 'gpu1', hop: 1, isTarget: true })).toEqual(['the-targets-saved-password']);
    expect(asked).toHaveLength(1);
    // A password method question from the jump host is not the profile's either.
    expect(await (await opts).callbacks!.askPassword!({ user: 'j', host: 'bastion', hop: 0, isTarget: false })).toBe('typed-bastion');
    expect(pw.typed).toBeUndefined();
    expect(await (await opts).callbacks!.askPassword!({ user: 'me', host: 'gpu1', hop: 1, isTarget: true })).toBe('typed-gpu1');
    expect(pw.typed).toBe('typed-gpu1');
  });

  it('a 2FA question says which server asks', async () => {
    const { asked, opts } = setup({ kind: 'auto' });
    const kb = (await opts).callbacks!.keyboardInteractive!;
    await kb({ name: 'Duo', instructions: '', prompts: [{ prompt: 'Passcode: ', echo: true }], user: 'j', host: 'bastion', hop: 0, isTarget: false });
    await kb({ name: '', instructions: '', prompts: [{ prompt: 'Code: ', echo: true }], user: 'me', host: 'gpu1', hop: 1, isTarget: true });
    expect(asked.map((a) => (a.kind === 'keyboardInteractive' ? a.name : a.kind))).toEqual(['j@bastion: Duo', 'me@gpu1']);
  });
});
