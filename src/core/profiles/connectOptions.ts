import { GpuDeskError } from '../errors';
import { keychainKeySource } from '../keychain/keySource';
import type { KeyStore } from '../keychain/keyStore';
import { savedPassword } from '../keychain/passwords';
import type { SecretStore } from '../keychain/secretStore';
import type { ConnectCallbacks, ConnectOptions, KeySource } from '../ssh/types';
import type { Profile } from '../../shared/profileSchema';

/** The profile's host as a destination word (IPv6 literals need brackets). */
export function profileDestination(p: Pick<Profile, 'host'>): string {
  return p.host.includes(':') && !p.host.startsWith('[') ? `[${p.host}]` : p.host;
}

export interface ProfileConnectDeps {
  /** A keychain key as a key source; absent: a keychain-key profile is refused with the fix. */
  keychainKey?(name: string): KeySource;
  /** A password profile's password for this attempt (remembered, or typed a moment ago). */
  password?: string;
  /** How the connection asks the person: the CLI's terminal, the app's window. */
  callbacks?: ConnectCallbacks;
}

/**
 * What a saved profile contributes to a connection, the one mapping the app and the CLI both use;
 * the caller adds where known hosts live, timeouts and reconnecting. Which keys each sign-in offers,
 * beside what OpenSSH does (ssh2 tries them in OpenSSH's order: agent, keys, keyboard-interactive,
 * password; see ssh/auth.ts):
 *
 * | auth         | offers                                                      | OpenSSH equivalent                          |
 * | ------------ | ----------------------------------------------------------- | ------------------------------------------- |
 * | auto         | agent, then IdentityFile from ssh_config or the default     | `ssh host`                                  |
 * |              | ~/.ssh/id_* keys, then keyboard-interactive and password    |                                             |
 * | agent        | the agent's keys only (the given socket, else IdentityAgent | `ssh -o IdentityAgent=SOCK -o IdentityFile=none` |
 * |              | / SSH_AUTH_SOCK); no key files                              |                                             |
 * | key-file     | that file (and ssh_config IdentityFile lines); no agent,    | `ssh -i FILE -o IdentitiesOnly=yes`         |
 * |              | no default keys                                             | (without the agent's copy of FILE)          |
 * | keychain-key | that keychain key alone; no agent, no key files             | `ssh -i KEY -o IdentitiesOnly=yes -o IdentityFile=none` |
 * | password     | no keys at all: keyboard-interactive and password           | `ssh -o PubkeyAuthentication=no`            |
 *
 * A profile that names its key offers it alone: an agent full of other keys can use up the server's
 * MaxAuthTries before the named key is tried (OpenSSH's reason for IdentitiesOnly). `identityFiles: []`
 * means "no key files" (not "none given"), as `IdentityFile none` does for ssh. These apply to the
 * target's key files; jump hosts use their own (ssh_config or the defaults), while the agent setting
 * and a keychain key reach every hop, as ssh's -o options reach its jump hosts.
 */
export function profileConnectOptions(p: Profile, deps: ProfileConnectDeps = {}): Partial<ConnectOptions> & Pick<ConnectOptions, 'destination'> {
  const out: Partial<ConnectOptions> & Pick<ConnectOptions, 'destination'> = {
    destination: profileDestination(p),
    port: p.port,
    ...(p.user ? { user: p.user } : {}),
    ...(p.jumpHosts.length ? { jump: p.jumpHosts } : {}),
    ...(p.proxyCommand ? { proxyCommand: p.proxyCommand } : {}),
    ...(deps.callbacks ? { callbacks: deps.callbacks } : {}),
  };
  switch (p.auth.kind) {
    case 'auto':
      break;
    case 'agent':
      out.agent = p.auth.socket ?? true;
      out.identityFiles = [];
      break;
    case 'key-file':
      out.agent = false;
      out.identityFiles = [p.auth.path];
      break;
    case 'keychain-key':
      if (!deps.keychainKey) throw new GpuDeskError('KEYCHAIN_UNAVAILABLE', 'Keychain keys are not available in this build', 'use a key file or the agent for this server');
      out.agent = false;
      out.identityFiles = [];
      out.keySources = [deps.keychainKey(p.auth.key)];
      break;
    case 'password':
      out.agent = false;
      out.identityFiles = [];
      if (deps.password !== undefined) out.password = deps.password;
      break;
  }
  return out;
}

/**
 * The CLI's way in: the profile's options with its remembered password and keychain key taken
 * from the keychain here, at connect time, never copied anywhere else.
 */
export async function savedProfileConnectOptions(p: Profile, deps: { keys: KeyStore; secrets: SecretStore }): Promise<Partial<ConnectOptions>> {
  const password = p.auth.kind === 'password' && p.auth.remember ? ((await savedPassword(deps.secrets, p.id)) ?? undefined) : undefined;
  return profileConnectOptions(p, { keychainKey: (name) => keychainKeySource(deps.keys, [name]), ...(password !== undefined ? { password } : {}) });
}
