import { GpuDeskError } from '../errors';
import type { SecretStore } from './secretStore';

type Keytar = typeof import('keytar');

export const DEFAULT_SERVICE = 'gpu-desk';

/** Windows Credential Manager holds at most CRED_MAX_CREDENTIAL_BLOB_SIZE = 5 × 512 bytes. */
export function platformMaxSecretBytes(platform = process.platform): number {
  return platform === 'win32' ? 2560 : Number.POSITIVE_INFINITY;
}

export interface KeytarStoreOptions {
  /** Default: GPU_DESK_KEYCHAIN_SERVICE or "gpu-desk". */
  service?: string;
  /** Default: GPU_DESK_KEYCHAIN_MAX_BYTES or the platform's limit (a parameter so the large-key path runs on Linux too). */
  maxSecretBytes?: number;
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
}

let keytarPromise: Promise<Keytar> | null = null;
function loadKeytar(): Promise<Keytar> {
  keytarPromise ??= import('keytar').then((m) => ((m as { default?: Keytar }).default ?? m) as Keytar);
  return keytarPromise;
}

/** The OS keychain through keytar: macOS Keychain, Windows Credential Manager, Secret Service on Linux. */
export function createKeytarStore(opts: KeytarStoreOptions = {}): SecretStore {
  const env = opts.env ?? process.env;
  const platform = opts.platform ?? process.platform;
  const service = opts.service ?? (env.GPU_DESK_KEYCHAIN_SERVICE?.trim() || DEFAULT_SERVICE);
  const envMax = Number(env.GPU_DESK_KEYCHAIN_MAX_BYTES);
  const maxSecretBytes = opts.maxSecretBytes ?? (Number.isFinite(envMax) && envMax > 0 ? envMax : platformMaxSecretBytes(platform));

  const call = async <T>(what: string, fn: (k: Keytar) => Promise<T>): Promise<T> => {
    let k: Keytar;
    try {
      k = await loadKeytar();
    } catch (e) {
      keytarPromise = null;
      throw new GpuDeskError(
        'KEYCHAIN_UNAVAILABLE',
        `the keychain module (keytar) could not be loaded: ${firstLine(e)}`,
        'reinstall gpu-desk; from source run "npm rebuild keytar" (or electron-rebuild for the app)',
        { cause: e },
      );
    }
    try {
      return await fn(k);
    } catch (e) {
      throw keychainError(e, what, platform);
    }
  };

  return {
    service,
    maxSecretBytes,
    get: (acct) => call('read', (k) => k.getPassword(service, acct)),
    set: async (acct, secret) => {
      const bytes = Buffer.byteLength(secret, 'utf8');
      if (bytes > maxSecretBytes) {
        throw new GpuDeskError('INTERNAL', `secret for ${acct} is ${bytes} bytes, over this keychain's ${maxSecretBytes}`, 'store it sealed in a file (KeyStore does this)');
      }
      await call('write', (k) => k.setPassword(service, acct, secret));
    },
    delete: (acct) => call('delete', (k) => k.deletePassword(service, acct)),
    accounts: () => call('list', async (k) => (await k.findCredentials(service)).map((c) => c.account).sort()),
  };
}

/** Map the platform's many phrasings onto two errors a user can act on; never include the secret. */
export function keychainError(e: unknown, what: string, platform: NodeJS.Platform = process.platform): GpuDeskError {
  const msg = firstLine(e);
  const locked = /locked|User interaction is not allowed|dismissed|cancel(l)?ed|passphrase you entered is not correct|-25308|-128/i.test(msg);
  if (locked) {
    return new GpuDeskError(
      'KEYCHAIN_LOCKED',
      `the OS keychain is locked, so gpu-desk could not ${what} its entry (${msg})`,
      platform === 'darwin'
        ? 'unlock the login keychain in Keychain Access and retry'
        : platform === 'win32'
          ? 'sign in to Windows again and retry'
          : 'unlock the "login" keyring (Passwords and Keys / Seahorse, or log in to the desktop) and retry',
      { cause: e },
    );
  }
  if (/collection\/login|no such secret collection|default collection/i.test(msg)) {
    return new GpuDeskError(
      'KEYCHAIN_UNAVAILABLE',
      `the Secret Service has no default keyring, so gpu-desk could not ${what} its entry (${msg})`,
      'create a "login" keyring and make it the default (Passwords and Keys / Seahorse → New keyring), or log in to a desktop once; gpu-desk never stores secrets in plain files',
      { cause: e },
    );
  }
  return new GpuDeskError(
    'KEYCHAIN_UNAVAILABLE',
    `no OS keychain is available to ${what} gpu-desk's entry (${msg})`,
    platform === 'linux'
      ? 'start a Secret Service on your D-Bus session (install gnome-keyring or KWallet and log in to a desktop; headless: dbus-run-session -- sh -c \'gnome-keyring-daemon --unlock --components=secrets; …\'); gpu-desk never stores secrets in plain files'
      : 'check that the system keychain service is running; gpu-desk never stores secrets in plain files',
    { cause: e },
  );
}

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0].slice(0, 200);
}
