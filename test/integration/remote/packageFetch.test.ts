/**
 * The plan's verified download, run for real: the generated POSIX script under /bin/sh with curl,
 * against a loopback HTTP mirror of the vendor packages and their SHA256SUMS.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, makeTempDir, startPackageMirror, VENDOR_DIR, type PackageMirror } from '../../bed';
import { checkMirrorUrl, FETCH_FAILED, fetchVerifiedScript, VERIFY_FAILED, type UpstreamPackage } from '../../../src/core/remote/packageFetch';
import { buildSetupPlan } from '../../../src/core/remote/setupPlan';
import { isGpuDeskError } from '../../../src/core/errors';
import { bedLike, report } from '../../unit/remote/reports';

const TURBO: UpstreamPackage = { label: 'TurboVNC', repo: 'TurboVNC/turbovnc', version: '3.3', asset: 'turbovnc_3.3_amd64.deb' };
let mirror: PackageMirror;
let bare: PackageMirror;

beforeAll(async () => {
  mirror = await startPackageMirror();
  // A mirror that has the package but lists no checksum for it.
  const dir = makeTempDir('gd-mirror-');
  fs.copyFileSync(path.join(VENDOR_DIR, TURBO.asset), path.join(dir, TURBO.asset));
  fs.writeFileSync(path.join(dir, 'SHA256SUMS'), '0000000000000000000000000000000000000000000000000000000000000000  other.deb\n');
  bare = await startPackageMirror(dir);
});
afterAll(cleanupAll);

// Asynchronous: the mirror answering the script lives in this process.
function run(pkg: UpstreamPackage, base: string, allowUnverified = false): Promise<{ code: number | null; out: string; err: string; tmp: string }> {
  const script = `${fetchVerifiedScript(pkg, base, allowUnverified)}\nfetch_verified; rc=$?\n[ -f "$f" ] && echo "kept: $(sha256sum "$f" | cut -d' ' -f1)"\necho "tmp: $d"\nexit $rc`;
  return new Promise((resolve) => {
    const p = spawn('sh', ['-c', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (err += d));
    p.on('close', (code) => resolve({ code, out, err, tmp: /tmp: (\S+)/.exec(out)?.[1] ?? '' }));
  });
}

const vendorSum = (name: string) => fs.readFileSync(path.join(VENDOR_DIR, 'SHA256SUMS'), 'utf8').split('\n').find((l) => l.endsWith(` ${name}`))!.split(/\s+/)[0];

describe('verified package download (real sh + curl against a loopback mirror)', () => {
  it('a package matching the mirror\'s SHA256SUMS is kept and reported as checked', async () => {
    const r = await run(TURBO, mirror.url);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(`kept: ${vendorSum(TURBO.asset)}`);
    expect(r.out).toContain(`turbovnc_3.3_amd64.deb: SHA-256 ${vendorSum(TURBO.asset)} matches ${mirror.url}/SHA256SUMS`);
    expect(mirror.requests).toContain('SHA256SUMS');
    // The EXIT trap removed the private temp dir.
    expect(fs.existsSync(r.tmp)).toBe(false);
  });

  it('a download that does not match stops with the reason, and the file is deleted', async () => {
    const real = fs.readFileSync(path.join(VENDOR_DIR, TURBO.asset));
    const tampered = Buffer.from(real);
    tampered[tampered.length - 100] ^= 0xff;
    mirror.override(TURBO.asset, tampered);
    try {
      const r = await run(TURBO, mirror.url);
      expect(r.code).toBe(VERIFY_FAILED);
      expect(r.out).not.toContain('kept:');
      const [detail, line] = r.err.trim().split('\n').slice(-2);
      expect(line).toBe('SHA-256 mismatch for turbovnc_3.3_amd64.deb: the download was deleted and nothing was installed; check the mirror, then run the plan again');
      expect(detail).toMatch(/^turbovnc_3\.3_amd64\.deb: .*\/SHA256SUMS says SHA-256 [0-9a-f]{64}, the download has [0-9a-f]{64}$/);
      expect(detail).toContain(vendorSum(TURBO.asset));
    } finally {
      mirror.override(TURBO.asset, null);
    }
  });

  it('nothing to check against: refused unless the reviewed plan allowed unverified packages', async () => {
    const refused = await run(TURBO, bare.url);
    expect(refused.code).toBe(VERIFY_FAILED);
    expect(refused.out).not.toContain('kept:');
    expect(refused.err).toMatch(/Nothing to check turbovnc_3\.3_amd64\.deb against .*--packages-from.*allow unverified/);

    const allowed = await run(TURBO, bare.url, true);
    expect(allowed.code, allowed.err).toBe(0);
    expect(allowed.out).toContain(`kept: ${vendorSum(TURBO.asset)}`);
    expect(allowed.err).toMatch(/warning: turbovnc_3\.3_amd64\.deb has no SHA-256 .*installing it unverified/);
  });

  it('a package the mirror does not have: the download failure is its own status (TurboVNC then falls back to TigerVNC)', async () => {
    const r = await run({ ...TURBO, version: '9.9', asset: 'turbovnc_9.9_amd64.deb' }, mirror.url);
    expect(r.code).toBe(FETCH_FAILED);
    expect(r.err).toContain(`Could not download ${mirror.url}/turbovnc_9.9_amd64.deb`);
  });

  it('the plan takes the mirror as an option, says how each package is checked, and refuses a bad URL', () => {
    const plan = buildSetupPlan(report(bedLike()), { packagesFrom: `${mirror.url}/` });
    const vnc = plan.steps.find((s) => s.id === 'vnc-server')!;
    expect(vnc.apply).toContain(`${mirror.url}/turbovnc_3.3_amd64.deb`);
    expect(vnc.apply).not.toContain('github.com');
    expect(vnc.why).toContain(`${mirror.url}/SHA256SUMS`);
    const upstream = buildSetupPlan(report(bedLike()), { allowUnverified: true }).steps.find((s) => s.id === 'vnc-server')!;
    expect(upstream.apply).toContain('https://github.com/TurboVNC/turbovnc/releases/download/3.3/turbovnc_3.3_amd64.deb');
    expect(upstream.apply).toContain('https://api.github.com/repos/TurboVNC/turbovnc/releases/tags/3.3');
    expect(upstream.why).toMatch(/UNVERIFIED/);
    for (const bad of ['ftp://mirror/pkgs', 'not a url', 'https://user:secret@mirror/pkgs']) {
      let err: unknown;
      try { checkMirrorUrl(bad); } catch (e) { err = e; }
      expect(isGpuDeskError(err) && err.code).toBe('BAD_ARGUMENT');
      expect(String((err as Error).message)).not.toContain('secret');
    }
  });
});
