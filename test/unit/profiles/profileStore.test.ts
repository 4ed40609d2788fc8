import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GpuDeskError } from '../../../src/core/errors';
import { ProfileStore } from '../../../src/core/profiles/profileStore';
import { SCHEMA_VERSION } from '../../../src/core/profiles/schema';

let dir: string;
let file: string;
let notices: string[];
const store = () => new ProfileStore({ file, notice: (l) => notices.push(l) });

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-prof-'));
  file = path.join(dir, 'profiles.json');
  notices = [];
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

async function expectCode(p: Promise<unknown>, code: string, text?: RegExp): Promise<GpuDeskError> {
  const e = await p.then(() => null, (err) => err);
  expect(e, `expected ${code}`).toBeInstanceOf(GpuDeskError);
  expect((e as GpuDeskError).code).toBe(code);
  if (text) expect((e as GpuDeskError).message).toMatch(text);
  expect((e as GpuDeskError).message).not.toContain('\n');
  expect((e as GpuDeskError).fix).toBeTruthy();
  return e as GpuDeskError;
}

describe('ProfileStore basics', () => {
  it('adds, reads back, edits and removes profiles with defaults filled in', async () => {
    const s = store();
    expect(await s.list()).toEqual([]);
    const p = await s.add({ name: 'lab', host: 'gpu1.example', user: 'ana', jumpHosts: ['bastion:2222'], auth: { kind: 'agent' } });
    expect(p.port).toBe(22);
    expect(p.viewer).toEqual({ quality: 6, compression: 2, encodings: [], scaling: 'fit', adaptive: true });
    expect(p.id).toMatch(/^[0-9a-f-]{36}$/);
    const onDisk = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(onDisk.schemaVersion).toBe(SCHEMA_VERSION);
    expect(onDisk.profiles[0].name).toBe('lab');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);

    const edited = await store().edit('lab', { port: 2200, display: { number: 3, geometry: '1920x1080' } });
    expect(edited.port).toBe(2200);
    expect(edited.id).toBe(p.id);
    expect((await store().get('lab')).display).toEqual({ number: 3, geometry: '1920x1080' });
    // The previous version became the backup.
    expect(JSON.parse(fs.readFileSync(`${file}.bak`, 'utf8')).profiles[0].port).toBe(22);

    await expectCode(store().add({ name: 'lab', host: 'other' }), 'PROFILE_EXISTS');
    await store().remove('lab');
    expect(await store().list()).toEqual([]);
    await expectCode(store().remove('lab'), 'PROFILE_NOT_FOUND');
    expect(notices).toEqual([]);
  });

  it('rejects bad fields with one clear line and saves nothing', async () => {
    await store().add({ name: 'keep', host: 'h1' });
    const before = fs.readFileSync(file, 'utf8');
    await expectCode(store().add({ name: 'p0', host: 'h', port: 0 }), 'PROFILE_INVALID', /profile "p0": port: port must be between 1 and 65535/);
    await expectCode(store().add({ name: 'p1', host: 'h', port: 70000 }), 'PROFILE_INVALID', /port must be between 1 and 65535/);
    await expectCode(store().add({ name: 'p2', host: '' }), 'PROFILE_INVALID', /host: host is empty/);
    await expectCode(store().add({ name: 'p3', host: '   ' }), 'PROFILE_INVALID', /host is empty/);
    await expectCode(store().add({ name: 'p4', host: '-oProxyCommand=x' }), 'PROFILE_INVALID', /must not start with "-"/);
    await expectCode(store().add({ name: 'p5', host: 'h', auth: { kind: 'magic' } as never }), 'PROFILE_INVALID', /auth kind must be one of auto, agent, keychain-key, key-file, password/);
    await expectCode(store().add({ name: 'bad name', host: 'h' }), 'PROFILE_INVALID', /profile "bad name": name: must be 1–64 letters/);
    await expectCode(store().add({ name: 'p6', host: 'h', jumpHosts: ['a b'] }), 'PROFILE_INVALID', /jump host must look like/);
    await expectCode(store().add({ name: 'p7', host: 'h', viewer: { quality: 12 } as never }), 'PROFILE_INVALID', /quality must be 0–9/);
    await expectCode(store().add({ name: 'p8', host: 'h', display: { geometry: 'big' } }), 'PROFILE_INVALID', /geometry must look like 1920x1080/);
    await expectCode(store().edit('keep', { port: 0 }), 'PROFILE_INVALID', /port must be between/);
    expect(fs.readFileSync(file, 'utf8')).toBe(before);
  });
});

