import { KeyStore } from '../keychain/keyStore';
import { createKeytarStore } from '../keychain/keytarStore';
import type { SecretStore } from '../keychain/secretStore';
import { appPaths } from '../profiles/appPaths';
import { ProfileStore } from '../profiles/profileStore';
import { writeLine, type CliIo } from './io';

/** The stores every profile/key command works on, placed by GPU_DESK_HOME / the platform data dir. */
export function appStores(io: CliIo): { profiles: ProfileStore; secrets: SecretStore; keys: KeyStore } {
  const paths = appPaths({ env: io.env });
  const profiles = new ProfileStore({ file: paths.profilesFile, notice: (l) => writeLine(io.stderr, `gpu-desk: ${l}`) });
  const secrets = createKeytarStore({ env: io.env });
  return { profiles, secrets, keys: new KeyStore({ secrets, profiles, keysDir: paths.keysDir }) };
}
