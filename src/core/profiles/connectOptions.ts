import { keychainKeySource } from '../keychain/keySource';
import type { KeyStore } from '../keychain/keyStore';
import { savedPassword } from '../keychain/passwords';
import type { SecretStore } from '../keychain/secretStore';
import type { ConnectOptions } from '../ssh/types';
import type { Profile } from '../../shared/profileSchema';

/** The profile's host as a destination word (IPv6 literals need brackets). */
export function profileDestination(p: Pick<Profile, 'host'>): string {
  return p.host.includes(':') && !p.host.startsWith('[') ? `[${p.host}]` : p.host;
}

/**
 * What a saved profile contributes to a connection. The caller adds appKnownHostsFile, callbacks
 * and any command-line overrides. Secrets are fetched from the keychain here, at connect time,
 * never copied anywhere else.
 */
export async function profileConnectOptions(p: Profile, deps: { keys: KeyStore; secrets: SecretStore }): Promise<Partial<ConnectOptions>> {
  const out: Partial<ConnectOptions> = {
    destination: profileDestination(p),
    port: p.port,
    ...(p.user ? { user: p.user } : {}),
    ...(p.jumpHosts.length ? { jump: p.jumpHosts } : {}),
    ...(p.proxyCommand ? { proxyCommand: p.proxyCommand } : {}),
  };
  switch (p.auth.kind) {
    case 'auto':
      break;
    case 'agent':
      out.agent = p.auth.socket ?? true;
      break;
    case 'keychain-key':
      // The profile names one key: offer it alone (an agent full of keys can hit MaxAuthTries first).
      out.keySources = [keychainKeySource(deps.keys, [p.auth.key])];
      out.agent = false;
      break;
    case 'key-file':
      out.identityFiles = [p.auth.path];
      break;
    case 'password': {
      out.agent = false;
      if (p.auth.remember) {
        const pw = await savedPassword(deps.secrets, p.id);
        if (pw !== null) out.password = pw;
      }
      break;
    }
  }
  return out;
}
