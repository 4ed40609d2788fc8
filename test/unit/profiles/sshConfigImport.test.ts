import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GpuDeskError } from '../../../src/core/errors';
import { ProfileStore } from '../../../src/core/profiles/profileStore';
import { importSshConfig, profileNameFor, readSshConfigCandidates } from '../../../src/core/profiles/sshConfigImport';

let dir: string;
let store: ProfileStore;
let cfg: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-sshcfg-'));
  store = new ProfileStore({ file: path.join(dir, 'profiles.json'), notice: () => {} });
  cfg = path.join(dir, 'config');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const CONFIG = `# my servers
Host gpu-a100 a100
  HostName 10.0.0.5
  User ana
  Port 2222
  ProxyJump bastion.example:2200,ops@relay
  IdentityFile ~/.ssh/id_lab

Host bastion
  HostName bastion.example
  ProxyCommand nc %h %p

Host *.internal
  User ignored

Host plain
  HostName %h.example.org

Host *
  User fallback
`;

describe('import from ~/.ssh/config', () => {
  it('turns each concrete Host alias into a profile as ssh would resolve it', async () => {
    fs.writeFileSync(cfg, CONFIG);
    const r = await importSshConfig(store, { file: cfg });
    expect(r.added.map((p) => p.name)).toEqual(['gpu-a100', 'a100', 'bastion', 'plain']);
    const a100 = await store.get('gpu-a100');
    expect(a100).toMatchObject({
      host: '10.0.0.5',
      port: 2222,
      user: 'ana',
      jumpHosts: ['bastion.example:2200', 'ops@relay'],
      auth: { kind: 'key-file', path: path.join(os.homedir(), '.ssh/id_lab') },
    });
    // "Host *" defaults apply, as in ssh; %h expands to the alias.
    expect(await store.get('plain')).toMatchObject({ host: 'plain.example.org', user: 'fallback', port: 22, auth: { kind: 'auto' } });
    // ProxyCommand is kept (tokens as written), not dropped with a warning.
    expect(await store.get('bastion')).toMatchObject({ host: 'bastion.example', proxyCommand: 'nc %h %p', jumpHosts: [] });
    expect(r.warnings).toEqual([]);
  });

  it('keeps existing profiles unless --replace, and can import only named hosts', async () => {
    fs.writeFileSync(cfg, CONFIG);
    await store.add({ name: 'plain', host: 'mine', port: 2022 });
    const r = await importSshConfig(store, { file: cfg, only: ['plain', 'bastion'] });
    expect(r.added.map((p) => p.name)).toEqual(['bastion']);
    expect(r.skipped).toEqual([{ name: 'plain', reason: 'a profile with this name exists (use --replace)' }]);
    expect((await store.get('plain')).host).toBe('mine');
    const id = (await store.get('plain')).id;
    const r2 = await importSshConfig(store, { file: cfg, only: ['plain'], replace: true });
    expect(r2.replaced.map((p) => p.name)).toEqual(['plain']);
    expect(await store.get('plain')).toMatchObject({ host: 'plain.example.org', id });
    await expect(importSshConfig(store, { file: cfg, only: ['nope'] })).rejects.toThrow(/no Host "nope"/);
  });

  it('skips (with the reason) a host whose values are not valid profile fields', async () => {
    fs.writeFileSync(cfg, 'Host odd\n  Port 0\nHost fine\n  HostName f\n');
    const r = await importSshConfig(store, { file: cfg });
    expect(r.added.map((p) => p.name)).toEqual(['fine']);
    expect(r.skipped[0].name).toBe('odd');
    expect(r.skipped[0].reason).toMatch(/port must be between 1 and 65535/);
  });

  it('an ssh config with errors is refused with the file and line, and no profile changes', async () => {
    await store.add({ name: 'keep', host: 'k' });
    const before = fs.readFileSync(store.file, 'utf8');
    const cases: [string, RegExp][] = [
      ['Host x\n  HostName y\n  Port abc\n', /config line 3: the value of Port is not a number/],
      ['Host\n  HostName y\n', /config line 1 is not "Keyword value"/],
      ['Host "x\n  HostName y\n', /could not be parsed/],
      ['Host x\n  ="y"\n', /config line 2 is not "Keyword value"/],
    ];
    for (const [text, re] of cases) {
      fs.writeFileSync(cfg, text);
      const e = await importSshConfig(store, { file: cfg }).then(() => null, (err) => err);
      expect(e).toBeInstanceOf(GpuDeskError);
      expect(e.code).toBe('BAD_SSH_CONFIG');
      expect(e.message).toMatch(re);
      expect(e.message).not.toContain('\n');
      expect(fs.readFileSync(store.file, 'utf8')).toBe(before);
    }
    // Whatever the file holds, the error names a line, never its text.
    for (const text of ['root:$y$j9T$TOPSECRET:19000:0:99999:7:::\n', 'Host x\n  Port TOPSECRET\n', 'Host x\n  StrictHostKeyChecking TOPSECRET\n', 'Host "TOPSECRET\n']) {
      fs.writeFileSync(cfg, text);
      const e = await importSshConfig(store, { file: cfg }).then(() => null, (err) => err);
      expect(e?.code, text).toBe('BAD_SSH_CONFIG');
      expect(JSON.stringify(e.toJSON()), text).not.toContain('TOPSECRET');
    }
    const missing = await importSshConfig(store, { file: path.join(dir, 'none') }).then(() => null, (err) => err);
    expect(missing.code).toBe('BAD_SSH_CONFIG');
    expect(missing.message).toMatch(/does not exist/);
  });

  it('hosts from included files are offered too, resolved with the including file\'s defaults', () => {
    const more = path.join(dir, 'more.conf');
    fs.writeFileSync(more, 'Host from-include\n  HostName inc.example\n  ProxyCommand ssh-proxy %n\n');
    fs.writeFileSync(cfg, `Include ${more}\nHost *\n  User everyone\n`);
    const [c] = readSshConfigCandidates(cfg);
    expect(c.alias).toBe('from-include');
    // %n is the alias as typed: fixed at import, since the profile connects by its HostName.
    expect(c.profile).toMatchObject({ host: 'inc.example', user: 'everyone', proxyCommand: 'ssh-proxy from-include' });
  });

  it('names aliases that are not valid profile names after them', () => {
    expect(profileNameFor('gpu/a100')).toBe('gpu-a100');
    expect(profileNameFor('_x')).toBe('x');
    fs.writeFileSync(cfg, 'Host gpu/a100\n  HostName h\n');
    expect(readSshConfigCandidates(cfg)[0].profile.name).toBe('gpu-a100');
  });
});
