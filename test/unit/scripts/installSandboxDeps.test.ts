import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * scripts/install-sandbox-deps.sh (npm run setup:demo): on this Debian machine, where the sandbox's
 * packages are installed, it does nothing; where some are missing it runs one apt-get (through one
 * sudo when not root) for those alone, seen through stand-ins for dpkg-query, apt-get, sudo and id
 * put first on PATH. And its list covers what the demo starts: each program's Debian package is on
 * it, or comes with one that is.
 */
const REPO = path.resolve(__dirname, '../../..');
const SCRIPT = path.join(REPO, 'scripts/install-sandbox-deps.sh');
const PACKAGES = /^PACKAGES=\(([^)]*)\)$/m.exec(fs.readFileSync(SCRIPT, 'utf8'))![1].split(/\s+/);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-setup-demo-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const run = (env: NodeJS.ProcessEnv = {}) => execFileSync('bash', [SCRIPT], { encoding: 'utf8', env: { ...process.env, ...env } });

/** Stand-ins: dpkg-query says `missing` are not installed; apt-get, sudo and id log to calls.log. */
function standIns(missing: string[], uid: number): { env: NodeJS.ProcessEnv; calls: () => string[] } {
  const bin = fs.mkdtempSync(path.join(dir, 'bin-'));
  const log = path.join(bin, 'calls.log');
  const put = (name: string, body: string) => fs.writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  put('dpkg-query', `for a; do p="$a"; done; case " ${missing.join(' ')} " in *" $p "*) exit 1;; esac; printf 'install ok installed'`);
  put('apt-get', `echo "apt-get $*" >> '${log}'`);
  put('sudo', `echo "sudo $*" >> '${log}'; "$@"`);
  put('id', `echo ${uid}`);
  return { env: { PATH: `${bin}:${process.env.PATH}` }, calls: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : []) };
}

describe('npm run setup:demo', () => {
  it('does nothing where every package is installed (this machine)', () => {
    expect(run()).toBe('setup:demo: the sandbox\'s packages are all installed\n');
  });

  it('installs only what is missing, as root without sudo', () => {
    const s = standIns(['xterm', 'openbox'], 0);
    expect(run(s.env)).toContain('installing xterm openbox');
    expect(s.calls()).toEqual(['apt-get update', 'apt-get install -y xterm openbox']);
  });

  it('through one sudo when not root', () => {
    const s = standIns(['ffmpeg'], 1000);
    run(s.env);
    const calls = s.calls();
    expect(calls.filter((c) => c.startsWith('sudo '))).toHaveLength(1);
    expect(calls.slice(1)).toEqual(['apt-get update', 'apt-get install -y ffmpeg']);
  });

  it('lists the package of every program the demo starts (or one that brings it)', () => {
    // src/harness/demo.ts, its keyring and clean-up, and the bed it starts (test/bed/sshd.ts, xvnc.ts).
    const programs = ['/usr/sbin/sshd', '/usr/bin/ssh-keygen', '/usr/bin/Xvnc', '/usr/bin/vncpasswd', '/usr/bin/xauth', '/usr/bin/xterm', '/usr/bin/openbox',
      '/etc/xdg/openbox/rc.xml', '/usr/bin/xprop', '/usr/bin/ffplay', '/usr/bin/gnome-keyring-daemon', '/usr/bin/dbus-daemon', '/usr/bin/pkill', '/usr/bin/ps'];
    const listedAndTheirDeps = new Set(PACKAGES);
    for (const p of PACKAGES) {
      const deps = execFileSync('dpkg-query', ['-W', '-f=${Depends},${Pre-Depends}', p], { encoding: 'utf8' });
      for (const d of deps.split(/[,|]/)) listedAndTheirDeps.add(d.trim().split(/[\s:]/)[0]);
    }
    // A merged /usr: dpkg may know a program by its /bin or /sbin path.
    const ownerOf = (file: string) => {
      for (const f of [file, file.replace(/^\/usr\//, '/')]) {
        try {
          return execFileSync('dpkg', ['-S', f], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split(':')[0];
        } catch { /* the other path */ }
      }
      return `no package owns ${file}`;
    };
    for (const file of programs) {
      const owner = ownerOf(fs.realpathSync(file));
      expect(listedAndTheirDeps, `${file} (${owner})`).toContain(owner);
    }
  });
});
