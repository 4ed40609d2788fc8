import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * npm 12 skips every dependency install script that package.json's allowScripts does not allow
 * (npm 11.16+ warns): each one in the lockfile is decided here by name, and keytar (which must
 * build) stays allowed. By name, not pinned to a version: npm 11.19 here counts a pinned approval
 * ("keytar@7.9.0") as not covering the installed package, and itself writes name-only entries.
 */
const ROOT = path.resolve(__dirname, '../../..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean> };
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; hasInstallScript?: boolean }> };

describe('allowScripts covers every dependency install script in the lockfile (issue 34)', () => {
  it('each is allowed or denied by name; keytar is allowed', () => {
    const allow = pkg.allowScripts ?? {};
    const withScripts = Object.entries(lock.packages)
      .filter(([p, v]) => p !== '' && v.hasInstallScript)
      .map(([p, v]) => ({ name: p.slice(p.lastIndexOf('node_modules/') + 'node_modules/'.length), version: v.version! }));
    expect(withScripts.length).toBeGreaterThan(0);
    for (const { name, version } of withScripts) {
      expect(typeof allow[name], `${name}@${version} has an install script: allow or deny "${name}" in allowScripts`).toBe('boolean');
    }
    expect(allow.keytar).toBe(true);
    // No stale entries: each names a package with an install script in the lockfile.
    for (const key of Object.keys(allow)) expect(withScripts.some((p) => p.name === key), `allowScripts entry ${key} matches nothing in the lockfile`).toBe(true);
  });

  it('npm itself finds no install script left unreviewed in what is installed', () => {
    const out = execFileSync('npm', ['install-scripts', 'ls'], { cwd: ROOT, encoding: 'utf8' });
    expect(out).toContain('No packages with unreviewed install scripts.');
  });
});
