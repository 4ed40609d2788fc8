/**
 * Runs in a child whose D-Bus/keyring environment the parent controls: tries to generate a key
 * with the real keytar store and prints the outcome as one JSON line.
 */
import { KeyStore } from '../../../src/core/keychain/keyStore';
import { createKeytarStore } from '../../../src/core/keychain/keytarStore';
import { ProfileStore } from '../../../src/core/profiles/profileStore';
import { appPaths } from '../../../src/core/profiles/appPaths';

async function run(): Promise<void> {
  const paths = appPaths();
  const keys = new KeyStore({ secrets: createKeytarStore(), profiles: new ProfileStore({ file: paths.profilesFile }), keysDir: paths.keysDir });
  try {
    const rec = await keys.generate(process.argv[2] ?? 'k');
    process.stdout.write(JSON.stringify({ ok: true, storage: rec.storage }) + '\n');
  } catch (e) {
    const err = e as { code?: string; message?: string; fix?: string };
    process.stdout.write(JSON.stringify({ ok: false, code: err.code, message: err.message, fix: err.fix }) + '\n');
  }
}
void run();
