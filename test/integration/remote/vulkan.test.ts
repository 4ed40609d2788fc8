/**
 * Vulkan in the probe over real SSH, on this machine's real Vulkan: the loader, Mesa's ICDs and
 * lavapipe (mesa-vulkan-drivers), vulkaninfo (vulkan-tools). What the probe must report is what
 * `vulkaninfo --summary` says when this test runs it here, as the bed's account — no hard-coded device.
 * The account's environment is the sshd's SetEnv: a PATH without vulkaninfo (a folder of links to
 * everything else), and VK_DRIVER_FILES naming an ICD whose library does not exist.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, makeTempDir, registerCleanup, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { probeServer } from '../../../src/core/remote/probe';
import { parseVulkaninfoSummary } from '../../../src/core/remote/parsers';
import { buildSetupPlan } from '../../../src/core/remote/setupPlan';
import { checkPlan } from '../../../src/core/remote/planRunner';
import { killSession, startSession } from '../../../src/core/remote/vncSessions';

const SEARCH_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';
const vulkaninfo = spawnSync('sh', ['-c', 'command -v vulkaninfo'], { encoding: 'utf8', env: { PATH: SEARCH_PATH } }).stdout.trim() || null;
if (!vulkaninfo) console.log('vulkan.test.ts: vulkaninfo is not installed here (apt-get install vulkan-tools mesa-vulkan-drivers, as .ci/run does); the tests that compare against it fail');

/** This machine's own answer, as the bed's account, with no display (the summary needs none). */
function localSummary(user: string) {
  const as = process.getuid?.() === 0 && user !== 'root'
    ? { uid: Number(execFileSync('id', ['-u', user], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', user], { encoding: 'utf8' })) }
    : {};
  const env = { PATH: SEARCH_PATH, HOME: as.uid !== undefined ? '/' : process.env.HOME ?? '/', LC_ALL: 'C' };
  const r = spawnSync(vulkaninfo!, ['--summary'], { encoding: 'utf8', env, cwd: '/', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'], ...as });
  return parseVulkaninfoSummary(r.stdout);
}

/**
 * A socket file in /tmp/.X11-unix that sorts before `name` (the shell's glob order) and that no X
 * server or lock uses, bound and left with nothing listening, owned by `user`; removed at clean-up.
 */
function staleSocketBefore(name: string, user: string): string {
  const dir = '/tmp/.X11-unix';
  const free = (n: string) => !fs.existsSync(path.join(dir, `X${n}`)) && !fs.existsSync(`/tmp/.X${n}-lock`);
  const candidates = ['0', ...Array.from({ length: 90 }, (_, i) => String(10 + i)), ...Array.from({ length: 9 }, (_, i) => String(i + 1))];
  const n = candidates.find((c) => `X${c}` < name && free(c));
  if (!n) throw new Error(`no free X socket name sorts before ${name} in ${dir}`);
  const file = path.join(dir, `X${n}`);
  registerCleanup(() => fs.rmSync(file, { force: true }));
  execFileSync('python3', ['-c', 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])', file]);
  if (process.getuid?.() === 0) execFileSync('chown', [user, file]);
  return file;
}

let tmp: string;
const beds: SshdBed[] = [];
const conns: SshConnection[] = [];

async function bedWith(extraConfig: string[]): Promise<{ bed: SshdBed; conn: SshConnection }> {
  const bed = await startSshd({ extraConfig });
  const conn = await connectSsh(bedOptions(bed));
  beds.push(bed);
  conns.push(conn);
  return { bed, conn };
}

beforeAll(() => {
  tmp = makeTempDir('gd-vulkan-');
  registerCleanup(() => fs.rmSync(tmp, { recursive: true, force: true }));
  // Readable by the bed's own account where that is not this one (a run as root).
  fs.chmodSync(tmp, 0o755);
});
afterAll(async () => {
  for (const c of conns) await c.close();
  await cleanupAll();
});

describe('Vulkan on the real bed (Mesa lavapipe, no GPU)', { timeout: 120_000 }, () => {
  it("reports the loader, Mesa's ICDs with their libraries, and exactly the devices this machine's vulkaninfo lists; only CPU devices is its finding", async () => {
    const { bed, conn } = await bedWith([]);
    const want = localSummary(bed.user);
    expect(want.devices.length, 'vulkaninfo --summary lists no device on this machine').toBeGreaterThan(0);
    const r = await probeServer(conn);
    expect(r.vulkan.loader).toMatch(/\/libvulkan\.so\.1$/);
    expect(r.vulkan.vulkaninfo).toBe(vulkaninfo);
    expect(r.vulkan.error).toBeNull();
    expect(r.vulkan.instanceVersion).toBe(want.instanceVersion);
    expect(r.vulkan.devices.map(({ gpuIndex: _g, ...d }) => d)).toEqual(want.devices);
    expect(r.vulkan.devices.every((d) => d.gpuIndex === null)).toBe(true);
    // Each ICD json under /usr/share/vulkan/icd.d is listed, with the library it names where that exists.
    const icdDir = '/usr/share/vulkan/icd.d';
    const files = fs.readdirSync(icdDir).filter((f) => f.endsWith('.json')).map((f) => path.join(icdDir, f)).sort();
    expect(r.vulkan.icds.filter((i) => i.path.startsWith(`${icdDir}/`)).map((i) => i.path).sort()).toEqual(files);
    for (const i of r.vulkan.icds.filter((x) => x.library)) expect(fs.existsSync(i.library!)).toBe(true);

    const cpuOnly = want.devices.every((d) => d.type === 'cpu');
    const f = r.findings.find((x) => x.code === 'VULKAN_CPU_ONLY');
    if (cpuOnly) {
      expect(f?.severity).toBe('info');
      for (const d of want.devices) expect(f?.message).toContain(d.name);
    } else {
      expect(f).toBeUndefined();
    }
    expect(r.findings.map((x) => x.code)).not.toContain('VULKAN_NO_LOADER');
    expect(r.findings.map((x) => x.code)).not.toContain('VULKANINFO_MISSING');

    // The plan's Vulkan step is already done here: its own check runs vulkaninfo on the server.
    const status = await checkPlan(conn, buildSetupPlan(r));
    expect(status.vulkan).toBe('done');
  });

  it("with a desktop running, vulkaninfo runs in one of the account's own displays (where its programs draw) and lists the same devices", async () => {
    const { bed, conn } = await bedWith([]);
    const s = await startSession(conn, { geometry: '640x480', windowManager: '/usr/bin/xterm' });
    // A stale X socket of the account's, with no server behind it (what a killed X server leaves), that
    // the probe meets before the session's: it must go on to the next display, not give up on displays.
    const stale = staleSocketBefore(`X${s.display}`, bed.user);
    try {
      const r = await probeServer(conn);
      // The account's first X display (this session's, or another of its own that runs): vulkaninfo
      // succeeded in it, else the probe would have run it with no display.
      expect(r.vulkan.display).toMatch(/^:\d+$/);
      const sock = fs.statSync(`/tmp/.X11-unix/X${r.vulkan.display!.slice(1)}`);
      expect(sock.uid).toBe(Number(execFileSync('id', ['-u', bed.user], { encoding: 'utf8' })));
      expect(r.vulkan.devices.map(({ gpuIndex: _g, ...d }) => d)).toEqual(localSummary(bed.user).devices);
      expect(r.vulkan.display).not.toBe(`:${path.basename(stale).slice(1)}`);
    } finally {
      fs.rmSync(stale, { force: true });
      await killSession(conn, s.display);
    }
  });

  it('without vulkaninfo on the account’s PATH: the devices are unknown and the finding names vulkan-tools', async () => {
    // Everything of /usr/bin but vulkaninfo, as links: the account's PATH is only this folder.
    const bin = path.join(tmp, 'bin');
    fs.mkdirSync(bin);
    for (const n of fs.readdirSync('/usr/bin')) if (n !== 'vulkaninfo') fs.symlinkSync(path.join('/usr/bin', n), path.join(bin, n));
    const { conn } = await bedWith([`SetEnv PATH=${bin}`]);
    const r = await probeServer(conn);
    expect(r.vulkan.vulkaninfo).toBeNull();
    expect(r.vulkan.devices).toEqual([]);
    expect(r.vulkan.loader).toMatch(/\/libvulkan\.so\.1$/);
    const f = r.findings.find((x) => x.code === 'VULKANINFO_MISSING');
    expect(f?.severity).toBe('info');
    expect(f?.message).toContain('vulkan-tools');
    expect(f?.fix).toBe('Run the set-up plan, or `sudo apt-get install vulkan-tools`, then probe again');
  });

  it('VK_DRIVER_FILES naming an ICD whose library does not exist: the file, the library and the finding', async () => {
    const icd = path.join(tmp, 'fake_icd.json');
    const lib = path.join(tmp, 'no-such-dir', 'libvulkan_fake.so');
    fs.writeFileSync(icd, JSON.stringify({ file_format_version: '1.0.0', ICD: { library_path: lib, api_version: '1.3.250' } }, null, 4));
    fs.chmodSync(icd, 0o644);
    const { conn } = await bedWith([`SetEnv VK_DRIVER_FILES=${icd}`]);
    const r = await probeServer(conn);
    expect(r.vulkan.icdEnv).toBe(icd);
    expect(r.vulkan.icds).toEqual([{ path: icd, libraryPath: lib, library: null, apiVersion: '1.3.250', nvidia: false, libraryVersion: null, error: null }]);
    const f = r.findings.find((x) => x.code === 'VULKAN_ICD_LIBRARY_MISSING');
    expect(f?.severity).toBe('warning');
    expect(f?.message).toBe(`The Vulkan driver file ${icd} names ${lib}, which does not exist, so the Vulkan loader skips that driver.`);
    // The loader reads only that file, so vulkaninfo finds no device, in its own words.
    expect(r.vulkan.devices).toEqual([]);
    expect(r.vulkan.error).toBeTruthy();
    expect(r.findings.map((x) => x.code)).toContain('VULKAN_NO_DEVICE');
  });
});
