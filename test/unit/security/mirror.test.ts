import { describe, expect, it } from 'vitest';
import { GpuDeskError } from '../../../src/core/errors';
import { checkMirrorUrl, fetchVerifiedScript } from '../../../src/core/remote/packageFetch';
import { buildSetupPlan } from '../../../src/core/remote/setupPlan';
import { freshGpu, report } from '../remote/reports';

/**
 * Issue 34, medium 3: a plain-http mirror serves the packages and the SHA256SUMS they are checked
 * against over the same unprotected link, so the check proves nothing before a root install. http
 * counts as unverified (needs --allow-unverified, and the plan says so); https (or the server's own
 * loopback) is required for "checked".
 */
const HTTP = 'http://mirror.example.org/gpu';
const TURBO = { label: 'TurboVNC', repo: 'TurboVNC/turbovnc', version: '3.3', asset: 'turbovnc_3.3_amd64.deb' };

function thrown(fn: () => unknown): GpuDeskError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(GpuDeskError);
    return e as GpuDeskError;
  }
  throw new Error('expected an error');
}

describe('package mirror over plain http (issue 34 medium 3)', () => {
  it('checkMirrorUrl refuses plain http unless unverified packages are allowed; https and loopback pass', () => {
    const e = thrown(() => checkMirrorUrl(HTTP));
    expect(e.code).toBe('BAD_ARGUMENT');
    expect(e.message).toMatch(/plain http.*proves nothing/);
    expect(e.fix).toMatch(/https.*--allow-unverified/);
    expect(checkMirrorUrl(HTTP, true)).toBe(HTTP);
    expect(checkMirrorUrl('https://mirror.example.org/gpu/')).toBe('https://mirror.example.org/gpu');
    for (const loop of ['http://127.0.0.1:8080/pkgs', 'http://localhost/pkgs', 'http://[::1]:81/p']) expect(checkMirrorUrl(loop)).toBe(loop);
    expect(() => checkMirrorUrl('http://127.0.0.1.evil.example/pkgs')).toThrow(/plain http/);
  });

  it('the plan: http without allowUnverified is refused; with it, each download step says it is unverified and why; https says which check held', () => {
    const r = report(freshGpu('os-release-debian-12.txt'));
    expect(() => buildSetupPlan(r, { packagesFrom: HTTP })).toThrow(/plain http/);
    const plan = buildSetupPlan(r, { packagesFrom: HTTP, allowUnverified: true });
    for (const id of ['virtualgl', 'vnc-server']) {
      const s = plan.steps.find((x) => x.id === id)!;
      expect(s.why).toMatch(/come over plain http from http:\/\/mirror\.example\.org\/gpu: .*proves nothing.*counts as unverified/);
      expect(s.why).not.toMatch(/checked against/);
      expect(s.text?.verify?.source.key).toBe('mirrorHttp');
      expect(s.apply).toContain('over plain http: UNVERIFIED');
    }
    const https = buildSetupPlan(r, { packagesFrom: 'https://mirror.example.org/gpu' });
    const vnc = https.steps.find((x) => x.id === 'vnc-server')!;
    expect(vnc.text?.verify?.source.key).toBe('mirror');
    expect(vnc.why).toContain('checked against the SHA-256 listed for turbovnc_');
    expect(vnc.why).toContain('https://mirror.example.org/gpu/SHA256SUMS');
  });

  it('a script built for an http mirror without allowUnverified never installs (defence in depth)', () => {
    const sh = fetchVerifiedScript(TURBO, HTTP, false);
    expect(sh).toMatch(/plain http: nothing from it is installed/);
    expect(sh).not.toContain('sha256sum "$f"');
  });
});
