import { describe, expect, it } from 'vitest';
import { defaultIdentityFiles } from '../../../src/core/ssh/auth';
import { resolveTarget } from '../../../src/core/ssh/resolve';
import { parseSshConfig } from '../../../src/core/ssh/sshConfig';
import { profileConnectOptions } from '../../../src/core/profiles/connectOptions';
import type { Profile } from '../../../src/core/profiles/schema';

const base = { appKnownHostsFile: '/dev/null' };
const cfg = parseSshConfig(['Host cfg', '  IdentityFile /keys/from-config'].join('\n'), 'cfg');
const files = (o: Parameters<typeof resolveTarget>[0]) => resolveTarget(o, cfg).hops.at(-1)!.endpoint.identityFiles;

describe('which key files the target is offered (as ssh decides it)', () => {
  it('none given: ssh_config IdentityFile, else the default ~/.ssh/id_* keys', () => {
    expect(files({ ...base, destination: 'cfg' })).toEqual(['/keys/from-config']);
    expect(files({ ...base, destination: 'plain' })).toEqual(defaultIdentityFiles());
  });

  it('an empty list given is "no key files" (IdentityFile none): neither the config\'s nor the defaults', () => {
    expect(files({ ...base, destination: 'cfg', identityFiles: [] })).toEqual([]);
    expect(files({ ...base, destination: 'plain', identityFiles: [] })).toEqual([]);
  });

  it('-i FILE: that file first, then the config\'s, never the defaults', () => {
    expect(files({ ...base, destination: 'cfg', identityFiles: ['/dev/null'] })).toEqual(['/dev/null', '/keys/from-config']);
    expect(files({ ...base, destination: 'plain', identityFiles: ['/dev/null'] })).toEqual(['/dev/null']);
  });
});

describe('profile → connection options (the one mapping the app and the CLI use)', () => {
  const p = (auth: Profile['auth']) => ({ id: 'p1', name: 'n', kind: 'server', host: 'fe80::1', port: 2222, user: 'me', jumpHosts: ['j@bastion'], auth, display: {}, forwards: [] }) as unknown as Profile;
  it.each([
    [{ kind: 'auto' }, {}],
    [{ kind: 'agent', socket: '/run/agent' }, { agent: '/run/agent', identityFiles: [] }],
    [{ kind: 'key-file', path: '/k/id' }, { agent: false, identityFiles: ['/k/id'] }],
    [{ kind: 'password', remember: true }, { agent: false, identityFiles: [], password: 'pw' }],
  ] as [Profile['auth'], object][])('%o', (auth, want) => {
    const o = profileConnectOptions(p(auth), { password: 'pw', keychainKey: () => ({ loadKeys: async () => [] }) });
    const { destination, port, user, jump, ...rest } = o;
    expect({ destination, port, user, jump }).toEqual({ destination: '[fe80::1]', port: 2222, user: 'me', jump: ['j@bastion'] });
    expect(rest).toEqual(want);
  });

  it('keychain-key: that key alone; refused with the fix where there is no keychain', () => {
    const src = { loadKeys: async () => [] };
    expect(profileConnectOptions(p({ kind: 'keychain-key', key: 'laptop' }), { keychainKey: () => src })).toMatchObject({ agent: false, identityFiles: [], keySources: [src] });
    expect(() => profileConnectOptions(p({ kind: 'keychain-key', key: 'laptop' }))).toThrow(/Keychain keys are not available/);
  });
});
