/**
 * The OS keychain as gpu-desk needs it: string secrets under one service, addressed by account.
 * Implementations never fall back to plaintext storage: no keychain means an error with the fix.
 */
export interface SecretStore {
  /** Keychain service name ("gpu-desk" unless overridden for tests). */
  readonly service: string;
  /** Largest secret one entry can hold, in UTF-8 bytes (Windows Credential Manager: 2560). */
  readonly maxSecretBytes: number;
  get(account: string): Promise<string | null>;
  set(account: string, secret: string): Promise<void>;
  /** true if an entry was deleted. */
  delete(account: string): Promise<boolean>;
  /** Account names only; secrets are never listed. */
  accounts(): Promise<string[]>;
}

/** Accounts are namespaced so keys, data keys and passwords can never collide. */
export const account = {
  key: (name: string) => `key:${name}`,
  dataKey: (name: string) => `datakey:${name}`,
  password: (profileId: string) => `password:${profileId}`,
};
