import { randomBytes } from 'node:crypto';
import { createKeytarStore } from '../../../src/core/keychain/keytarStore';
import type { SecretStore } from '../../../src/core/keychain/secretStore';

/** A unique keychain service per test file, so parallel files and other suites never collide. */
export function testService(tag: string): string {
  return `gpu-desk-test-${tag}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

/**
 * These tests need a real Secret Service. `bash test/run-all.sh …` provides one (dbus-run-session +
 * unlocked gnome-keyring); without it the test fails with this explanation instead of skipping.
 */
export async function requireKeyring(store: SecretStore): Promise<void> {
  try {
    await store.set('probe', 'probe-value');
    await store.delete('probe');
  } catch (e) {
    throw new Error(`this test needs a real, unlocked Secret Service (${(e as Error).message}); run it with: GPU_DESK_VITEST_ONLY=1 bash test/run-all.sh <test file>`);
  }
}

/** Remove every entry a test left under its service. */
export async function clearService(store: SecretStore): Promise<void> {
  for (const a of await store.accounts().catch(() => [])) await store.delete(a).catch(() => false);
}

export { createKeytarStore };
