import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { GpuDeskError, isGpuDeskError } from '../errors';
import { appPaths, ensureDir } from './appPaths';
import { writeFileAtomic } from './atomicFile';
import { withFileLock, type LockOptions } from './fileLock';
import { jsonSyntaxWhere } from './jsonText';
import { migrate } from './migrations';
import { profileSchema, type Profile } from '../../shared/profileSchema';
import { describeZodError, emptyDoc, storeDocSchema, type KeyRecord, type StoredProfileInput, type StoreDoc } from './schema';
import { JUMP_SPEC_RE, LOGIN_NAME_RE } from '../../shared/loginNames';

export interface ProfileStoreOptions {
  /** Default: appPaths().profilesFile (GPU_DESK_HOME or the platform data directory). */
  file?: string;
  /** Where the one-line "file was broken, backup used" notice goes. Default: stderr. */
  notice?: (line: string) => void;
  lock?: LockOptions;
}

/** What a new profile needs; id and timestamps are filled in. */
export type NewProfile = Omit<StoredProfileInput, 'id' | 'createdAt' | 'updatedAt'>;

type Loaded = { ok: true; doc: StoreDoc; setAside: SetAside[] } | { ok: false; reason: string };

/** A saved profile whose user or jump host an older gpu-desk took and this one refuses (issue 34: shell syntax in names). */
interface SetAside {
  profile: Record<string, unknown>;
  why: string;
}

/**
 * Takes out of `doc` the profiles whose user or jump hosts are no longer login/host names (saved
 * before the names were narrowed): the rest of the file stays usable instead of being set aside
 * whole as unreadable.
 */
function takeOutRefusedNames(doc: unknown): SetAside[] {
  const profiles = (doc as { profiles?: unknown })?.profiles;
  if (!Array.isArray(profiles)) return [];
  const out: SetAside[] = [];
  for (let i = profiles.length - 1; i >= 0; i--) {
    const p = profiles[i] as Record<string, unknown> | null;
    if (!p || typeof p !== 'object') continue;
    const badUser = typeof p.user === 'string' && p.user.length > 0 && p.user.length <= 64 && !LOGIN_NAME_RE.test(p.user);
    const badJump = Array.isArray(p.jumpHosts) && p.jumpHosts.some((h) => typeof h === 'string' && !JUMP_SPEC_RE.test(h));
    if (!badUser && !badJump) continue;
    out.unshift({ profile: p, why: badUser ? 'its user is not a login name' : 'a jump host is not [user@]host[:port]' });
    profiles.splice(i, 1);
  }
  return out;
}

/**
 * Profiles and key metadata in one JSON file. Every read is validated; every change is a locked
 * read-modify-write with an atomic replace, so concurrent processes lose no update and a crash
 * leaves the old or the new file. A broken file is moved aside, never overwritten.
 */
export class ProfileStore {
  readonly file: string;
  private readonly notice: (line: string) => void;
  private readonly lockOpts: LockOptions;

  constructor(opts: ProfileStoreOptions = {}) {
    this.file = path.resolve(opts.file ?? appPaths().profilesFile);
    this.notice = opts.notice ?? ((line) => process.stderr.write(`gpu-desk: ${line}\n`));
    this.lockOpts = opts.lock ?? {};
  }

  get backupFile(): string {
    return `${this.file}.bak`;
  }

  async read(): Promise<StoreDoc> {
    const first = this.load(this.file);
    if (first.ok && !first.setAside.length) return first.doc;
    return this.locked(() => this.loadOrRecover());
  }

  /** Locked read-modify-write: `fn` changes `doc` in place; the result is validated and saved. */
  async update<T>(fn: (doc: StoreDoc) => T | Promise<T>): Promise<T> {
    return this.locked(async () => {
      const doc = this.loadOrRecover();
      const before = serialise(doc);
      const result = await fn(doc);
      // A no-op (an import that skipped everything) must not rotate the backup away.
      if (serialise(doc) !== before || !fs.existsSync(this.file)) this.save(doc);
      return result;
    });
  }

  async list(): Promise<Profile[]> {
    return (await this.read()).profiles;
  }

