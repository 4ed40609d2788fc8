/**
 * Issue 42 in the app's seam (src/core/app/remoteOps.ts), on the no-sudo server with no route out
 * (test/bed/freshServer.ts, network 'isolated'): the app's plan installs into the home by itself where
 * the probe finds no sudo, as `gpu-desk setup` does; the set-up option `userInstall: false` still gives
 * the system plan; and where the probe says the server cannot reach GitHub the plan is marked for the
 * desk to carry the packages (remoteOps.apply then uploads them over SFTP before the steps), unless a
 * mirror was given. The carrying itself is tested through the CLI in userInstallOffline.test.ts (it is
 * the one carryUserPackages).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteOps } from '../../../src/core/app/remoteOps';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { cleanupAll, isRoot, makeTempDir, startFreshServer, type FreshServer } from '../../bed';

const USER_STEPS = ['user-turbovnc', 'user-virtualgl', 'user-deps', 'user-window-manager', 'user-env'];

let server: FreshServer;
let conn: SshConnection;

if (!isRoot) console.log('userInstallPlan.test.ts: not running as root, so no network namespace or chroot server can be made; these tests cannot run here');

describe.runIf(isRoot)('the app\'s set-up plan on a no-sudo server with no route out', () => {
  beforeAll(async () => {
    server = await startFreshServer({ account: 'no-sudo', packages: 'gpu-driver', network: 'isolated' });
    const dir = makeTempDir('gd-app-userplan-');
    const knownHosts = path.join(dir, 'known_hosts');
    fs.writeFileSync(knownHosts, `${server.knownHostsLine}\n`);
    conn = await connectSsh({
      destination: server.host, port: server.port, user: server.user, identityFiles: [server.userKeyPath], onlyGivenKeys: true,
      agent: false, sshConfigPath: null, userKnownHostsFiles: [knownHosts], globalKnownHostsFiles: [], strictHostKeyChecking: 'yes',
      appKnownHostsFile: path.join(dir, 'app_known_hosts'),
    });
  }, 15 * 60_000);
  afterAll(async () => {
    await conn?.close();
    await cleanupAll();
  }, 120_000);

  it('with no choice made: the install into the home, every step as the user, the packages carried by the desk', async () => {
    const plan = await remoteOps().plan(conn);
    expect(plan.steps.map((s) => s.id)).toEqual(USER_STEPS);
    expect(plan.steps.filter((s) => s.needsRoot)).toEqual([]);
    expect(plan.userInstall?.prefix).toBe('~/.local/share/gpu-desk/turbovnc-3.3_virtualgl-3.1.4');
    expect(plan.noteTexts?.map((n) => n.key)).toContain('userInstall');
    expect(plan.carry?.os.family).toBe('deb');
    expect(plan.carry?.allowUnverified).toBe(false);
  }, 120_000);

  it('with a mirror given: the install into the home, the server downloading from the mirror (nothing carried)', async () => {
    const plan = await remoteOps().plan(conn, { packagesFrom: 'https://mirror.example.org/gpu' });
    expect(plan.steps.map((s) => s.id)).toEqual(USER_STEPS);
    expect(plan.carry).toBeUndefined();
  }, 120_000);

  it('with userInstall: false: the system plan, whose steps need root', async () => {
    const plan = await remoteOps().plan(conn, { userInstall: false });
    expect(plan.userInstall).toBeUndefined();
    expect(plan.carry).toBeUndefined();
    expect(plan.steps.some((s) => s.needsRoot)).toBe(true);
    expect(plan.steps.some((s) => s.id.startsWith('user-'))).toBe(false);
  }, 120_000);
});
