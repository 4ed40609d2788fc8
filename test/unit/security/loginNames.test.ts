import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GpuDeskError } from '../../../src/core/errors';
import { ProfileStore } from '../../../src/core/profiles/profileStore';
import { resolveTarget } from '../../../src/core/ssh/resolve';
import { parseSshConfig } from '../../../src/core/ssh/sshConfig';
import { methods } from '../../../src/shared/contract';
import { JUMP_SPEC_RE, LOGIN_NAME_RE, validRemoteUser } from '../../../src/shared/loginNames';

/**
 * Issue 34, medium 1: a user name with shell syntax must never reach the shell that runs a
 * ProxyCommand through %r (OpenSSH's fix for CVE-2023-51385), nor climb out of a directory through
 * %r in UserKnownHostsFile.
 */
const EVIL_USERS = ['x$(touch${IFS}/tmp/p)', 'x`id`', 'a;b', 'a|b', 'a&b', 'a>b', 'x>({touch,p})', "a'b", 'a"b', 'a b', 'a\nb', 'a\u001bb', '-oProxyCommand=x', 'a\\'];
const EVIL_JUMPS = ['x>({touch,p})@bastion', 'x$(id)@bastion', 'ana@b$(id)', 'ana@bastion;id', '`id`@h', 'a b@h', '-J@h'];

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-names-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function thrown(fn: () => unknown): GpuDeskError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(GpuDeskError);
    expect((e as GpuDeskError).message).not.toContain('\n');
    return e as GpuDeskError;
  }
  throw new Error('expected an error');
}

describe('login names and jump specs (issue 34 medium 1)', () => {
  it('the patterns take real login names and jump specs and nothing with shell syntax', () => {
    for (const u of ['ana', 'a.b', 'first_last', 'u-1', 'svc+ci', '_apt']) {
      expect(LOGIN_NAME_RE.test(u), u).toBe(true);
      expect(validRemoteUser(u), u).toBe(true);
    }
    for (const u of EVIL_USERS) {
      expect(LOGIN_NAME_RE.test(u), u).toBe(false);
      expect(validRemoteUser(u), u).toBe(false);
    }
    for (const j of ['bastion', 'ana@bastion', 'ana@bastion:2222', '[::1]:22', 'ana@[fe80::1%eth0]', '10.0.0.1:22', 'jump_1.example.org']) expect(JUMP_SPEC_RE.test(j), j).toBe(true);
    for (const j of EVIL_JUMPS) expect(JUMP_SPEC_RE.test(j), j).toBe(false);
  });

  it('profiles.save (the contract) and the profiles store refuse such users and jump hosts and save nothing', async () => {
    const input = (over: Record<string, unknown>) => ({
      profile: { name: 'p', host: 'gpu', port: 22, jumpHosts: [], auth: { kind: 'agent' }, display: {}, viewer: { quality: 6, compression: 2, encodings: [], scaling: 'fit', adaptive: true }, forwards: [], ...over },
    });
    expect(methods['profiles.save'].input.safeParse(input({ user: 'ana', jumpHosts: ['ana@bastion:2222'] })).success).toBe(true);
    for (const user of EVIL_USERS) expect(methods['profiles.save'].input.safeParse(input({ user })).success, user).toBe(false);
    for (const j of EVIL_JUMPS) expect(methods['profiles.save'].input.safeParse(input({ jumpHosts: [j] })).success, j).toBe(false);

    const file = path.join(dir, 'profiles.json');
    const store = new ProfileStore({ file, notice: () => {} });
    for (const user of EVIL_USERS) {
      const e = await store.add({ name: 'p1', host: 'gpu', user }).then(() => null, (err: unknown) => err);
      expect(e, user).toBeInstanceOf(GpuDeskError);
      expect((e as GpuDeskError).code).toBe('PROFILE_INVALID');
    }
    for (const j of EVIL_JUMPS) {
      const e = await store.add({ name: 'p2', host: 'gpu', jumpHosts: [j] }).then(() => null, (err: unknown) => err);
      expect((e as GpuDeskError).code, j).toBe('PROFILE_INVALID');
    }
    expect(await store.list()).toEqual([]);
  });

  it('resolving a destination, -l user or jump spec with shell syntax fails before any ProxyCommand is built', () => {
    const cfg = parseSshConfig(['Host *', '  ProxyCommand sh -c "true %r; exec nc %h %p"'].join('\n'), 'cfg');
    const base = { destination: 'inj', appKnownHostsFile: '/dev/null', identityFiles: [], userKnownHostsFiles: [], globalKnownHostsFiles: [] };
    const cases = [
      { ...base, destination: 'x$(touch${IFS}FILE)@inj' },
      { ...base, user: 'x$(touch${IFS}FILE)' },
      { ...base, jump: ['x>({touch,p})@bastion'] },
    ];
    for (const c of cases) {
      const e = thrown(() => resolveTarget(c, cfg));
      expect(e.code).toBe('BAD_ARGUMENT');
      expect(e.message).toMatch(/^remote username contains invalid characters/);
      expect(e.fix).toContain('CVE-2023-51385');
    }
    // A plain name still gets its ProxyCommand.
    expect(resolveTarget({ ...base, destination: 'ana@inj' }, cfg).hops[0].proxyCommand).toBe('sh -c "true ana; exec nc inj 22"');
  });

  it('%r in UserKnownHostsFile cannot climb out of its directory (a config User of "../x")', () => {
    const cfg = parseSshConfig(['Host up', '  User ../../../tmp/x', `  UserKnownHostsFile ${dir}/kh/%r`, 'Host ok', '  User ana', `  UserKnownHostsFile ${dir}/kh/%r`].join('\n'), 'cfg');
    const e = thrown(() => resolveTarget({ destination: 'up', appKnownHostsFile: '/dev/null', identityFiles: [], globalKnownHostsFiles: [] }, cfg));
    expect(e.code).toBe('BAD_SSH_CONFIG');
    expect(e.message).toMatch(/known-hosts file .* uses %r/);
    expect(resolveTarget({ destination: 'ok', appKnownHostsFile: '/dev/null', identityFiles: [], globalKnownHostsFiles: [] }, cfg).hops[0].knownHostsFiles.user).toEqual([path.join(dir, 'kh', 'ana')]);
  });
});

