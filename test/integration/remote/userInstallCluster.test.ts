/**
 * Issue 42, part 4: a Slurm cluster where the user has no sudo and no administrator installed TurboVNC or
 * VirtualGL (the one-node Slurm bed, test/bed/slurm.ts, its user gdtest in no sudo group; every daemon
 * of the bed, both sshds and slurmd, in a mount namespace where /opt/TurboVNC and /opt/VirtualGL of this
 * machine are empty, and the user's home is a directory of this test's own, bind-mounted over it, so
 * the install touches no other test's home). With the real CLI: the cluster probe looks at the login
 * node and one compute node and finds the home shared; the set-up plan installs into the home through
 * the login node; the node then sees the install; `gpu-desk jobs start` gives a job desktop whose Xvnc
 * is the home install's, reached with `gpu-desk tunnel --job`. A second bed whose node mounts another
 * home: the cluster probe says the home is not shared.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BED_USER, cleanupAll, isRootForSlurm, makeTempDir, startPackageMirror, startSlurm, type PackageMirror, type SlurmBed } from '../../bed';
import { applyEvents } from '../../bed/userDesk';
import { nextJson, runCli, spawnCli } from '../../helpers/cli';
import { rfbHandshake } from './rfb';

const NAME = 'turbovnc-3.3_virtualgl-3.1.4';
const INSTALL_MS = 15 * 60_000;

if (!isRootForSlurm) console.log('userInstallCluster.test.ts: not running as root, so no Slurm bed can be made; these tests cannot run here');

/** A home for the bed user that only this test's daemons see, owned by the user. */
function privateHome(): string {
  const dir = makeTempDir('gd-clhome-');
  execFileSync('chown', [`${BED_USER}:${BED_USER}`, dir]);
  fs.chmodSync(dir, 0o755);
  return dir;
}

/**
 * The command every daemon of the bed starts under: its own mount namespace, this machine's system
 * installs of TurboVNC and VirtualGL hidden under empty directories (a cluster whose administrators
 * installed neither), `home` over the user's home.
 */
function noSystemInstall(home: string): string[] {
  const userHome = execFileSync('getent', ['passwd', BED_USER], { encoding: 'utf8' }).split(':')[5];
  const hide = ['/opt/TurboVNC', '/opt/VirtualGL'].filter((d) => fs.existsSync(d)).map((d) => `mount -t tmpfs -o mode=755,size=1m gd-noopt ${d}`);
  return ['unshare', '-m', '--propagation', 'private', '--', 'sh', '-c', [...hide, `mount --bind "$0" ${userHome}`, 'exec "$@"'].join(' && '), home];
}

const cli = (home: string, args: string[]) => runCli(args, { home });

interface ClusterProbeJson {
  login: { sudo: string; vnc: { turbovnc: { installed: boolean; binDir: string | null } }; virtualgl: { installed: boolean; binDir: string | null } };
  node: { name: string; report: ClusterProbeJson['login'] | null; error: string | null };
  home: { shared: boolean | null; loginHome: string; nodeHome: string | null; message: string; fix: string | null };
}

function deskHome(slurm: SlurmBed): string {
  const home = makeTempDir('gd-cluserinst-');
  fs.mkdirSync(path.join(home, '.ssh'), { mode: 0o700 });
  fs.copyFileSync(slurm.knownHostsPath, path.join(home, '.ssh', 'known_hosts'));
  return home;
}
const login = (slurm: SlurmBed) => [slurm.loginDestination, '-i', slurm.login.userKeyPath, '-F', slurm.sshConfigPath];

