import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppCore } from '../../../src/core/app/createAppCore';
import { appCoreOnBed } from '../../helpers/appCore';
import { cleanupAll, isPortFree, isRoot, makeTempDir, registerCleanup, startSshd, type SshdBed } from '../../bed';
import { until } from '../../helpers/until';

/**
 * Issue 40 §2, first finding: a display this account has no session on, where ANOTHER account listens
 * on 127.0.0.1:5900+N (a fake VNC server that asks no password, as a squatter would run). The app's
 * viewer and tunnel refuse it, naming the listener's owner, and nothing (no clipboard message, no
 * keystroke) reaches it; `gpu-desk tunnel` forwards it only with --any-listener, saying whose it is.
 * The listener runs as `nobody`, which needs root here (the bed's own account is the SSH login).
 */

const BIN = path.resolve(__dirname, '../../../bin/gpu-desk.cjs');
const NOBODY = 65534;
let bed: SshdBed;
let core: AppCore;
let display: number;
/** What the squatter saw, one line each: `conn` per accepted connection, `data <hex>` per chunk. */
const seen: string[] = [];

/** A VNC server with no authentication, as another account could start on a freed port. */
const SQUATTER = `
const net = require('net');
net.createServer((s) => {
  console.log('conn');
  s.write('RFB 003.008\\n');
  s.on('data', (d) => console.log('data ' + d.toString('hex')));
  s.on('error', () => {});
}).listen(Number(process.argv[1]), '127.0.0.1', () => console.log('listening'));
`;

if (!isRoot) console.log('displaySquat.test.ts: not running as root, so no listener of another account can be started; these tests cannot run here');

beforeAll(async () => {
  if (!isRoot) return;
  bed = await startSshd();
  display = 60;
  while (!(await isPortFree(5900 + display))) display++;
  const squatter: ChildProcessWithoutNullStreams = spawn('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, '-e', SQUATTER, String(5900 + display)], { cwd: '/' });
  registerCleanup(() => { squatter.kill('SIGKILL'); });
  createInterface({ input: squatter.stdout }).on('line', (l) => seen.push(l));
  await until(() => seen, (s) => s.includes('listening'), 'the squatter to listen');
  seen.length = 0;

  ({ core } = appCoreOnBed({ prefix: 'gd-squat-' }));
}, 60_000);
afterAll(cleanupAll);

/** The squatter's record so far, closed off by a connection of our own that sends a marker (lines come in order). */
async function squatterRecord(): Promise<string[]> {
  const s = net.connect({ host: '127.0.0.1', port: 5900 + display });
  s.on('error', () => {});
  s.write('marker');
  const marker = `data ${Buffer.from('marker').toString('hex')}`;
  await until(() => seen, (x) => x.includes(marker), 'the marker to reach the squatter');
  s.destroy();
  const upTo = seen.slice(0, seen.indexOf(marker) + 1);
  seen.length = 0;
  return upTo;
}

describe.runIf(isRoot)('a display another account listens on (real sshd, a listener run as nobody)', () => {
  it("the app's viewer and Tunnel only refuse it, naming the owner; nothing reaches the listener", async () => {
    const h = core.handlers();
    const p = await h['profiles.save']({
      profile: {
        name: 'squat', host: '127.0.0.1', port: bed.port, user: bed.user, jumpHosts: [], auth: { kind: 'key-file', path: bed.userKeyPath },
        display: {}, viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'fit', adaptive: false }, forwards: [],
      },
    });
    const connectionId = (await h['connections.open']({ profileId: p.id })).id;
    const refusal = new RegExp(`Display :${display} of .* is not one of your desktops: user nobody \\(uid ${NOBODY}\\) listens on its port ${5900 + display}`);
    await expect(h['viewer.open']({ connectionId, display })).rejects.toThrow(refusal);
    // Twice: a second try (a reconnecting viewer) is refused the same way, not sent where the first was.
    await expect(h['viewer.open']({ connectionId, display })).rejects.toThrow(refusal);
    await expect(h['tunnels.open']({ connectionId, display })).rejects.toThrow(refusal);
    // Only our own marker connection ever reached it: no viewer, so no ClientCutText (type 6) nor key.
    expect(await squatterRecord()).toEqual(['conn', `data ${Buffer.from('marker').toString('hex')}`]);
    await h['connections.close']({ connectionId });
  });

  it('gpu-desk tunnel refuses it with the fix, and forwards it with --any-listener, naming whose it is', async () => {
    const home = makeTempDir('gd-squat-cli-');
    const args = (extra: string[]) => ['tunnel', `${bed.user}@127.0.0.1`, '-p', String(bed.port), '-i', bed.userKeyPath, '-F', 'none', '--accept-new-host-key', '--known-hosts', path.join(home, 'kh'), '--display', String(display), ...extra];
    const env = { ...process.env, GPU_DESK_HOME: home, HOME: home, SSH_AUTH_SOCK: '' };

    const refused = spawn(process.execPath, [BIN, ...args([])], { env });
    let err = '';
    refused.stderr.on('data', (d) => (err += d));
    refused.stdout.resume();
    expect(await new Promise((r) => refused.on('exit', r))).not.toBe(0);
    const line = err.trim().split('\n').at(-1)!;
    expect(line).toMatch(new RegExp(`^error: Display :${display} of .* is not one of your desktops: user nobody \\(uid ${NOBODY}\\) listens .* add --any-listener$`));

    const asked = spawn(process.execPath, [BIN, ...args(['--any-listener', '--json'])], { env });
    registerCleanup(() => { asked.kill('SIGKILL'); });
    const lines = createInterface({ input: asked.stdout })[Symbol.asyncIterator]();
    const ev = JSON.parse((await lines.next()).value as string);
    expect(ev).toMatchObject({ event: 'listening', display, owner: `user nobody (uid ${NOBODY})`, password: null });
    const local = Number(String(ev.local).split(':')[1]);
    const s = net.connect({ host: '127.0.0.1', port: local });
    s.on('error', () => {});
    await until(() => seen, (x) => x.includes('conn'), 'the forwarded connection to reach the listener');
    s.destroy();
    seen.length = 0;
    asked.kill('SIGINT');
    expect(await new Promise((r) => asked.on('exit', r))).toBe(0);
  });
});
