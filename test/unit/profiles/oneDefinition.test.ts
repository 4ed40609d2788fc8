import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import type { JobSettings } from '../../../src/core/cluster/types';
import type { ProfileStore } from '../../../src/core/profiles/profileStore';
import { storeDocSchema } from '../../../src/core/profiles/schema';
import type { ForwardSpec as CliForward } from '../../../src/core/tunnels/forwardSpec';
import { authInputSchema, forwardInputSchema, jobSettingsInputSchema, profileInputSchema, type MethodOutput, type ParsedInput } from '../../../src/shared/contract';
import type { ClusterJobSettings, ForwardSpec, Profile, ProfileAuth, SavedViewerPrefs } from '../../../src/shared/models';
import { authSchema, forwardSchema, jobSettingsSchema, profileObject, profileSchema, viewerSchema } from '../../../src/shared/profileSchema';

/**
 * A profile, its sign-in, viewer, forwards and job settings are each defined once (src/shared/
 * profileSchema.ts): the profiles store and the IPC contract use those schemas, and every type is
 * inferred from them. These tests fail when a second definition comes back.
 */

describe('one definition of each profile model', () => {
  it('the profiles file holds the shared profile schema itself', () => {
    expect(storeDocSchema.shape.profiles.element).toBe(profileSchema);
  });

  it("the contract's profile input is built from the same field schemas, less only what the main process sets", () => {
    const saved = profileObject.shape;
    const input = profileInputSchema.shape;
    expect(input.name).toBe(saved.name);
    expect(Object.keys(saved).filter((k) => !(k in input)).sort()).toEqual(['createdAt', 'proxyCommand', 'updatedAt']);
    expect(Object.keys(input).filter((k) => !(k in saved))).toEqual([]);
    expect(input.display.shape.geometry).toBe(profileObject.shape.display.unwrap().shape.geometry);
    expect(input.viewer.shape.quality).toBe(viewerSchema.shape.quality);
    expect(forwardInputSchema.shape.localPort).toBe(forwardSchema.shape.localPort);
    expect(forwardInputSchema.shape.remotePort).toBe(forwardSchema.shape.remotePort);
    authSchema.options.forEach((variant, i) => {
      for (const [k, field] of Object.entries(variant.shape)) expect((authInputSchema.options[i].shape as Record<string, unknown>)[k], `${variant.shape.kind.value}.${k}`).toBe(field);
    });
    for (const [k, field] of Object.entries(jobSettingsSchema.shape)) expect((jobSettingsInputSchema.shape as Record<string, unknown>)[k], k).toBe(field);
  });

  it('the window input stays strict, bounded and free of ProxyCommand', () => {
    const base = { name: 'lab', host: 'gpu1', port: 22, jumpHosts: [], auth: { kind: 'auto' }, display: {}, viewer: {}, forwards: [] };
    expect(profileInputSchema.safeParse(base).success).toBe(true);
    expect(profileInputSchema.safeParse({ ...base, proxyCommand: 'nc %h %p' }).success).toBe(false);
    expect(profileInputSchema.safeParse({ ...base, auth: { kind: 'password', remember: true, extra: 1 } }).success).toBe(false);
    expect(profileInputSchema.safeParse({ ...base, job: { partition: 'gpu', extra: 1 } }).success).toBe(false);
    expect(profileInputSchema.safeParse({ ...base, host: 'gpu1;reboot' }).success).toBe(false);
    expect(profileInputSchema.safeParse({ ...base, forwards: Array.from({ length: 33 }, () => ({ kind: 'local', localPort: 0, remoteHost: 'localhost', remotePort: 80 })) }).success).toBe(false);
    // Absent kind on an edit keeps the saved one: the input must not default it.
    expect(profileInputSchema.parse(base).kind).toBeUndefined();
  });

  it('job settings: the contract and the store agree that the lists may be left out (extraSbatch was required in one, optional in the other)', () => {
    const stored = jobSettingsSchema.parse({});
    expect(stored).toEqual({ extraSbatch: [], preamble: [], nodeAccess: 'ssh' });
    expect(jobSettingsInputSchema.parse({})).toEqual(stored);
    // Saved settings always have the lists; what a job is submitted with may omit them (the CLI's flags).
    expectTypeOf<ClusterJobSettings['extraSbatch']>().toEqualTypeOf<string[]>();
    expectTypeOf<JobSettings['extraSbatch']>().toEqualTypeOf<string[] | undefined>();
    expectTypeOf<JobSettings>().toEqualTypeOf<z.input<typeof jobSettingsSchema> & { geometry?: string }>();
    expectTypeOf<ClusterJobSettings>().toMatchTypeOf<JobSettings>();
    expectTypeOf<keyof JobSettings>().toEqualTypeOf<keyof ClusterJobSettings | 'geometry'>();
    expectTypeOf<NonNullable<ParsedInput<'profiles.save'>['profile']['job']>>().toEqualTypeOf<ClusterJobSettings>();
  });

  it('one Profile type everywhere: the store returns what the contract says it lists', () => {
    expectTypeOf<Profile>().toEqualTypeOf<z.infer<typeof profileSchema>>();
    expectTypeOf<Awaited<ReturnType<ProfileStore['list']>>[number]>().toEqualTypeOf<Profile>();
    expectTypeOf<MethodOutput<'profiles.list'>[number]>().toEqualTypeOf<Profile>();
    expectTypeOf<ProfileAuth>().toEqualTypeOf<z.infer<typeof authSchema>>();
    expectTypeOf<SavedViewerPrefs>().toEqualTypeOf<z.infer<typeof viewerSchema>>();
    expectTypeOf<ForwardSpec>().toEqualTypeOf<z.infer<typeof forwardSchema>>();
    expectTypeOf<CliForward>().toEqualTypeOf<Omit<ForwardSpec, 'kind'>>();
  });

  it('no file in src writes one of these models out again', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (/\.tsx?$/.test(e.name)) files.push(p);
      }
    };
    const src = path.resolve(__dirname, '../../../src');
    walk(src);
    const models = 'Profile|ProfileAuth|ProfileJobSettings|ClusterJobSettings|JobSettings|ForwardSpec|SavedViewerPrefs|SavedEncoding|ProfileInput';
    // A hand-written copy is an interface or an object/union type literal; aliases of inferred types are fine.
    const copy = new RegExp(`(?:interface\\s+(?:${models})\\b|type\\s+(?:${models})\\s*=\\s*[{|])`);
    const found: string[] = [];
    const literals: Record<string, number> = { "kind: z.literal('keychain-key')": 0, "kind: z.literal('local')": 0, 'extraSbatch: z.array': 0, "z.enum(['off', 'fit', 'remote-resize']": 0 };
    for (const f of files) {
      const text = fs.readFileSync(f, 'utf8');
      if (copy.test(text)) found.push(path.relative(src, f));
      for (const l of Object.keys(literals)) literals[l] += text.split(l).length - 1;
    }
    expect(found).toEqual([]);
    expect(literals).toEqual(Object.fromEntries(Object.keys(literals).map((l) => [l, 1])));
  });
});