async function clusterProbe(slurm: SlurmBed, home: string): Promise<ClusterProbeJson> {
  const r = await cli(home, ['jobs', ...login(slurm), 'probe', '--partition', slurm.partition, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as ClusterProbeJson;
}

describe.runIf(isRootForSlurm)('a Slurm cluster where the user has no sudo: one install into the shared home serves the job desktops', () => {
  let slurm: SlurmBed;
  let mirror: PackageMirror;
  let home: string;
  let userHome: string;
  beforeAll(async () => {
    userHome = privateHome();
    [slurm, mirror] = await Promise.all([startSlurm({ wrap: noSystemInstall(userHome) }), startPackageMirror()]);
    home = deskHome(slurm);
  }, 180_000);
  afterAll(cleanupAll, 120_000);

  it('the cluster probe: login node and a compute node, neither with TurboVNC or VirtualGL, the home shared, no sudo', async () => {
    const p = await clusterProbe(slurm, home);
    expect(p.node.name).toBe(slurm.nodeName);
    expect(p.node.error).toBeNull();
    expect(p.login.sudo).toBe('unknown');
    for (const r of [p.login, p.node.report!]) {
      expect(r.vnc.turbovnc.installed).toBe(false);
      expect(r.virtualgl.installed).toBe(false);
    }
    expect(p.home).toMatchObject({ shared: true, fix: null });
    expect(p.home.message).toContain(`Node ${slurm.nodeName} shares your home directory with the login node`);
    // The check leaves nothing behind in the home.
    expect(fs.existsSync(path.join(userHome, '.gpu-desk/home-check'))).toBe(false);
  }, 180_000);

  it('the set-up through the login node installs into the home with no root, and the compute node then finds that install', async () => {
    const plan = await cli(home, ['setup', ...login(slurm), '--plan', '--json', '--packages-from', mirror.url]);
    expect(plan.code, plan.stderr).toBe(0);
    const steps = (JSON.parse(plan.stdout) as { steps: { id: string; needsRoot: boolean }[] }).steps;
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.filter((s) => s.needsRoot || !s.id.startsWith('user-'))).toEqual([]);
    const r = await cli(home, ['setup', ...login(slurm), '--apply', '--yes', '--json', '--packages-from', mirror.url]);
    expect(r.code, `${r.stderr}\n${applyEvents(r.stdout).filter((e) => e.type === 'output').slice(-20).map((e) => `${e.stepId}: ${e.text}`).join('\n')}`).toBe(0);
    expect(applyEvents(r.stdout).at(-1)).toMatchObject({ type: 'finished', ok: true });
    expect(fs.readlinkSync(path.join(userHome, '.local/share/gpu-desk/current'))).toBe(NAME);

    const p = await clusterProbe(slurm, home);
    expect(p.node.report!.vnc.turbovnc).toMatchObject({ installed: true, binDir: `${p.home.nodeHome}/.local/share/gpu-desk/${NAME}/TurboVNC/bin` });
    expect(p.node.report!.virtualgl.installed).toBe(true);
  }, INSTALL_MS);

  it('gpu-desk jobs start: a job desktop whose Xvnc is the home install\'s, reached through gpu-desk tunnel --job with its one-time password', async () => {
    const start = await cli(home, ['jobs', ...login(slurm), 'start', '--time', '15', '--geometry', '1024x768', '--json']);
    const events = start.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>);
    const jobId = String(events.find((e) => e.event === 'submitted')?.jobId);
    expect(start.code, `${start.stderr}\njob output: ${fs.existsSync(path.join(userHome, `.gpu-desk/jobs`)) ? execFileSync('sh', ['-c', `cat ${userHome}/.gpu-desk/jobs/*/*.out 2>/dev/null | tail -n 20`], { encoding: 'utf8' }) : ''}`).toBe(0);
    expect(events.at(-1)).toMatchObject({ event: 'ready', jobId, node: slurm.nodeName });
    // The job's X server: this user's Xvnc from the install in the (shared) home.
    const uid = Number(execFileSync('id', ['-u', BED_USER], { encoding: 'utf8' }));
    const xvnc = fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
      try { return fs.statSync(`/proc/${p}`).uid === uid && fs.readFileSync(`/proc/${p}/comm`, 'utf8').trim() === 'Xvnc'; } catch { return false; }
    }).map((p) => { try { return fs.readlinkSync(`/proc/${p}/exe`); } catch { return ''; } });
    expect(xvnc.filter((e) => e.endsWith(`/.local/share/gpu-desk/${NAME}/TurboVNC/bin/Xvnc`))).toHaveLength(1);

    const tunnel = spawnCli(['tunnel', ...login(slurm), '--job', jobId, '--json'], { home });
    try {
      let ev = await nextJson(tunnel);
      while (ev.event !== 'listening') ev = await nextJson(tunnel);
      const listening = ev as { local: string; otp?: string };
      const otp = listening.otp ?? (await cli(home, ['jobs', ...login(slurm), 'otp', jobId])).stdout.trim();
      const s = net.connect({ host: '127.0.0.1', port: Number(listening.local.split(':').pop()) });
      const r = await rfbHandshake(s, otp, { init: true });
      expect(r).toMatchObject({ ok: true, width: 1024, height: 768 });
    } finally {
      tunnel.proc.kill('SIGTERM');
      await tunnel.exit;
    }
    const c = await cli(home, ['jobs', ...login(slurm), 'cancel', jobId]);
    expect(c.code, c.stderr).toBe(0);
  }, 600_000);
});

describe.runIf(isRootForSlurm)('a Slurm cluster whose compute node does not share the login node\'s home', () => {
  let slurm: SlurmBed;
  let home: string;
  beforeAll(async () => {
    const [loginHome, nodeHome] = [privateHome(), privateHome()];
    slurm = await startSlurm({ wrap: noSystemInstall(loginHome), nodeWrap: noSystemInstall(nodeHome) });
    home = deskHome(slurm);
  }, 180_000);
  afterAll(cleanupAll, 120_000);

  it('the cluster probe says the node\'s home is not the login node\'s, and what that means for an install into the home', async () => {
    const p = await clusterProbe(slurm, home);
    expect(p.node.name).toBe(slurm.nodeName);
    expect(p.home.shared).toBe(false);
    expect(p.home.message).toMatch(new RegExp(`^Your home directory on node ${slurm.nodeName} \\(.*\\) is not the one on the login node \\(.*\\): what is installed into your home on the login node is not there for job desktops on that node\\.$`));
    expect(p.home.fix).toMatch(/administrators/);
  }, 180_000);
});
