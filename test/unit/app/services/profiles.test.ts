import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Profile } from '../../../../src/shared/models';
import { KeyStore } from '../../../../src/core/keychain/keyStore';
import { memorySecrets, offlineCore, sampleProfile } from './fakes';

const changes = (events: { event: string; payload: unknown }[]) => events.filter((e) => e.event === 'profiles.changed').map((e) => (e.payload as Profile[]).map((p) => p.name));

describe('profiles service: every change is announced as profiles.changed (the tray and the server list follow it)', () => {
  it('save, import from a file (File → Import), import from ssh_config and remove each emit the list as it is now', async () => {
    const { core, events, dir } = offlineCore({
      dialogs: { openFile: async () => path.join(dir, 'export.json'), saveFile: async () => path.join(dir, 'export.json') },
      sshConfigPath: path.join(__dirname, 'no-such-config'),
    });
    const h = core.handlers();
    const a = await h['profiles.save']({ profile: sampleProfile('alpha') });
    expect(changes(events)).toEqual([['alpha']]);
    await h['profiles.exportFile']({});
    await h['profiles.remove']({ id: a.id });
    expect(changes(events)).toEqual([['alpha'], []]);
    const r = await h['profiles.importFile']({ replace: false });
    expect(r?.added).toEqual(['alpha']);
    expect(changes(events)).toEqual([['alpha'], [], ['alpha']]);
    await h['profiles.importSshConfig']({ aliases: ['nowhere'] }).catch(() => {});
    expect(changes(events).length).toBe(4);
  });

  it('removing a key with force switches the profiles that used it, and says so', async () => {
    const secrets = memorySecrets();
    const { store } = offlineCore();
    const keys = new KeyStore({ secrets, profiles: store });
    const c = offlineCore({ secrets, keys, profiles: store });
    await keys.generate('laptop');
    await c.core.handlers()['profiles.save']({ profile: sampleProfile('beta', { auth: { kind: 'keychain-key', key: 'laptop' } }) });
    c.events.length = 0;
    const r = await c.core.handlers()['keys.remove']({ name: 'laptop', force: true });
    expect(r.profilesChanged).toEqual(['beta']);
    expect(changes(c.events)).toEqual([['beta']]);
  });

  it('the handlers are one object, built once: a caller holding it sees what every other caller sees', () => {
    const { core } = offlineCore();
    expect(core.handlers()).toBe(core.handlers());
  });
});
