import fs from 'node:fs';
import { z } from 'zod';
import { GpuDeskError } from '../errors';
import { writeFileAtomic } from './atomicFile';
import { makeProfile, mergeImported, type ImportResult, type NewProfile, type ProfileStore } from './profileStore';
import { profileSchema, type Profile } from '../../shared/profileSchema';
import { describeZodError, SCHEMA_VERSION } from './schema';
import { jsonSyntaxWhere } from './jsonText';

/**
 * Profiles moved between machines. Only what is in the profiles file travels (it never holds a
 * secret); a remembered password is not exported, so "remember" is turned off, and a keychain key
 * reference is kept only if that key exists where the file is imported.
 */
export const EXPORT_FORMAT = 'gpu-desk-profiles';

const exportSchema = z.object({
  format: z.literal(EXPORT_FORMAT, { error: `not a gpu-desk profiles export (format must be "${EXPORT_FORMAT}")` }),
  schemaVersion: z.number().int().min(1).max(SCHEMA_VERSION, { error: 'exported by a newer gpu-desk; update this one first' }),
  profiles: z.array(z.unknown()),
});

export interface ExportDoc {
  format: typeof EXPORT_FORMAT;
  schemaVersion: number;
  exportedAt: string;
  profiles: Omit<Profile, 'id' | 'createdAt' | 'updatedAt'>[];
}

export async function exportProfiles(store: ProfileStore, names?: string[]): Promise<ExportDoc> {
  const all = await store.list();
  const missing = names?.find((n) => !all.some((p) => p.name === n));
  if (missing) throw new GpuDeskError('PROFILE_NOT_FOUND', `no profile named "${missing}"`, 'see "gpu-desk profiles list"');
  const chosen = names?.length ? all.filter((p) => names.includes(p.name)) : all;
  return {
    format: EXPORT_FORMAT,
    schemaVersion: SCHEMA_VERSION,
    exportedAt: new Date().toISOString(),
    profiles: chosen.map(({ id: _id, createdAt: _c, updatedAt: _u, ...rest }) => ({
      ...rest,
      auth: rest.auth.kind === 'password' ? { kind: 'password' as const, remember: false } : rest.auth,
    })),
  };
}

export type ExchangeImportResult = ImportResult;

/** Validate the whole export first: one bad profile refuses the import, and nothing is changed. */
export async function importProfiles(store: ProfileStore, text: string, opts: { replace?: boolean; source?: string } = {}): Promise<ExchangeImportResult> {
  const source = opts.source ?? 'the import file';
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new GpuDeskError('PROFILE_INVALID', `${source} is not valid JSON (${jsonSyntaxWhere(e, text)})`, 'pass a file written by "gpu-desk profiles export"');
  }
  const head = exportSchema.safeParse(raw);
  if (!head.success) throw new GpuDeskError('PROFILE_INVALID', `${source}: ${describeZodError(head.error)}`, 'pass a file written by "gpu-desk profiles export"');
  const inputs: NewProfile[] = head.data.profiles.map((p, i) => {
    const now = new Date().toISOString();
    const parsed = profileSchema.safeParse({ ...(p as object), id: 'import-placeholder', createdAt: now, updatedAt: now });
    if (!parsed.success) {
      const name = (p as { name?: unknown })?.name;
      throw new GpuDeskError('PROFILE_INVALID', `${source}: profile ${typeof name === 'string' ? `"${name}"` : `#${i + 1}`}: ${describeZodError(parsed.error)}`, 'fix that entry; nothing was imported');
    }
    const { id: _id, createdAt: _c, updatedAt: _u, ...rest } = parsed.data;
    return rest;
  });
  const result: ExchangeImportResult = { added: [], replaced: [], skipped: [], warnings: [] };
  await store.update((doc) => {
    for (const input of inputs) {
      let fresh = makeProfile(input);
      if (fresh.auth.kind === 'keychain-key' && !doc.keys.some((k) => k.name === (fresh.auth as { key: string }).key)) {
        result.warnings.push(`${fresh.name}: keychain key "${fresh.auth.key}" is not on this machine; the profile uses auto authentication`);
        fresh = { ...fresh, auth: { kind: 'auto' } };
      }
      if (fresh.proxyCommand) {
        // A file from elsewhere never makes gpu-desk run a command on connect.
        result.warnings.push(`${fresh.name}: its ProxyCommand was not imported (commands are only taken from your own ssh config); add it with "gpu-desk profiles import-ssh-config"`);
        const { proxyCommand: _pc, ...rest } = fresh;
        fresh = rest;
      }
      if (fresh.job?.preamble.length) {
        // Lines run in a job are commands too: only the user's own hand adds them.
        result.warnings.push(`${fresh.name}: its ${fresh.job.preamble.length} line(s) run before the desktop were not imported (commands are never taken from a file); add them in the cluster profile`);
        fresh = { ...fresh, job: { ...fresh.job, preamble: [] } };
      }
      if (fresh.job?.extraSbatch.length) {
        // sbatch options can run code too (--export=ALL,BASH_ENV=…, LD_PRELOAD=…) and a later "jobs start" submits without review.
        result.warnings.push(`${fresh.name}: its ${fresh.job.extraSbatch.length} extra sbatch option(s) were not imported (options that can run code are never taken from a file); add them in the cluster profile`);
        fresh = { ...fresh, job: { ...fresh.job, extraSbatch: [] } };
      }
      mergeImported(doc, fresh, opts.replace, result);
    }
  });
  return result;
}

/** The CLI's --output and the app's Export menu item: written whole or not at all, readable by the owner only. */
export async function exportProfilesToFile(store: ProfileStore, file: string, names?: string[]): Promise<ExportDoc> {
  const doc = await exportProfiles(store, names);
  try {
    writeFileAtomic(file, JSON.stringify(doc, null, 2) + '\n', { mode: 0o600 });
  } catch (e) {
    throw new GpuDeskError('BAD_ARGUMENT', `cannot write ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'choose a folder you can write to');
  }
  return doc;
}

/** The CLI's "profiles import FILE" and the app's Import menu item; a bad file changes nothing. */
export async function importProfilesFromFile(store: ProfileStore, file: string, opts: { replace?: boolean } = {}): Promise<ExchangeImportResult> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new GpuDeskError('BAD_ARGUMENT', `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'check the path');
  }
  return importProfiles(store, text, { replace: opts.replace, source: file });
}