  async find(name: string): Promise<Profile | undefined> {
    return (await this.read()).profiles.find((p) => p.name === name);
  }

  async get(name: string): Promise<Profile> {
    const p = await this.find(name);
    if (!p) throw notFound(name);
    return p;
  }

  async add(input: NewProfile, opts: { replace?: boolean } = {}): Promise<Profile> {
    const profile = makeProfile(input);
    return this.update((doc) => {
      const i = doc.profiles.findIndex((p) => p.name === profile.name);
      if (i >= 0 && !opts.replace) {
        throw new GpuDeskError('PROFILE_EXISTS', `a profile named "${profile.name}" already exists`, 'pick another name or remove the old profile first');
      }
      if (i >= 0) {
        const replaced = { ...profile, id: doc.profiles[i].id, createdAt: doc.profiles[i].createdAt };
        doc.profiles[i] = replaced;
        return replaced;
      }
      doc.profiles.push(profile);
      return profile;
    });
  }

  /** Change fields of an existing profile (validated as a whole). */
  async edit(name: string, patch: Partial<NewProfile>): Promise<Profile> {
    return this.update((doc) => {
      const i = doc.profiles.findIndex((p) => p.name === name);
      if (i < 0) throw notFound(name);
      const old = doc.profiles[i];
      const next = validateProfile({ ...old, ...patch, id: old.id, createdAt: old.createdAt, updatedAt: new Date().toISOString() });
      if (next.name !== name && doc.profiles.some((p) => p.name === next.name)) {
        throw new GpuDeskError('PROFILE_EXISTS', `a profile named "${next.name}" already exists`, 'pick another name');
      }
      doc.profiles[i] = next;
      return next;
    });
  }

  async remove(name: string): Promise<Profile> {
    return this.update((doc) => {
      const i = doc.profiles.findIndex((p) => p.name === name);
      if (i < 0) throw notFound(name);
      return doc.profiles.splice(i, 1)[0];
    });
  }

  async listKeys(): Promise<KeyRecord[]> {
    return (await this.read()).keys;
  }

  async findKey(name: string): Promise<KeyRecord | undefined> {
    return (await this.read()).keys.find((k) => k.name === name);
  }

  private locked<T>(fn: () => T | Promise<T>): Promise<T> {
    ensureDir(path.dirname(this.file));
    return withFileLock(this.file, async () => fn(), this.lockOpts);
  }

