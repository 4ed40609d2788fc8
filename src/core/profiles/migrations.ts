import { GpuDeskError } from '../errors';
import { SCHEMA_VERSION } from './schema';

/**
 * Stepwise upgrades: migrations[n] turns a version-n document into version n+1. A file from a newer
 * gpu-desk is refused (never rewritten), so a downgrade cannot destroy fields it does not know.
 */
type Migration = (doc: Record<string, unknown>) => Record<string, unknown>;

const migrations: Record<number, Migration> = {
  // Version 0: hand-written or pre-release files, either a bare array of profiles or an object
  // without schemaVersion. Profiles there may lack ids and timestamps.
  0: (doc) => {
    const now = new Date().toISOString();
    const profiles = (Array.isArray(doc.profiles) ? doc.profiles : []).map((p: unknown, i: number) => {
      if (!p || typeof p !== 'object') return p;
      const o = { ...(p as Record<string, unknown>) };
      o.id ??= `migrated-${Date.now().toString(36)}-${i}`;
      o.createdAt ??= now;
      o.updatedAt ??= now;
      return o;
    });
    return { ...doc, schemaVersion: 1, profiles, keys: Array.isArray(doc.keys) ? doc.keys : [] };
  },
  // Version 2 added the optional proxyCommand: nothing to convert, but a version-1 gpu-desk must not
  // rewrite (and so drop) it, which the version bump prevents.
  1: (doc) => ({ ...doc, schemaVersion: 2 }),
  // Version 3 added cluster profiles (kind, job): every older profile is a server. The bump keeps a
  // version-2 gpu-desk from rewriting the file without them.
  2: (doc) => ({
    ...doc,
    schemaVersion: 3,
    profiles: (Array.isArray(doc.profiles) ? doc.profiles : []).map((p: unknown) => (p && typeof p === 'object' ? { kind: 'server', ...(p as object) } : p)),
  }),
};

export function migrate(raw: unknown, file: string): { doc: unknown; from: number } {
  let doc: Record<string, unknown>;
  if (Array.isArray(raw)) doc = { profiles: raw };
  else if (raw && typeof raw === 'object') doc = raw as Record<string, unknown>;
  else return { doc: raw, from: -1 };
  const from = doc.schemaVersion === undefined ? 0 : doc.schemaVersion;
  if (typeof from !== 'number' || !Number.isInteger(from) || from < 0) return { doc, from: -1 };
  if (from > SCHEMA_VERSION) {
    throw new GpuDeskError(
      'PROFILES_TOO_NEW',
      `${file} was written by a newer gpu-desk (schemaVersion ${from}, this one reads up to ${SCHEMA_VERSION})`,
      'update gpu-desk; the file was left untouched',
    );
  }
  let v = from;
  while (v < SCHEMA_VERSION) {
    const step = migrations[v];
    if (!step) return { doc, from: -1 };
    doc = step(doc);
    v++;
  }
  return { doc, from };
}
