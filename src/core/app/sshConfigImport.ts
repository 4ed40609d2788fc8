import { importSshConfig, readSshConfigCandidates } from '../profiles/sshConfigImport';
import type { ProfileStore } from '../profiles/profileStore';
import type { SshConfigHost, SshImportResult } from '../../shared/models';

/** The Host entries the import dialog offers, marked when a profile of that name exists. */
export async function listSshConfigHosts(store: ProfileStore, file?: string): Promise<SshConfigHost[]> {
  const names = new Set((await store.list()).map((p) => p.name));
  return readSshConfigCandidates(file).map((c) => ({
    alias: c.alias,
    name: c.profile.name,
    host: c.profile.host,
    port: c.profile.port ?? 22,
    user: c.profile.user ?? null,
    jumpHosts: c.profile.jumpHosts ?? [],
    auth: (c.profile.auth ?? { kind: 'auto' }) as SshConfigHost['auth'],
    warnings: c.warnings,
    exists: names.has(c.profile.name),
  }));
}

export async function importSshConfigHosts(store: ProfileStore, aliases: string[], file?: string): Promise<SshImportResult> {
  const r = await importSshConfig(store, { file, only: aliases });
  return { added: r.added, skipped: r.skipped, warnings: r.warnings };
}