describe('ProfileStore: broken files are never overwritten', () => {
  it('moves a hand-broken file aside, says so in one line, and restores the backup', async () => {
    await store().add({ name: 'a', host: 'h1' });
    await store().add({ name: 'b', host: 'h2' }); // .bak now holds [a]
    fs.writeFileSync(file, '{ "schemaVersion": 1, "profiles": [ { oops');
    const broken = fs.readFileSync(file, 'utf8');
    const profiles = await store().list();
    expect(profiles.map((p) => p.name)).toEqual(['a']);
    expect(notices).toHaveLength(1);
    expect(notices[0]).not.toContain('\n');
    expect(notices[0]).toMatch(/was unreadable \(not valid JSON .*\); kept it as profiles\.json\.corrupt-\d{8}T\d{6}Z and restored 1 profile\(s\) from profiles\.json\.bak/);
    const aside = fs.readdirSync(dir).filter((n) => n.startsWith('profiles.json.corrupt-'));
    expect(aside).toHaveLength(1);
    expect(fs.readFileSync(path.join(dir, aside[0]), 'utf8')).toBe(broken);
    // The restored file is valid and writes go on normally.
    await store().add({ name: 'c', host: 'h3' });
    expect((await store().list()).map((p) => p.name)).toEqual(['a', 'c']);
    expect(notices).toHaveLength(1);
  });

  it('treats a schema violation (port 0 typed by hand) as broken and names the field', async () => {
    await store().add({ name: 'a', host: 'h1' });
    await store().add({ name: 'b', host: 'h2' });
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    doc.profiles[1].port = 0;
    fs.writeFileSync(file, JSON.stringify(doc));
    expect((await store().list()).map((p) => p.name)).toEqual(['a']);
    expect(notices[0]).toMatch(/profile "b" port: port must be between 1 and 65535/);
  });

  it('with no usable backup: keeps the broken file aside and starts empty (nothing deleted)', async () => {
    fs.writeFileSync(file, 'not json at all');
    expect(await store().list()).toEqual([]);
    expect(notices[0]).toMatch(/no usable backup; kept it as profiles\.json\.corrupt-/);
    const aside = fs.readdirSync(dir).find((n) => n.startsWith('profiles.json.corrupt-'))!;
    expect(fs.readFileSync(path.join(dir, aside), 'utf8')).toBe('not json at all');
  });

  it('two broken reads in the same second keep both copies', async () => {
    fs.writeFileSync(file, 'broken 1');
    await store().list();
    fs.writeFileSync(file, 'broken 2');
    await store().list();
    const asides = fs.readdirSync(dir).filter((n) => n.startsWith('profiles.json.corrupt-')).map((n) => fs.readFileSync(path.join(dir, n), 'utf8'));
    expect(asides.sort()).toEqual(['broken 1', 'broken 2']);
  });

  it('refuses a file from a newer gpu-desk and leaves it untouched', async () => {
    const newer = JSON.stringify({ schemaVersion: SCHEMA_VERSION + 1, profiles: [], futureField: 1 });
    fs.writeFileSync(file, newer);
    await expectCode(store().list(), 'PROFILES_TOO_NEW', /written by a newer gpu-desk/);
    await expectCode(store().add({ name: 'x', host: 'h' }), 'PROFILES_TOO_NEW');
    expect(fs.readFileSync(file, 'utf8')).toBe(newer);
    expect(fs.readdirSync(dir)).toEqual(['profiles.json']);
  });
});

