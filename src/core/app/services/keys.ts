import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { GpuDeskError, redactSecrets } from '../../errors';
import { connectSsh } from '../../ssh/connection';
import type { ConnectOptions } from '../../ssh/types';
import type { KeyStore } from '../../keychain/keyStore';
import { keychainKeySource } from '../../keychain/keySource';
import { installAndVerify, removePublicKeyFromServer } from '../../keychain/installKey';
import { passwordLoginOffCommands } from '../../keychain/passwordLoginOff';
import type { HandlersOf, ParsedInput } from '../../../shared/contract';
import type { KeyInstallView, KeyRemoveView, KeyView, Profile } from '../../../shared/models';
import type { FileDialogs } from '../fileDialogs';
import type { PromptBroker } from '../prompts';
import { keyView } from '../views';
import { remember } from './appConnectOptions';
import type { LiveConnection } from './connections';

export interface KeysDeps {
  /** The Keys screen's store (the same one the CLI's "gpu-desk keys" uses). */
  keys?: KeyStore;
  dialogs?: FileDialogs;
  prompts: PromptBroker;
  connections: {
    readyFor(profileId: string): Promise<LiveConnection>;
    optionsFor(c: LiveConnection): Promise<ConnectOptions>;
  };
  profiles: {
    list(): Promise<Profile[]>;
    useKey(profileId: string, key: string): Promise<void>;
    changed(): Promise<void>;
  };
}

/** keys.*: keychain keys, and installing one on a server (proved by a second, key-only login). */
export class Keys {
  constructor(private readonly deps: KeysDeps) {}

  handlers(): HandlersOf<'keys'> {
    return {
      'keys.list': async () => (await this.store().list()).map(keyView),
      'keys.generate': async ({ name }) => keyView(await this.store().generate(name)),
      'keys.importFile': (i) => this.importFile(i.name),
      'keys.certificate': (i) => this.certificate(i),
      'keys.remove': (i) => this.remove(i),
      'keys.install': (i) => this.install(i),
    };
  }

  private store(): KeyStore {
    if (!this.deps.keys) throw new GpuDeskError('KEYCHAIN_UNAVAILABLE', 'Keychain keys are not available in this build', 'use a key file or the agent for this server');
    return this.deps.keys;
  }

  private async importFile(name: string): Promise<KeyView | null> {
    const keys = this.store();
    if (!this.deps.dialogs) throw new GpuDeskError('BAD_ARGUMENT', 'Choosing files is not available in this window', 'use the command line: gpu-desk profiles export/import, gpu-desk keys import');
    const file = await this.deps.dialogs.openFile({ purpose: 'key' });
    if (!file) return null;
    // Its own prompt "connection", so the passphrase dialog can be cancelled like any other question.
    const askId = `key-import-${randomBytes(6).toString('hex')}`;
    try {
      const rec = await keys.importFile(name, file, {
        askPassphrase: async ({ attempt }) => {
          const a = await this.deps.prompts.ask(askId, { kind: 'passphrase', keyLabel: `${path.basename(file)}${attempt > 1 ? ' (wrong passphrase, try again)' : ''}` });
          return a.kind === 'secret' ? remember(a.value) : null;
        },
      });
      return keyView(rec);
    } finally {
      this.deps.prompts.cancelFor(askId);
    }
  }

  private async certificate({ name, detach }: ParsedInput<'keys.certificate'>): Promise<KeyView | null> {
    const keys = this.store();
    if (detach) return keyView(await keys.setCertificateFile(name, null));
    if (!this.deps.dialogs) throw new GpuDeskError('BAD_ARGUMENT', 'Choosing files is not available in this window', `use the command line: gpu-desk keys certificate ${name} FILE`);
    const file = await this.deps.dialogs.openFile({ purpose: 'certificate' });
    if (!file) return null;
    return keyView(await keys.setCertificateFile(name, file));
  }

  private async install({ name, profileId }: ParsedInput<'keys.install'>): Promise<KeyInstallView> {
    const keys = this.store();
    const publicKey = await keys.publicKey(name);
    const c = await this.deps.connections.readyFor(profileId);
    const server = c.conn.label;
    const report = await installAndVerify(c.conn, publicKey, () => this.proveKeyLogin(c, name));
    await keys.noteInstalled(name, server, true);
    let profileSwitched = false;
    if (report.keyLogin.ok) {
      await this.deps.profiles.useKey(profileId, name);
      profileSwitched = true;
    }
    return {
      key: name,
      server,
      added: report.added,
      keyLoginOk: report.keyLogin.ok,
      keyLoginError: report.keyLogin.ok ? null : redactSecrets(report.keyLogin.message, c.typed),
      profileSwitched,
      passwordOffCommands: passwordLoginOffCommands(),
    };
  }

  /** A fresh login offering only the keychain key: no agent, no key files, no password, no questions. */
  private async proveKeyLogin(c: LiveConnection, name: string): Promise<void> {
    const base = await this.deps.connections.optionsFor(c);
    const { password: _pw, identityFiles: _ids, callbacks: _cb, ...rest } = base;
    const conn = await connectSsh({
      ...rest,
      agent: false,
      identityFiles: [],
      onlyGivenKeys: true,
      keySources: [keychainKeySource(this.store(), [name])],
      reconnect: { enabled: false },
      callbacks: { onUnknownHostKey: async (h) => (c.accepted.has(`${h.hop} ${h.fingerprint}`) ? 'accept-once' : 'reject') },
    });
    try {
      const r = await conn.exec('true', { timeoutMs: 20_000 });
      if (r.code !== 0) throw new GpuDeskError('REMOTE_COMMAND_FAILED', `logged in, but the server refused to run a command (exit ${r.code})`, "check the account's shell on the server");
    } finally {
      await conn.close();
    }
  }

  private async remove({ name, fromProfileId, force }: ParsedInput<'keys.remove'>): Promise<KeyRemoveView> {
    const keys = this.store();
    const rec = await keys.get(name);
    // Refused before the server is touched, so a refusal changes nothing anywhere.
    const users = (await this.deps.profiles.list()).filter((p) => p.auth.kind === 'keychain-key' && p.auth.key === name);
    if (users.length && !force) throw new GpuDeskError('BAD_ARGUMENT', `Key "${name}" is used by ${users.map((p) => p.name).join(', ')}`, 'switch those servers to another sign-in first, or remove it with force (they then sign in automatically)');
    let server: KeyRemoveView['server'] = null;
    if (fromProfileId) {
      const c = await this.deps.connections.readyFor(fromProfileId);
      const r = await removePublicKeyFromServer(c.conn, rec.publicKey);
      server = { label: c.conn.label, removed: r.removed };
      await keys.noteInstalled(name, c.conn.label, false);
    }
    const r = await keys.remove(name, { force });
    // Forced: the profiles that used the key now sign in automatically.
    if (r.profilesChanged.length) await this.deps.profiles.changed();
    return { removed: name, profilesChanged: r.profilesChanged, server };
  }
}
