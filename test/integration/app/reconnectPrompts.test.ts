/**
 * A reconnect attempt that had to ask (here: the server refused the key, so the password is asked
 * for) and then died with the server must not leave its question open once a later attempt gets
 * through with the key: the window gets `prompt.cancel` for it. A fresh-clone CI run saw a password
 * dialog left over a viewer that had reconnected, blocking every click.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppCore } from '../../../src/core/app/createAppCore';
import type { PromptRequest } from '../../../src/shared/models';
import { cleanupAll, registerCleanup, startSshd, type SshdBed } from '../../bed';
import { memorySecrets } from '../../unit/app/services/fakes';
import { until } from '../../helpers/until';
import { connectionsCore } from '../../helpers/appCore';

let bed: SshdBed;
let core: AppCore;
const asked: PromptRequest[] = [];
const cancelled: string[] = [];

beforeAll(async () => {
  bed = await startSshd();
  core = connectionsCore({
    emit: (event, payload) => {
      if (event === 'prompt.cancel') cancelled.push((payload as { promptId: string }).promptId);
      if (event !== 'prompt') return;
      const p = payload as PromptRequest;
      // The host key is accepted; any other question is left for the person, who does not answer.
      if (p.kind === 'hostKey') void core.handlers()['prompts.answer']({ promptId: p.promptId, answer: { kind: 'hostKey', decision: 'accept-once' } });
      else asked.push(p);
    },
    secrets: memorySecrets(),
  }).core;
}, 60_000);
afterAll(cleanupAll);

describe('questions of a reconnect attempt that is over', () => {
  it('are cancelled when a later attempt connects', { timeout: 180_000 }, async () => {
    const h = core.handlers();
    const p = await h['profiles.save']({
      profile: {
        name: 'rk', host: '127.0.0.1', port: bed.port, user: bed.user, jumpHosts: [], auth: { kind: 'key-file', path: bed.userKeyPath },
        display: {}, viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'fit', adaptive: false }, forwards: [],
      },
    });
    const cid = (await h['connections.open']({ profileId: p.id })).id;
    const state = () => h['connections.list']({}).then((cs) => cs.find((c) => c.id === cid)?.state);
    expect(await state()).toBe('ready');
    expect(asked).toEqual([]);

    // The server comes back without the key authorised: the attempt falls through to asking.
    const keys = fs.readFileSync(bed.authorizedKeysPath);
    await bed.kill();
    fs.writeFileSync(bed.authorizedKeysPath, '');
    registerCleanup(() => fs.writeFileSync(bed.authorizedKeysPath, keys));
    await bed.restart();
    const q = (await until(async () => asked.slice(), (a) => a.length > 0, 'the reconnect attempt to ask'))[0];
    expect(['password', 'keyboardInteractive']).toContain(q.kind);
    expect(cancelled).not.toContain(q.promptId);

    // The key is authorised again and the server restarts under the waiting attempt: a later attempt connects with the key.
    fs.writeFileSync(bed.authorizedKeysPath, keys);
    await bed.kill();
    await bed.restart();
    await until(state, (s) => s === 'ready', 'connected again', 120_000);
    expect(cancelled).toContain(q.promptId);
    // Every question asked on the way is closed, and nothing waits for an answer.
    for (const a of asked) expect(cancelled).toContain(a.promptId);
    await h['connections.close']({ connectionId: cid });
  });
});