describe('ProfileStore migrations', () => {
  it('reads a version-0 file (a bare array, no ids) and writes it back at the current version', async () => {
    fs.writeFileSync(file, JSON.stringify([{ name: 'old', host: 'h', port: 2022, auth: { kind: 'agent' } }]));
    const [p] = await store().list();
    expect(p).toMatchObject({ name: 'old', host: 'h', port: 2022, auth: { kind: 'agent' } });
    expect(p.id).toBeTruthy();
    expect(notices).toEqual([]);
    await store().add({ name: 'new', host: 'h2' });
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(doc.schemaVersion).toBe(SCHEMA_VERSION);
    expect(doc.profiles.map((x: { name: string }) => x.name)).toEqual(['old', 'new']);
    // The pre-migration file survives as the backup.
    expect(Array.isArray(JSON.parse(fs.readFileSync(`${file}.bak`, 'utf8')))).toBe(true);
  });

  it('reads a version-1 file (before proxyCommand) and keeps a saved proxyCommand through edits', async () => {
    fs.writeFileSync(file, JSON.stringify({ schemaVersion: 1, profiles: [{ id: 'abcdefgh-1', name: 'v1', host: 'h', createdAt: 'x', updatedAt: 'x' }], keys: [] }));
    expect((await store().list())[0]).toMatchObject({ name: 'v1', host: 'h' });
    await store().add({ name: 'iap', host: 'gpu', proxyCommand: 'gcloud compute start-iap-tunnel %n %p --listen-on-stdin' });
    await store().edit('iap', { port: 2222 });
    expect(await store().get('iap')).toMatchObject({ port: 2222, proxyCommand: 'gcloud compute start-iap-tunnel %n %p --listen-on-stdin' });
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).schemaVersion).toBe(SCHEMA_VERSION);
    await expectCode(store().add({ name: 'two', host: 'h', proxyCommand: 'a\nb' }), 'PROFILE_INVALID', /proxy command must be one line/);
  });

  it('reads a version-2 file (before cluster profiles): every profile there is a server, written back as version 3', async () => {
    const v2 = { schemaVersion: 2, profiles: [{ id: 'abcdefgh-2', name: 'gpu1', host: 'h', proxyCommand: 'nc %h %p', createdAt: 'x', updatedAt: 'x' }], keys: [] };
    fs.writeFileSync(file, JSON.stringify(v2));
    expect((await store().list())[0]).toMatchObject({ name: 'gpu1', kind: 'server', proxyCommand: 'nc %h %p' });
    expect((await store().list())[0].job).toBeUndefined();
    await store().add({ name: 'hpc', host: 'login.hpc', kind: 'cluster', job: { partition: 'gpu', time: '2:00:00', gres: 'gpu:a100:2', cpus: 8, preamble: ['module load TurboVNC'] } });
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(doc.schemaVersion).toBe(3);
    expect(doc.profiles.map((p: { kind: string }) => p.kind)).toEqual(['server', 'cluster']);
    expect(JSON.parse(fs.readFileSync(`${file}.bak`, 'utf8')).schemaVersion).toBe(2);
  });
  it('reads a version-0 object ({profiles} without schemaVersion)', async () => {
    fs.writeFileSync(file, JSON.stringify({ profiles: [{ name: 'o', host: 'h' }] }));
    expect((await store().list())[0].name).toBe('o');
  });
});

describe('cluster profiles', () => {
  it('keep their job settings through edits, with defaults filled in', async () => {
    await store().add({ name: 'hpc', host: 'login', kind: 'cluster', job: { partition: 'gpu', account: 'lab', qos: 'normal', time: '1-12', mem: '16G', constraint: 'a100', extraSbatch: ['--reservation=demo'] } });
    await store().edit('hpc', { port: 2222 });
    const p = await store().get('hpc');
    expect(p).toMatchObject({ kind: 'cluster', port: 2222, job: { partition: 'gpu', account: 'lab', qos: 'normal', time: '1-12', mem: '16G', constraint: 'a100', extraSbatch: ['--reservation=demo'], preamble: [], nodeAccess: 'ssh' } });
  });

  it('refuse bad job settings with one line naming the field, and save nothing', async () => {
    const bad: [object, RegExp][] = [
      [{ time: '$(id)' }, /job\.time: time limit must be minutes/],
      [{ partition: 'gpu\nrm -rf ~' }, /job\.partition: partition must be one line/],
      [{ cpus: 0 }, /job\.cpus: CPUs must be at least 1/],
      [{ extraSbatch: ['reservation=demo'] }, /must each start with "-"/],
      [{ preamble: ['module load a\nmodule load b'] }, /each line before the desktop must be one line/],
      [{ nodeAccess: 'telnet' }, /node access must be ssh or login-forward/],
    ];
    for (const [job, re] of bad) await expectCode(store().add({ name: 'c', host: 'login', kind: 'cluster', job }), 'PROFILE_INVALID', re);
    await expectCode(store().add({ name: 's', host: 'h', job: { partition: 'gpu' } }), 'PROFILE_INVALID', /job settings belong to a cluster profile/);
    await expectCode(store().add({ name: 'k', host: 'h', kind: 'farm' as 'server' }), 'PROFILE_INVALID', /kind must be server or cluster/);
    expect(fs.existsSync(file)).toBe(false);
  });
});
