import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keychainError, platformMaxSecretBytes } from '../../../src/core/keychain/keytarStore';
import { clearService, createKeytarStore, requireKeyring, testService } from '../../helpers/profiles/keyring';

const worker = path.join(__dirname, '../../helpers/profiles/keychainWorker.ts');
const store = createKeytarStore({ service: testService('kt') });
let tmp: string;

beforeAll(async () => {
  await requireKeyring(store);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-kt-'));
});
afterAll(async () => {
  await clearService(store);
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Run the worker (a real KeyStore.generate through keytar) in an environment the test controls. */
function runWorker(env: NodeJS.ProcessEnv, wrap?: (cmd: string) => string[]) {
  const home = fs.mkdtempSync(path.join(tmp, 'home-'));
  const dataDir = path.join(home, 'data');
  const base: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_DATA_HOME: path.join(home, '.local/share'), GPU_DESK_HOME: dataDir, GPU_DESK_KEYCHAIN_SERVICE: testService('child'), ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete base[k];
  const node = `${JSON.stringify(process.execPath)} --import tsx ${JSON.stringify(worker)} k`;
  const [cmd, ...args] = wrap ? wrap(node) : ['sh', '-c', node];
  const r = spawnSync(cmd, args, { env: base, cwd: path.join(__dirname, '../../..'), encoding: 'utf8', timeout: 60_000 });
  const line = r.stdout.trim().split('\n').pop() ?? '';
  let result: { ok: boolean; code?: string; message?: string; fix?: string };
  try {
    result = JSON.parse(line);
  } catch {
    throw new Error(`worker printed no result (exit ${r.status}): ${r.stderr.slice(-500)}`);
  }
  return { result, dataDir };
}

/** After a failed generate, nothing secret may have been written anywhere as a fallback. */
function expectNoFallback(dataDir: string): void {
  const files = fs.existsSync(dataDir) ? fs.readdirSync(dataDir, { recursive: true }).map(String) : [];
  expect(files.filter((f) => f.startsWith('keys'))).toEqual([]);
  if (files.includes('profiles.json')) {
    expect(JSON.parse(fs.readFileSync(path.join(dataDir, 'profiles.json'), 'utf8')).keys).toEqual([]);
  }
}

describe('keytar SecretStore on a real Secret Service', () => {
  it('stores, reads, lists (names only) and deletes entries under its own service', async () => {
    await store.set('key:a', 'secret-A');
    await store.set('password:p1', 'secret-P');
    expect(await store.get('key:a')).toBe('secret-A');
    expect(await store.accounts()).toEqual(['key:a', 'password:p1']);
    expect(await store.delete('key:a')).toBe(true);
    expect(await store.delete('key:a')).toBe(false);
    expect(await store.get('key:a')).toBeNull();
    // Another service name sees none of it.
    const other = createKeytarStore({ service: testService('other') });
    expect(await other.accounts()).toEqual([]);
  });

  it('refuses a secret larger than the platform entry limit instead of truncating it', async () => {
    const small = createKeytarStore({ service: store.service, maxSecretBytes: 16 });
    await expect(small.set('big', 'x'.repeat(17))).rejects.toThrow(/17 bytes, over this keychain's 16/);
    expect(await store.get('big')).toBeNull();
    expect(platformMaxSecretBytes('win32')).toBe(2560);
    expect(platformMaxSecretBytes('linux')).toBe(Infinity);
  });

  it('service name and size limit can be overridden from the environment', () => {
    const s = createKeytarStore({ env: { GPU_DESK_KEYCHAIN_SERVICE: 'svc-x', GPU_DESK_KEYCHAIN_MAX_BYTES: '2560' } });
    expect(s.service).toBe('svc-x');
    expect(s.maxSecretBytes).toBe(2560);
    expect(createKeytarStore({ env: {} }).service).toBe('gpu-desk');
  });
});

describe('no usable keychain: a clear error with the fix, never a plaintext fallback', () => {
  it('D-Bus address pointing nowhere → KEYCHAIN_UNAVAILABLE', () => {
    const { result, dataDir } = runWorker({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/gpu-desk-bus' });
    expect(result).toMatchObject({ ok: false, code: 'KEYCHAIN_UNAVAILABLE' });
    expect(result.message).toMatch(/no OS keychain is available/);
    expect(result.fix).toMatch(/Secret Service.*gnome-keyring.*never stores secrets in plain files/);
    expectNoFallback(dataDir);
  });

  it('no D-Bus session and no X display (a bare SSH login) → KEYCHAIN_UNAVAILABLE', () => {
    const { result, dataDir } = runWorker({ DBUS_SESSION_BUS_ADDRESS: undefined, DISPLAY: undefined });
    expect(result).toMatchObject({ ok: false, code: 'KEYCHAIN_UNAVAILABLE' });
    expect(result.message).toMatch(/Cannot autolaunch D-Bus/);
    expectNoFallback(dataDir);
  });

  it('a Secret Service whose keyring is locked → KEYCHAIN_LOCKED', () => {
    // In a fresh HOME: a first session creates the login keyring (with a password), a second
    // starts gnome-keyring without unlocking it — what a desktop looks like after auto-login.
    const { result, dataDir } = runWorker({ DISPLAY: undefined }, (node) => [
      'sh', '-c',
      `dbus-run-session -- sh -c 'echo -n create-pw | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1' 2>/dev/null; ` +
        `dbus-run-session -- sh -c 'gnome-keyring-daemon --start --components=secrets >/dev/null 2>&1; ${node}' 2>/dev/null`,
    ]);
    expect(result).toMatchObject({ ok: false, code: 'KEYCHAIN_LOCKED' });
    expect(result.fix).toMatch(/unlock the "login" keyring/);
    expectNoFallback(dataDir);
  });

  it('a Secret Service with no login keyring at all → KEYCHAIN_UNAVAILABLE naming the missing keyring', () => {
    const { result, dataDir } = runWorker({ DISPLAY: undefined }, (node) => [
      'dbus-run-session', '--', 'sh', '-c', `gnome-keyring-daemon --start --components=secrets >/dev/null 2>&1; ${node}`,
    ]);
    expect(result).toMatchObject({ ok: false, code: 'KEYCHAIN_UNAVAILABLE' });
    expect(result.fix).toMatch(/create a "login" keyring/);
    expectNoFallback(dataDir);
  });

  it('maps platform phrasings onto the two errors', () => {
    expect(keychainError(new Error('User interaction is not allowed.'), 'read', 'darwin').code).toBe('KEYCHAIN_LOCKED');
    expect(keychainError(new Error('The name org.freedesktop.secrets was not provided by any .service files'), 'read', 'linux').code).toBe('KEYCHAIN_UNAVAILABLE');
  });
});
