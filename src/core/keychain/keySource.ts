import type { KeySource, SshEndpoint } from '../ssh/types';
import type { KeyStore } from './keyStore';

/**
 * Keychain keys offered to the SSH connection's auth seam. With names, those keys are required
 * (a missing keychain is an error the user must see); without, every stored key is offered the
 * way ssh-agent offers its keys, and an unavailable keychain simply offers none.
 */
export function keychainKeySource(keys: KeyStore, names?: string[]): KeySource {
  return {
    async loadKeys(_endpoint: SshEndpoint) {
      const required = names !== undefined;
      let chosen: string[];
      try {
        chosen = names ?? (await keys.list()).map((k) => k.name);
      } catch (e) {
        if (required) throw e;
        return [];
      }
      const out: { label: string; privateKey: string; certificateFile?: string }[] = [];
      for (const name of chosen) {
        try {
          const rec = await keys.get(name);
          out.push({ label: `keychain:${name}`, privateKey: await keys.privateKey(name), ...(rec.certificateFile ? { certificateFile: rec.certificateFile } : {}) });
        } catch (e) {
          if (required) throw e;
        }
      }
      return out;
    },
  };
}
