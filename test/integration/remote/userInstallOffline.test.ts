/**
 * Issue 42, part 3: the no-sudo server with NO route out (test/bed/freshServer.ts network: 'isolated':
 * its sshd in a network namespace of the bed's own, joined to this machine by a veth pair only, no
 * default route, no name server). Neither GitHub, nor the bed's package mirror, nor Debian's archive can
 * be reached from it, so everything the install needs comes from the desk over the SSH connection
 * (SFTP): TurboVNC and VirtualGL from a directory on the desk (`--packages-from DIR`, here
 * ../shared/vendor with its SHA256SUMS), and what they need from the distribution. In order on one
 * server: probe says what it cannot reach → a package damaged on the desk is refused → an upload cut
 * off in the middle leaves nothing half-installed → the next apply finishes → a desktop where
 * glxspheres64 under the user's vglrun draws, the viewer through the tunnel showing exactly the
 * server's screen → no file outside the home changed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, isRoot, listingChanges, makeTempDir, startFreshServer, VENDOR_DIR, type FreshServer } from '../../bed';
import { startCutProxy } from '../../bed/cutProxy';
import { applyEvents, deskCli, desktop3d, type DeskCli } from '../../bed/userDesk';

const TURBO_DEB = 'turbovnc_3.3_amd64.deb';
const NAME = 'turbovnc-3.3_virtualgl-3.1.4';
const BASE = '.local/share/gpu-desk';
const STEPS = ['user-turbovnc', 'user-virtualgl', 'user-deps', 'user-window-manager', 'user-env'];
const INSTALL_MS = 15 * 60_000;

let server: FreshServer;
let desk: DeskCli;
let before: Map<string, string>;

if (!isRoot) console.log('userInstallOffline.test.ts: not running as root, so no network namespace or chroot server can be made; these tests cannot run here');

const apply = (from: string, extra: { port?: number; host?: string } = {}) =>
  desk.run(['setup', '--apply', '--yes', '--json', '--packages-from', from], extra);
const inHome = (rel: string) => path.join(server.root, server.home, rel);
/** A step's temporary directory, or a package file anywhere but where the install keeps it: none may remain. */
const leftovers = () => server.rootSh(`find ${server.home}/${BASE} /tmp /var/tmp -maxdepth 2 \\( -name '.tmp-*' -o -name '*.deb' -o -name '*.part' \\) 2>/dev/null || true`).out.trim();

function said(r: { stdout: string; stderr: string }): string {
  const out = applyEvents(r.stdout).filter((e) => e.type === 'output').map((e) => `${e.stepId}: ${e.text ?? ''}`);
  return `${r.stderr.trim()}\nthe last output:\n${out.slice(-30).join('\n')}`;
}

