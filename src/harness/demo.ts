/**
 * npm run demo — a sandbox GPU-less "server" on this machine (the test bed's real OpenSSH sshd and
 * TigerVNC Xvnc with an xterm and a moving test pattern), a profile for it, and the app (browser
 * harness) opened connected to it. Nothing is written to your real gpu-desk profiles.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startCleanupSupervisor } from './cleanupClient';
import { startDemoKeyring } from './demoKeyring';
import { writeLaunchPage } from './launchPage';

function has(cmd: string): boolean {
  return (process.env.PATH ?? '').split(':').some((d) => fs.existsSync(path.join(d, cmd)));
}

/** Openbox's own configuration, except that the test pattern never takes focus from the terminal. */
function openboxConfig(file: string): void {
  const rc = fs.readFileSync('/etc/xdg/openbox/rc.xml', 'utf8').replace('<applications>', `<applications><application class="${PATTERN_CLASS}"><focus>no</focus></application>`);
  fs.writeFileSync(file, rc, { mode: 0o644 });
}

/** ffplay's SDL window class, named so Openbox can tell it apart. */
const PATTERN_CLASS = 'gpu-desk-pattern';

/** Waits until a window manager has claimed the display (EWMH's check window on the root). */
async function waitForWindowManager(display: string, xauthority: string, manager: { exitCode: number | null }): Promise<void> {
  while (manager.exitCode === null) {
    const r = spawnSync('xprop', ['-display', display, '-root', '_NET_SUPPORTING_WM_CHECK'], { env: { ...process.env, XAUTHORITY: xauthority }, encoding: 'utf8' });
    // No xprop (x11-utils) to ask: go on unmanaged rather than wait for ever.
    if (r.error || /window id/.test(r.stdout ?? '')) return;
    await new Promise((r2) => setTimeout(r2, 100));
  }
}

