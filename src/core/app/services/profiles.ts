import path from 'node:path';
import { GpuDeskError } from '../../errors';
import type { ProfileStore } from '../../profiles/profileStore';
import type { SecretStore } from '../../keychain/secretStore';
import { forgetPassword } from '../../keychain/passwords';
import { exportProfilesToFile, importProfilesFromFile } from '../../profiles/exchange';
import type { Emit, HandlersOf, ParsedInput } from '../../../shared/contract';
import type { Profile } from '../../../shared/models';
import type { FileDialogs } from '../fileDialogs';
import { importSshConfigHosts, listSshConfigHosts } from '../sshConfigImport';

export interface ProfilesDeps {
  store: ProfileStore;
  emit: Emit;
  secrets?: SecretStore;
  dialogs?: FileDialogs;
  sshConfigPath?: string | null;
  /** A removed server is disconnected first (its connections close). */
  closeProfile(profileId: string): Promise<void>;
  /** What other services keep about a removed profile (remembered desktop jobs). */
  forgetProfile(profileId: string): void;
}

/** profiles.*: the saved servers, their remembered passwords, import and export. */
export class Profiles {
  constructor(private readonly deps: ProfilesDeps) {}

  handlers(): HandlersOf<'profiles'> {
    return {
      'profiles.list': async () => this.list(),
      'profiles.save': (i) => this.announcing(this.save(i)),
      'profiles.remove': async ({ id }) => {
        const p = await this.byId(id);
        // A removed server is disconnected too: nothing stays open for a profile the user cannot see.
        await this.deps.closeProfile(id);
        // Its secrets go first: a keychain that refuses leaves the profile listed, so nothing is orphaned unseen.
        if (this.deps.secrets) await forgetPassword(this.deps.secrets, p.id);
        await this.deps.store.remove(p.name);
        this.deps.forgetProfile(p.id);
        await this.changed();
      },
      'profiles.exportFile': async () => {
        const file = await this.dialogs().saveFile({ purpose: 'profiles', defaultName: 'gpu-desk-profiles.json' });
        if (!file) return null;
        const doc = await exportProfilesToFile(this.deps.store, file);
        return { file: path.basename(file), count: doc.profiles.length };
      },
      'profiles.importFile': async ({ replace }) => {
        const file = await this.dialogs().openFile({ purpose: 'profiles' });
        if (!file) return null;
        const r = await this.announcing(importProfilesFromFile(this.deps.store, file, { replace }));
        return { file: path.basename(file), added: r.added.map((p) => p.name), replaced: r.replaced.map((p) => p.name), skipped: r.skipped.map((x) => `${x.name}: ${x.reason}`), warnings: r.warnings };
      },
      'profiles.chooseKeyFile': async () => this.dialogs().openFile({ purpose: 'key' }),
      'profiles.sshConfigHosts': async () => listSshConfigHosts(this.deps.store, this.deps.sshConfigPath ?? undefined),
      'profiles.importSshConfig': async ({ aliases }) => this.announcing(importSshConfigHosts(this.deps.store, aliases, this.deps.sshConfigPath ?? undefined)),
    };
  }

  /** Tells the windows and the tray the saved servers as they are now. */
  async changed(): Promise<void> {
    this.deps.emit('profiles.changed', await this.list());
  }

  /** A change, announced whether it went through or stopped halfway (an import may have added some). */
  private async announcing<T>(p: Promise<T>): Promise<T> {
    try {
      return await p;
    } finally {
      await this.changed().catch(() => {});
    }
  }

  async list(): Promise<Profile[]> {
    return this.deps.store.list();
  }

  async byId(id: string): Promise<Profile> {
    const p = (await this.list()).find((x) => x.id === id);
    if (!p) throw new GpuDeskError('PROFILE_NOT_FOUND', 'That server profile no longer exists', 'reload the server list');
    return p;
  }

  /** A profile's sign-in switched to a keychain key (after that key was proved to work). */
  async useKey(profileId: string, key: string): Promise<void> {
    const p = await this.byId(profileId);
    if (p.auth.kind === 'keychain-key' && p.auth.key === key) return;
    await this.deps.store.edit(p.name, { auth: { kind: 'keychain-key', key } });
    await this.changed();
  }

  private async save({ profile }: ParsedInput<'profiles.save'>): Promise<Profile> {
    const { id, ...fields } = profile;
    if (!id) return this.deps.store.add(fields);
    const existing = await this.byId(id);
    const saved = await this.deps.store.edit(existing.name, fields);
    // "Remember" unticked (or another sign-in chosen): the keychain entry has no owner any more.
    const stillRemembered = saved.auth.kind === 'password' && saved.auth.remember;
    if (!stillRemembered && existing.auth.kind === 'password' && existing.auth.remember && this.deps.secrets) await forgetPassword(this.deps.secrets, id);
    return saved;
  }

  private dialogs(): FileDialogs {
    if (!this.deps.dialogs) throw new GpuDeskError('BAD_ARGUMENT', 'Choosing files is not available in this window', 'use the command line: gpu-desk profiles export/import, gpu-desk keys import');
    return this.deps.dialogs;
  }
}
