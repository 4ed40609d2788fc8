import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AppCore, type AppCoreDeps } from '../../../../src/core/app/createAppCore';
import type { RemoteOps } from '../../../../src/core/app/remoteOps';
import { ProfileStore } from '../../../../src/core/profiles/profileStore';
import type { ChannelHub } from '../../../../src/core/vnc/channelHub';
import type { SecretStore } from '../../../../src/core/keychain/secretStore';
import type { EventName, ParsedInput } from '../../../../src/shared/contract';

export interface Recorded {
  event: EventName;
  payload: unknown;
}

/** The app core with no network at all: a temp profiles file, recorded events, and no hub or remote behind it. */
export function offlineCore(deps: Partial<AppCoreDeps> = {}): { core: AppCore; events: Recorded[]; dir: string; store: ProfileStore } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gd-services-'));
  const events: Recorded[] = [];
  const store = new ProfileStore({ file: path.join(dir, 'profiles.json'), notice: () => {} });
  const core = new AppCore({
    profiles: store,
    knownHostsFile: path.join(dir, 'known_hosts'),
    settingsFile: path.join(dir, 'settings.json'),
    hub: {} as ChannelHub,
    channelBase: () => 'ws://127.0.0.1:1',
    emit: (event, payload) => events.push({ event, payload }),
    remote: {} as RemoteOps,
    shell: 'harness',
    version: '0.0.0-test',
    sshConfigPath: null,
    userKnownHostsFiles: [],
    ...deps,
  });
  return { core, events, dir, store };
}

export const sampleProfile = (name: string, over: Partial<ParsedInput<'profiles.save'>['profile']> = {}): ParsedInput<'profiles.save'>['profile'] => ({
  name, host: '127.0.0.1', port: 22, user: 'gdtest', jumpHosts: [], auth: { kind: 'agent' },
  display: { number: 1, geometry: '1280x720' }, viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'fit', adaptive: false }, forwards: [], ...over,
});

/** The keychain as a map (the real one needs a desktop session). */
export function memorySecrets(): SecretStore & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    service: 'gpu-desk-test',
    maxSecretBytes: 2560,
    get: async (a) => map.get(a) ?? null,
    set: async (a, s) => { map.set(a, s); },
    delete: async (a) => map.delete(a),
    accounts: async () => [...map.keys()],
  };
}
