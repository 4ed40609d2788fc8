import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * npm 12 skips every dependency install script that package.json's allowScripts does not allow
 * (npm 11.16+ warns): each one in the lockfile is decided here, allowed ones pinned to the version
 * that was reviewed, so a version bump comes back for review instead of running unseen, and keytar
 * (which must build) stays allowed.
 */
const ROOT = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; hasInstallScript?: boolean }> };

describe('allowScripts covers every dependency install script in the lockfile (issue 34)', () => {
  it('each is allowed at exactly its locked version, or denied by name; keytar is allowed', () => {
    const allow = pkg.allowScripts ?? {};
    const withScripts = Object.entries(lock.packages)
      .filter(([p, v]) => p !== '' && v.hasInstallScript)
      .map(([p, v]) => ({ name: p.slice(p.lastIndexOf('node_modules/') + 'node_modules/'.length), version: v.version! }));
    expect(withScripts.length).toBeGreaterThan(0);
    for (const { name, version } of withScripts) {
      const decided = allow[`${name}@${version}`] === true || allow[name] === false;
      expect(decided, `${name}@${version} has an install script: allow "${name}@${version}" or deny "${name}" in allowScripts`).toBe(true);
    }
    expect(allow[`keytar@${withScripts.find((p) => p.name === 'keytar')?.version}`]).toBe(true);
    // No stale entries: each names a package that is locked (at that version, for an approval).
    for (const key of Object.keys(allow)) {
      const at = key.lastIndexOf('@');
      const [name, version] = at > 0 ? [key.slice(0, at), key.slice(at + 1)] : [key, undefined];
      expect(withScripts.some((p) => p.name === name && (version === undefined || p.version === version)), `allowScripts entry ${key} matches nothing in the lockfile`).toBe(true);
    }
  });
});
