import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/**
 * Issue 34 medium 1, the reproduction through the real CLI: a user name with shell syntax must not
 * run a command through %r in a ProxyCommand (OpenSSH's fix for CVE-2023-51385). No sshd needed:
 * the command would run before any SSH byte is exchanged.
 */
const BIN = path.resolve(__dirname, '../../../bin/gpu-desk.cjs');
let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-inj-'));
  fs.mkdirSync(path.join(dir, '.ssh'), { mode: 0o700 });
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function tunnel(args: string[]) {
  return spawnSync(process.execPath, [BIN, 'tunnel', ...args], {
    cwd: dir,
    env: { ...process.env, GPU_DESK_HOME: dir, HOME: dir, SSH_AUTH_SOCK: '' },
    encoding: 'utf8',
    timeout: 120_000,
  });
}

describe('gpu-desk tunnel refuses user names with shell syntax (issue 34 medium 1)', () => {
  it("'x$(touch${IFS}FILE)@inj' with ProxyCommand sh -c \"true %r; exec nc %h %p\": one-line error, FILE never created", () => {
    const cfg = path.join(dir, '.ssh', 'config');
    fs.writeFileSync(cfg, ['Host inj', '  ProxyCommand sh -c "true %r; exec nc %h %p"', ''].join('\n'), { mode: 0o600 });
    const file = path.join(dir, 'FILE');
    const viaJump = path.join(dir, 'p');
    const runs = [
      tunnel([`x$(touch\${IFS}${file})@inj`, '--display', '1', '-F', cfg, '--known-hosts', path.join(dir, 'kh')]),
      tunnel(['inj', '-l', `x$(touch\${IFS}${file})`, '--display', '1', '-F', cfg, '--known-hosts', path.join(dir, 'kh')]),
      // A jump spec's user reaches the jump host's ProxyCommand the same way.
      tunnel(['gpu', '-J', `x>({touch,${viaJump}})@inj`, '--display', '1', '-F', cfg, '--known-hosts', path.join(dir, 'kh')]),
    ];
    // What matters first: no command ran (on main before the fix, both files appeared).
    expect(fs.existsSync(file), 'FILE created through %r').toBe(false);
    expect(fs.existsSync(viaJump), 'p created through a jump spec').toBe(false);
    for (const r of runs) {
      expect(r.status).not.toBe(0);
      const last = r.stderr.trim().split('\n').at(-1);
      expect(last).toMatch(/^error: remote username contains invalid characters .*CVE-2023-51385/);
    }
  });
});
