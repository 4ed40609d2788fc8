import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AppCore, type AppCoreDeps } from '../../src/core/app/createAppCore';
import { remoteOps, type RemoteOps } from '../../src/core/app/remoteOps';
import { ProfileStore } from '../../src/core/profiles/profileStore';
import { ChannelHub } from '../../src/core/vnc/channelHub';
import { registerCleanup } from '../bed';

/**
 * The app's core for tests of its SSH side (connections, prompts, keys): a fresh data directory,
 * no viewer hub and no remote operations, nothing from the person's ~/.ssh. Shut down and removed at
 * clean-up. `emit` sees every event (the tests answer prompts from it).
 */
export function connectionsCore(o: { emit: AppCoreDeps['emit']; secrets?: AppCoreDeps['secrets']; userKnownHostsFiles?: string[] }): { core: AppCore; dir: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-core-'));
  const core = new AppCore({
    profiles: new ProfileStore({ file: path.join(dir, 'profiles.json'), notice: () => {} }),
    knownHostsFile: path.join(dir, 'known_hosts'),
    settingsFile: path.join(dir, 'settings.json'),
    hub: {} as ChannelHub,
    channelBase: () => 'ws://127.0.0.1:1',
    emit: o.emit,
    remote: {} as RemoteOps,
    shell: 'harness',
    version: 'test',
    ...(o.secrets ? { secrets: o.secrets } : {}),
    sshConfigPath: null,
    userKnownHostsFiles: o.userKnownHostsFiles ?? [],
  });
  registerCleanup(async () => {
    await core.shutdown();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { core, dir };
}

/**
 * The whole app core as the harness builds it, for tests that drive its handlers against a real bed:
 * the real remote operations and a channel hub (the test's own, e.g. one that counts, or a fresh one),
 * a fresh data directory, nothing from ~/.ssh or ~/.ssh/config, and a host key accepted once when it
 * asks (the test's bed is new each run). `emit` sees every event first. Shut down at clean-up.
 */
export function appCoreOnBed(o: { prefix: string; hub?: ChannelHub; emit?: AppCoreDeps['emit']; deps?: Partial<AppCoreDeps> }): { core: AppCore; dir: string; hub: ChannelHub } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), o.prefix));
  const hub = o.hub ?? new ChannelHub({ allowedOrigins: () => [] });
  const core: AppCore = new AppCore({
    profiles: new ProfileStore({ file: path.join(dir, 'profiles.json'), notice: () => {} }),
    knownHostsFile: path.join(dir, 'known_hosts'),
    settingsFile: path.join(dir, 'settings.json'),
    hub,
    channelBase: () => 'ws://127.0.0.1:1',
    emit: (event, payload) => {
      o.emit?.(event, payload);
      if (event === 'prompt') void core.handlers()['prompts.answer']({ promptId: (payload as { promptId: string }).promptId, answer: { kind: 'hostKey', decision: 'accept-once' } });
    },
    remote: remoteOps(),
    shell: 'harness',
    version: 'test',
    sshConfigPath: null,
    userKnownHostsFiles: [],
    ...o.deps,
  });
  registerCleanup(async () => {
    await core.shutdown();
    await hub.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return { core, dir, hub };
}