async function main(): Promise<void> {
  const missing = ['sshd', 'Xvnc', 'xterm', 'xauth'].filter((c) => !has(c) && !fs.existsSync(`/usr/sbin/${c}`));
  if (missing.length) {
    process.stderr.write(`gpu-desk demo: ${missing.join(', ')} not installed — install openssh-server tigervnc-standalone-server xterm xauth (see .ci/run), or run \`npm run harness\` against your own server\n`);
    process.exit(1);
  }
  // Everything the demo makes goes into one folder: its own TMPDIR, so the bed's folders land there too.
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-desk-demo-'));
  // The sandbox account (not us, when we are root) reaches its desktop's files in here, lists nothing.
  fs.chmodSync(root, 0o711);
  const cleanup = await startCleanupSupervisor();
  cleanup.removeDir(root);
  const [markerName, markerValue] = cleanup.marker.split('=');
  // Every process started from here on carries the marker: the supervisor ends exactly those.
  process.env[markerName] = markerValue;
  const browserEnv = { ...process.env };
  delete browserEnv[markerName];
  process.env.TMPDIR = root;

  let stopping = false;
  let harness: { close(): Promise<void> } | null = null;
  let launchFile: string | null = null;
  const stop = async (code: number) => {
    if (launchFile) fs.rmSync(launchFile, { force: true });
    const closing = harness?.close().catch(() => {});
    // The app's sockets close politely if they can; the supervisor ends the rest regardless.
    await Promise.race([closing, new Promise((r) => setTimeout(r, 3000))]);
    await cleanup.stop();
    process.exit(code);
  };
  // Ctrl+C often arrives twice (the terminal's and tsx's): the first starts the stop, the rest wait for it.
  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    process.stdout.write('gpu-desk demo: stopping…\n');
    void stop(0);
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, onSignal);

  try {
    const home = process.env.GPU_DESK_HOME ?? path.join(root, 'home');
    fs.mkdirSync(home, { recursive: true, mode: 0o700 });
    process.env.GPU_DESK_HOME = home;
    let keyring = 'its own gnome-keyring (nothing reaches your login keychain)';
    if (has('gnome-keyring-daemon') && has('dbus-daemon')) process.env.DBUS_SESSION_BUS_ADDRESS = await startDemoKeyring(path.join(root, 'keyring'));
    else keyring = 'none: install gnome-keyring and dbus for the Keys screen';
    // The bed and the harness read GPU_DESK_HOME when loaded: import them only now.
    const { startSshd, startXvnc } = await import('../../test/bed');
    const { startHarness } = await import('./server');
    // sshd hands the marker to every session it opens, so what the app starts there ends with the demo too.
    const bed = await startSshd({ extraConfig: [`SetEnv ${cleanup.marker}`] });
    // A desktop like any other: it asks for a password, and its terminal is the sandbox account's.
    const password = randomBytes(6).toString('base64url').slice(0, 8);
    const wm = has('openbox');
    const rc = path.join(root, 'openbox-rc.xml');
    if (wm) openboxConfig(rc);
    const xvnc = await startXvnc({
      geometry: '1280x800',
      password,
      account: { user: bed.user, env: { [markerName]: markerValue } },
    });
    cleanup.releaseDisplay(xvnc.display);
    // Openbox first, so it manages the windows that follow and the terminal, mapped last, has the focus.
    if (wm) await waitForWindowManager(xvnc.x11Display, path.join(xvnc.dir, 'Xauthority'), xvnc.run(['openbox', '--config-file', rc]));
    if (has('ffplay')) xvnc.run(['env', 'SDL_RENDER_DRIVER=software', `SDL_VIDEO_X11_WMCLASS=${PATTERN_CLASS}`, 'ffplay', '-loglevel', 'quiet', '-an', '-noborder', '-left', '660', '-top', '20', '-f', 'lavfi', '-i', 'testsrc2=size=560x315:rate=30']);
    xvnc.run(['xterm', '-geometry', '100x30+20+20']);
    const h = await startHarness();
    harness = h;
    const saved = await h.core.handlers()['profiles.save']({
      profile: {
        name: 'sandbox', host: '127.0.0.1', port: bed.port, user: bed.user, jumpHosts: [],
        auth: { kind: 'key-file', path: bed.userKeyPath }, display: { number: xvnc.display, geometry: '1280x800' },
        viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'fit', adaptive: true }, forwards: [],
      },
    });
    const url = `${h.url}&connect=${saved.id}`;
    process.stdout.write([
      'gpu-desk demo',
      `  sandbox server: ${bed.user}@127.0.0.1 port ${bed.port} (real OpenSSH), desktop :${xvnc.display} (TigerVNC)`,
      `  its host key:   ${bed.hostKeyFingerprint}  (compare it with the prompt)`,
      `  desktop password: ${password}  (the viewer asks for it)`,
      `  sandbox key:    ${bed.userKeyPath}`,
      `  app data:       ${home}  (CLI: GPU_DESK_HOME=${home} npx gpu-desk probe sandbox)`,
      `  keychain:       ${keyring}`,
      `  open:           ${url}`,
      '  Ctrl+C stops everything and removes these files.',
      '',
    ].join('\n'));
    // The token never goes on xdg-open's command line (readable by every local user): a 0600 page carries it.
    const launch = writeLaunchPage(home, url);
    launchFile = launch.file;
    // The browser is the person's own: it does not carry the marker, so the demo's end leaves it be.
    if (process.env.DISPLAY && has('xdg-open')) spawn('xdg-open', launch.argv, { stdio: 'ignore', detached: true, env: browserEnv }).unref();
  } catch (e) {
    process.stderr.write(`gpu-desk demo: ${(e as Error).message}\n`);
    stopping = true;
    await stop(1);
  }
}

main().catch((e) => {
  process.stderr.write(`gpu-desk demo: ${(e as Error).message}\n`);
  process.exit(1);
});
