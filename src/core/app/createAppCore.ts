import fs from 'node:fs';
import path from 'node:path';
import { AppCore, type AppCoreDeps } from './appCore';
import { appPaths, ensureDir } from '../profiles/appPaths';
import { ProfileStore } from '../profiles/profileStore';
import { createKeytarStore } from '../keychain/keytarStore';
import { KeyStore } from '../keychain/keyStore';
import { keychainKeySource } from '../keychain/keySource';
import { remoteOps } from './remoteAdapter';

type Required = Pick<AppCoreDeps, 'hub' | 'channelBase' | 'emit' | 'shell'>;

function packageVersion(): string {
  try {
    return JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')).version;
  } catch {
    return '0.0.0';
  }
}

/** The app's services with the real collaborators (profiles file, OS keychain, remote core). */
export async function createAppCore(deps: Required & Partial<AppCoreDeps>): Promise<AppCore> {
  const paths = appPaths();
  ensureDir(paths.dataDir);
  const profiles = deps.profiles ?? new ProfileStore({ file: paths.profilesFile, notice: (l) => deps.log?.(l) });
  const secrets = deps.secrets ?? createKeytarStore();
  const keys = new KeyStore({ secrets, profiles });
  return new AppCore({
    profiles,
    knownHostsFile: paths.knownHostsFile,
    remote: remoteOps(),
    version: packageVersion(),
    settingsFile: path.join(paths.dataDir, 'settings.json'),
    jobRecordsFile: path.join(paths.dataDir, 'desktop-jobs.json'),
    secrets,
    keychainKeySource: (name) => keychainKeySource(keys, [name]),
    keys,
    ...deps,
  });
}