  private load(file: string): Loaded {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { ok: true, doc: emptyDoc(), setAside: [] };
      throw new GpuDeskError('PROFILES_CORRUPT', `cannot read ${file}: ${(e as Error).message}`, 'check the file permissions');
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      return { ok: false, reason: `not valid JSON (${jsonSyntaxWhere(e, text)})` };
    }
    // A newer app's file throws here: refusing beats rewriting fields we do not understand.
    const { doc, from } = migrate(raw, file);
    if (from < 0) return { ok: false, reason: 'not a gpu-desk profiles file (no usable schemaVersion)' };
    const setAside = takeOutRefusedNames(doc);
    const parsed = storeDocSchema.safeParse(doc);
    if (!parsed.success) return { ok: false, reason: describeZodError(parsed.error, doc) };
    return { ok: true, doc: parsed.data, setAside };
  }

  /** Under the lock: the set-aside profiles go to a 0600 export file beside the store (importable once fixed), the store is saved without them. */
  private persistSetAside(doc: StoreDoc, setAside: SetAside[]): void {
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
    let file = `${this.file}.set-aside-${stamp}.json`;
    for (let n = 1; fs.existsSync(file); n++) file = `${this.file}.set-aside-${stamp}-${n}.json`;
    const profiles = setAside.map(({ profile: { id: _i, createdAt: _c, updatedAt: _u, ...rest } }) => rest);
    writeFileAtomic(file, JSON.stringify({ format: 'gpu-desk-profiles', schemaVersion: doc.schemaVersion, exportedAt: new Date().toISOString(), profiles }, null, 2) + '\n', { mode: 0o600 });
    writeFileAtomic(this.file, serialise(doc), { backup: true });
    for (const a of setAside) {
      const name = typeof a.profile.name === 'string' ? a.profile.name : '?';
      this.notice(`profile "${name}" was set aside: ${a.why} (shell syntax in names is refused, as OpenSSH does); it is in ${path.basename(file)} — fix it there and bring it back with "gpu-desk profiles import"`);
    }
  }

  /** Under the lock: the file, or (when broken) move it aside and fall back to the backup. */
  private loadOrRecover(): StoreDoc {
    const main = this.load(this.file);
    if (main.ok) {
      if (main.setAside.length) this.persistSetAside(main.doc, main.setAside);
      return main.doc;
    }
    const aside = this.moveAside();
    let bak: Loaded;
    try {
      bak = fs.existsSync(this.backupFile) ? this.load(this.backupFile) : { ok: false, reason: 'no backup' };
    } catch (e) {
      if (isGpuDeskError(e) && e.code === 'PROFILES_TOO_NEW') bak = { ok: false, reason: e.message };
      else throw e;
    }
    if (bak.ok) {
      // Profiles the backup holds with refused names stay out of the restored file (they are in the broken one kept aside).
      writeFileAtomic(this.file, serialise(bak.doc));
      this.notice(`${this.file} was unreadable (${main.reason}); kept it as ${path.basename(aside)} and restored ${bak.doc.profiles.length} profile(s) from ${path.basename(this.backupFile)}`);
      return bak.doc;
    }
    this.notice(`${this.file} was unreadable (${main.reason}) and there is no usable backup; kept it as ${path.basename(aside)} and started an empty list — fix that file and import it with "gpu-desk profiles import"`);
    return emptyDoc();
  }

  private moveAside(): string {
    const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
    let aside = `${this.file}.corrupt-${stamp}`;
    for (let n = 1; fs.existsSync(aside); n++) aside = `${this.file}.corrupt-${stamp}-${n}`;
    fs.renameSync(this.file, aside);
    return aside;
  }

  private save(doc: StoreDoc): void {
    const parsed = storeDocSchema.safeParse(doc);
    if (!parsed.success) {
      throw new GpuDeskError('PROFILE_INVALID', describeZodError(parsed.error, doc), 'correct the value; nothing was saved');
    }
    writeFileAtomic(this.file, serialise(parsed.data), { backup: true });
  }
}

export function serialise(doc: StoreDoc): string {
  return JSON.stringify(doc, null, 2) + '\n';
}

function notFound(name: string): GpuDeskError {
  return new GpuDeskError('PROFILE_NOT_FOUND', `no profile named "${name}"`, 'see "gpu-desk profiles list"');
}

/** What an import (ssh config or an exported file) did, profile by profile. */
export interface ImportResult {
  added: Profile[];
  replaced: Profile[];
  skipped: { name: string; reason: string }[];
  warnings: string[];
}

/** Put an imported profile into the document: new names are added; an existing name is replaced (keeping its id and creation time) only when asked. */
export function mergeImported(doc: StoreDoc, fresh: Profile, replace: boolean | undefined, result: ImportResult): void {
  const i = doc.profiles.findIndex((p) => p.name === fresh.name);
  if (i < 0) {
    doc.profiles.push(fresh);
    result.added.push(fresh);
  } else if (replace) {
    doc.profiles[i] = { ...fresh, id: doc.profiles[i].id, createdAt: doc.profiles[i].createdAt };
    result.replaced.push(doc.profiles[i]);
  } else {
    result.skipped.push({ name: fresh.name, reason: 'a profile with this name exists (use --replace)' });
  }
}

/** Fill id/timestamps/defaults and validate; a bad field becomes one clear PROFILE_INVALID line. */
export function makeProfile(input: NewProfile): Profile {
  const now = new Date().toISOString();
  return validateProfile({ ...input, id: randomUUID(), createdAt: now, updatedAt: now });
}

export function validateProfile(input: unknown): Profile {
  const parsed = profileSchema.safeParse(input);
  if (!parsed.success) {
    const name = (input as { name?: unknown })?.name;
    const label = typeof name === 'string' && name ? `profile "${name}": ` : '';
    throw new GpuDeskError('PROFILE_INVALID', `${label}${describeZodError(parsed.error)}`, 'correct the value; nothing was saved');
  }
  return parsed.data;
}
