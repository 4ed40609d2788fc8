/**
 * npm run demo — a sandbox GPU-less "server" on this machine (the test bed's real OpenSSH sshd and
 * TigerVNC Xvnc with an xterm and a moving test pattern), a profile for it, and the app (browser
 * harness) opened connected to it. Nothing is written to your real gpu-desk profiles.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { writeLaunchPage } from './launchPage';

function has(cmd: string): boolean {
  return (process.env.PATH ?? '').split(':').some((d) => fs.existsSync(path.join(d, cmd)));
}

async function main(): Promise<void> {
  const missing = ['sshd', 'Xvnc', 'xterm'].filter((c) => !has(c) && !fs.existsSync(`/usr/sbin/${c}`));
  if (missing.length) {
    process.stderr.write(`gpu-desk demo: ${missing.join(', ')} not installed — install openssh-server tigervnc-standalone-server xterm (see .ci/run), or run \`npm run harness\` against your own server\n`);
    process.exit(1);
  }
  const home = process.env.GPU_DESK_HOME ?? fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-desk-demo-'));
  process.env.GPU_DESK_HOME = home;
  // The bed and the harness read GPU_DESK_HOME when loaded: import them only now.
  const { startSshd, startXvnc, cleanupAll } = await import('../../test/bed');
  const { startHarness } = await import('./server');
  const bed = await startSshd();
  const xvnc = await startXvnc({ geometry: '1280x800', clients: [['xterm', '-geometry', '100x30+20+20']] });
  if (has('ffplay')) xvnc.run(['env', 'SDL_RENDER_DRIVER=software', 'ffplay', '-loglevel', 'quiet', '-an', '-noborder', '-left', '660', '-top', '20', '-f', 'lavfi', '-i', 'testsrc2=size=560x315:rate=30']);
  const harness = await startHarness();
  const saved = await harness.core.handlers()['profiles.save']({
    profile: {
      name: 'sandbox', host: '127.0.0.1', port: bed.port, user: bed.user, jumpHosts: [],
      auth: { kind: 'key-file', path: bed.userKeyPath }, display: { number: xvnc.display, geometry: '1280x800' },
      viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'fit', adaptive: true }, forwards: [],
    },
  });
  const url = `${harness.url}&connect=${saved.id}`;
  process.stdout.write([
    'gpu-desk demo',
    `  sandbox server: ${bed.user}@127.0.0.1 port ${bed.port} (real OpenSSH), desktop :${xvnc.display} (TigerVNC)`,
    `  its host key:   ${bed.hostKeyFingerprint}  (compare it with the prompt)`,
    `  app data:       ${home}`,
    `  open:           ${url}`,
    '  Ctrl+C stops everything.',
    '',
  ].join('\n'));
  // The token never goes on xdg-open's command line (readable by every local user): a 0600 page carries it.
  const launch = writeLaunchPage(home, url);
  if (process.env.DISPLAY && has('xdg-open')) spawn('xdg-open', launch.argv, { stdio: 'ignore', detached: true }).unref();
  const stop = async () => {
    fs.rmSync(launch.file, { force: true });
    await harness.close();
    await cleanupAll();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((e) => {
  process.stderr.write(`gpu-desk demo: ${(e as Error).message}\n`);
  process.exit(1);
});
