import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';

/**
 * The demo's own keychain: a private D-Bus session bus and an unlocked gnome-keyring whose data lives
 * in `dir` (as test/run-all.sh makes one for the tests). The Keys screen then works in the demo, and
 * nothing the demo stores reaches the person's own login keychain. Both daemons inherit the demo's
 * clean-up marker from this process's environment, so the clean-up supervisor ends them.
 * Returns the bus address for DBUS_SESSION_BUS_ADDRESS.
 */
export async function startDemoKeyring(dir: string): Promise<string> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const bus = spawn('dbus-daemon', ['--session', '--nofork', '--nopidfile', '--print-address=1'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const address = await new Promise<string>((resolve, reject) => {
    let out = '';
    bus.stdout!.setEncoding('utf8');
    bus.stdout!.on('data', (d: string) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0].trim());
    });
    bus.once('error', reject);
    bus.once('exit', (code) => reject(new Error(`dbus-daemon exited (${code}) before it gave its address`)));
  });
  const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: address, XDG_DATA_HOME: dir };
  // --unlock reads the new keyring's password on stdin; nobody needs it again (the daemon ends with the demo).
  const keyring = spawn('gnome-keyring-daemon', ['--unlock', '--components=secrets'], { stdio: ['pipe', 'ignore', 'ignore'], env });
  keyring.stdin!.end(randomBytes(12).toString('hex'));
  await new Promise<void>((resolve, reject) => {
    keyring.once('error', reject);
    keyring.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`gnome-keyring-daemon exited (${code})`))));
  });
  return address;
}
