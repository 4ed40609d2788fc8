import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppCore } from '../../../src/core/app/createAppCore';
import { savedPassword, savePassword } from '../../../src/core/keychain/passwords';
import type { PromptRequest } from '../../../src/shared/models';
import { cleanupAll, isRoot, startSshd, type SshdBed } from '../../bed';
import { memorySecrets } from '../../unit/app/services/fakes';
import { connectionsCore } from '../../helpers/appCore';

/**
 * Issue 34, finding 2: a password profile behind a jump host that offers only keyboard-interactive.
 * The jump host listens on 127.0.0.2 so that its prompts can be told from the target's (127.0.0.1).
 */

let jump: SshdBed;
let target: SshdBed;

beforeAll(async () => {
  [jump, target] = await Promise.all([
    startSshd({ extraConfig: ['ListenAddress 127.0.0.2', 'AuthenticationMethods keyboard-interactive'] }),
    startSshd(),
  ]);
}, 60_000);
afterAll(cleanupAll);

/** The bed's accounts have real passwords only when it runs as root (test/bed/sshd.ts). */
const NO_PASSWORD_WHY = 'not running as root: the bed has no account with a password, so a password profile cannot log in here';
if (!isRoot) console.log(`jumpPrompts.test.ts: ${NO_PASSWORD_WHY}`);

function core() {
  const secrets = memorySecrets();
  const prompts: PromptRequest[] = [];
  let answer: (p: PromptRequest) => unknown = () => null;
  const c: AppCore = connectionsCore({
    emit: (event, payload) => {
      if (event !== 'prompt') return;
      const p = payload as PromptRequest;
      prompts.push(p);
      const a = p.kind === 'hostKey' ? { kind: 'hostKey', decision: 'accept-once' } : p.kind === 'keyboardInteractive' ? { kind: 'answers', values: [answer(p)] } : { kind: 'secret', value: answer(p) };
      setImmediate(() => void c.handlers()['prompts.answer']({ promptId: p.promptId, answer: a as never }).catch(() => {}));
    },
    secrets,
  }).core;
  return { core: c, secrets, prompts, answerWith: (f: (p: PromptRequest) => unknown) => { answer = f; } };
}

const profile = (name: string) => ({
  name, host: '127.0.0.1', port: target.port, user: target.user, jumpHosts: [`${jump.user}@127.0.0.2:${jump.port}`],
  auth: { kind: 'password' as const, remember: true },
  display: {}, viewer: { quality: 6, compression: 2, encodings: ['tight' as const], scaling: 'fit' as const, adaptive: false }, forwards: [],
});

const asked = (prompts: PromptRequest[]) => prompts.filter((p) => p.kind !== 'hostKey').map((p) => (p.kind === 'password' ? `password ${p.user}@${p.host}` : p.kind === 'keyboardInteractive' ? `kbd ${p.name}` : p.kind));

describe('a password profile behind a keyboard-interactive-only jump host (through the IPC handlers)', () => {
  it('the remembered password is filled in for the target only: the jump host gets its own prompt, named for it', async (ctx) => {
    if (!target.password) return ctx.skip(NO_PASSWORD_WHY);
    const { core: c, secrets, prompts, answerWith } = core();
    const h = c.handlers();
    const p = await h['profiles.save']({ profile: profile('behind-jump') });
    await savePassword(secrets, p.id, target.password);
    answerWith(() => jump.password);
    const conn = await h['connections.open']({ profileId: p.id });
    expect(conn.state).toBe('ready');
    expect(asked(prompts)).toEqual([`password ${jump.user}@127.0.0.2`]);
  });

  it("a password typed for the jump host is never remembered as the target's; each prompt names the server that asks", async (ctx) => {
    if (!target.password) return ctx.skip(NO_PASSWORD_WHY);
    const { core: c, secrets, prompts, answerWith } = core();
    const h = c.handlers();
    const p = await h['profiles.save']({ profile: profile('behind-jump-2') });
    answerWith(() => target.password);
    const conn = await h['connections.open']({ profileId: p.id });
    expect(conn.state).toBe('ready');
    expect(asked(prompts)).toEqual([`password ${jump.user}@127.0.0.2`, `password ${target.user}@127.0.0.1`]);
    // Remembered: what the target accepted, typed at the target's own prompt.
    expect(await savedPassword(secrets, p.id)).toBe(target.password);
  });
});