describe('profiles saved before the names were narrowed (issue 34 medium 1)', () => {
  it('a saved profile whose user or jump host is now refused is set aside into an importable 0600 file; the others stay', async () => {
    const file = path.join(dir, 'profiles.json');
    const notices: string[] = [];
    const good = new ProfileStore({ file, notice: (l) => notices.push(l) });
    await good.add({ name: 'ok', host: 'gpu', user: 'ana' });
    await good.add({ name: 'legacy', host: 'gpu', user: 'ana' });
    await good.add({ name: 'legacyjump', host: 'gpu', jumpHosts: ['bastion'] });
    // As an older gpu-desk could have written them (its schema took these).
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    doc.profiles[1].user = 'x$(touch${IFS}/tmp/p)';
    doc.profiles[2].jumpHosts = ['x>({touch,p})@bastion'];
    fs.writeFileSync(file, JSON.stringify(doc));
    const store = new ProfileStore({ file, notice: (l) => notices.push(l) });
    expect((await store.list()).map((p) => p.name)).toEqual(['ok']);
    const aside = fs.readdirSync(dir).filter((f) => f.includes('.set-aside-'));
    expect(aside).toHaveLength(1);
    const asideFile = path.join(dir, aside[0]);
    expect(fs.statSync(asideFile).mode & 0o777).toBe(0o600);
    expect(notices).toEqual([
      expect.stringMatching(/^profile "legacy" was set aside: its user is not a login name .*gpu-desk profiles import/),
      expect.stringMatching(/^profile "legacyjump" was set aside: a jump host is not/),
    ]);
    // Read again: nothing more is set aside, the store file no longer holds them (its backup still does).
    expect((await store.list()).map((p) => p.name)).toEqual(['ok']);
    expect(notices).toHaveLength(2);
    expect(fs.readFileSync(`${file}.bak`, 'utf8')).toContain('touch${IFS}');
    // The set-aside file is an export: refused as it is, imported once fixed.
    const { importProfiles } = await import('../../../src/core/profiles/exchange');
    const text = fs.readFileSync(asideFile, 'utf8');
    await expect(importProfiles(store, text)).rejects.toThrow(/user must be a login name/);
    const fixed = JSON.parse(text);
    fixed.profiles[0].user = 'ana';
    fixed.profiles[1].jumpHosts = ['bastion'];
    const r = await importProfiles(store, JSON.stringify(fixed));
    expect(r.added.map((p) => p.name).sort()).toEqual(['legacy', 'legacyjump']);
  });
});