describe.runIf(isRoot)('a no-sudo server with no route out: the desk carries every package over SFTP', () => {
  beforeAll(async () => {
    server = await startFreshServer({ account: 'no-sudo', packages: 'gpu-driver', network: 'isolated' });
    desk = deskCli(server, makeTempDir('gd-userinst-off-'));
    before = server.listing();
  }, INSTALL_MS);
  afterAll(cleanupAll, 120_000);

  it('probe: the server reaches neither the upstream download host nor the distribution\'s mirror, and says so', async () => {
    const r = await desk.run(['probe', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { sudo: string; findings: { code: string; message: string; fix: string }[] };
    expect(report.sudo).toBe('unknown');
    const text = report.findings.map((f) => `${f.code}: ${f.message} — ${f.fix}`);
    expect(text.filter((t) => /github\.com/.test(t) && /cannot reach|not reach|unreachable/i.test(t)), text.join('\n')).toHaveLength(1);
    expect(text.filter((t) => /deb\.debian\.org|distribution's (package )?mirror/i.test(t) && /cannot reach|not reach|unreachable/i.test(t)), text.join('\n')).toHaveLength(1);
  }, 120_000);

  it('a package damaged on the desk (its SHA-256 unlike SHA256SUMS) is refused with one line, and nothing is installed', async () => {
    const bad = makeTempDir('gd-badpkgs-');
    for (const f of fs.readdirSync(VENDOR_DIR)) if (f.endsWith('.deb') || f === 'SHA256SUMS') fs.copyFileSync(path.join(VENDOR_DIR, f), path.join(bad, f));
    const b = fs.readFileSync(path.join(bad, TURBO_DEB));
    b[b.length - 64] ^= 0xff;
    fs.writeFileSync(path.join(bad, TURBO_DEB), b);
    const r = await apply(bad);
    expect(r.code, said(r)).toBe(1);
    expect(r.stderr.trim().split('\n').at(-1), said(r)).toMatch(/^error: .*SHA-256.*turbovnc_3\.3_amd64\.deb.*nothing was installed/i);
    expect(fs.existsSync(inHome(`${BASE}/${NAME}/TurboVNC`))).toBe(false);
    expect(fs.existsSync(inHome(`${BASE}/current`))).toBe(false);
    expect(leftovers()).toBe('');
  }, INSTALL_MS);

  it('an upload cut off in the middle (the link goes down) stops the run with one line and leaves nothing half-installed', async () => {
    // Half of the first package's bytes, and the link goes down: wherever the upload then is.
    const proxy = await startCutProxy({ host: server.host, port: server.port, cutAfterUpBytes: 64 * 1024 + Math.floor(fs.statSync(path.join(VENDOR_DIR, TURBO_DEB)).size / 2) });
    const r = await apply(VENDOR_DIR, { host: '127.0.0.1', port: proxy.port });
    await proxy.stop();
    expect(proxy.cut).toBe(true);
    expect(r.code).not.toBe(0);
    const last = r.stderr.trim().split('\n').at(-1) ?? '';
    expect(last, said(r)).toMatch(/^error: .*(connection|upload)/i);
    expect(last.split(' — ').length, last).toBe(2);
    expect(fs.existsSync(inHome(`${BASE}/${NAME}/TurboVNC`))).toBe(false);
    expect(fs.existsSync(inHome(`${BASE}/current`))).toBe(false);
    expect(leftovers()).toBe('');
  }, INSTALL_MS);

  it('the next apply carries every package from the desk and finishes the install; a second plan has every step done', async () => {
    const r = await apply(VENDOR_DIR);
    expect(r.code, said(r)).toBe(0);
    const ev = applyEvents(r.stdout);
    expect(ev.filter((e) => e.type === 'step-done').map((e) => e.stepId), said(r)).toEqual(STEPS);
    // Checked again on the server against the sum the desk checked it against.
    expect(ev.some((e) => e.stepId === 'user-turbovnc' && /turbovnc_3\.3_amd64\.deb: SHA-256 [0-9a-f]{64} matches/.test(e.text ?? ''))).toBe(true);
    // The distribution's packages came the same way: apt on the server checked the carried lists and every .deb from file://.
    expect(ev.some((e) => e.stepId === 'user-deps' && /SHA-256 matches the server's signed index/.test(e.text ?? '')), said(r)).toBe(true);
    expect(ev.at(-1)).toMatchObject({ type: 'finished', ok: true });
    // What was carried is not left lying about once it is installed.
    expect(leftovers()).toBe('');
    expect(server.rootSh(`find ${server.home}/${BASE} ! -user ${server.user} | head -n 5`).out.trim()).toBe('');

    const p = await desk.run(['setup', '--plan', '--json', '--packages-from', VENDOR_DIR]);
    expect(p.code, p.stderr).toBe(0);
    // The window manager is there now (the home install's Openbox, on the probe's PATH), so the plan has no step for it (as in userInstall.test.ts).
    expect((JSON.parse(p.stdout) as { steps: { id: string; status: string }[] }).steps.map((s) => [s.id, s.status])).toEqual(STEPS.filter((id) => id !== 'user-window-manager').map((id) => [id, 'done']));
  }, INSTALL_MS);

  it('a desktop from the carried install: glxspheres64 under vglrun -d egl, the viewer through the tunnel showing exactly the server\'s screen', async () => {
    const d = await desktop3d(server, desk);
    const ui = `${server.home}/${BASE}/${NAME}`;
    expect(d.session).toMatchObject({ flavor: 'turbovnc', port: null, localhostOnly: true, passwordKind: 'otp' });
    expect(d.xvncExe).toEqual([`${ui}/TurboVNC/bin/Xvnc`]);
    expect(d.desktopPath).toContain(`${ui}/bin`);
    expect(d.spheresLog).toMatch(/^\[VGL\] Opening EGL device/m);
    expect(d.fakerMapped.length).toBeGreaterThan(0);
    expect(d.fakerMapped.every((f) => f.startsWith(`${ui}/VirtualGL/lib/`))).toBe(true);
    expect(d.coloursSpheres).toBeGreaterThan(d.coloursBare);
    expect(d.spheresUnlike).toBe(0);
  }, 600_000);

  it('no file outside the user\'s home changed', () => {
    expect(listingChanges(before, server.listing())).toEqual([]);
  });
});
