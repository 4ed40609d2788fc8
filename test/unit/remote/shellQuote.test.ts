import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commandOnStdin, shellCommand, shellQuote, shScript } from '../../../src/core/remote/shellQuote';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-quote-'));
const canary = path.join(dir, 'pwned');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Values an attacker (or an unlucky profile name) could put in any field that reaches a remote shell. */
export const HOSTILE = [
  '; rm -rf ~',
  `; touch ${canary}`,
  `$(touch ${canary})`,
  `\`touch ${canary}\``,
  `a'b`,
  `'; touch ${canary}; echo '`,
  `"; touch ${canary}; echo "`,
  `line1\ntouch ${canary}`,
  `\r\ntouch ${canary}`,
  `$HOME ~ * ? [a] {a,b} \\ | & > < !! %`,
  `--help`,
  `-rf`,
  `A=B`,
  `${'$'}{IFS}touch${'$'}{IFS}${canary}`,
  ``,
  ` leading and trailing `,
  `ünïcødé ✓ 日本`,
  `\t tab`,
  `'''`,
  `\\'`,
];

const shells = ['/bin/sh', '/bin/bash', '/bin/dash'].filter((s) => fs.existsSync(s));

describe('shellQuote', () => {
  it('leaves plain words bare so reviewed commands stay readable', () => {
    expect(shellQuote('nvidia-smi')).toBe('nvidia-smi');
    expect(shellQuote('/opt/VirtualGL/bin/vglrun')).toBe('/opt/VirtualGL/bin/vglrun');
    expect(shellQuote('--format=csv,noheader')).toBe('--format=csv,noheader');
    expect(shellQuote('1920x1080')).toBe('1920x1080');
  });

  it('quotes the empty string, assignments and anything with specials', () => {
    expect(shellQuote('')).toBe("''");
    expect(shellQuote('A=B')).toBe("'A=B'");
    expect(shellQuote('_x1=$(id)')).toBe("'_x1=$(id)'");
    expect(shellCommand(['A=B', 'true'])).toBe("'A=B' true");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    expect(shellQuote('~')).toBe("'~'");
  });

  it('refuses NUL bytes and non-strings with a clear error', () => {
    expect(() => shellQuote('a\0b')).toThrow(/NUL byte/);
    expect(() => shellQuote(42 as unknown as string)).toThrow(/not text/);
    expect(() => shellCommand([])).toThrow(/empty remote command/);
  });

  for (const shell of shells) {
    it(`round-trips every hostile value through ${shell} and runs none of them`, () => {
      for (const v of HOSTILE) {
        const cmd = shellCommand(['printf', '%s', v]);
        const out = execFileSync(shell, ['-c', cmd], { cwd: dir }).toString();
        expect(out).toBe(v);
      }
      const joined = execFileSync(shell, ['-c', shellCommand(['printf', '[%s]', ...HOSTILE])], { cwd: dir }).toString();
      expect(joined).toBe(HOSTILE.map((v) => `[${v}]`).join(''));
      expect(fs.existsSync(canary)).toBe(false);
    });
  }

  it('shScript passes hostile values as positional arguments, never as code', () => {
    for (const v of HOSTILE) {
      const out = execFileSync('/bin/sh', ['-c', shScript('printf "%s" "$1"', [v])]).toString();
      expect(out).toBe(v);
    }
    expect(fs.existsSync(canary)).toBe(false);
  });
});

// sshd runs the exec request as `<login shell> -c '<request>'`: the same line must mean the same in each.
const loginShells = ['/bin/sh', '/bin/bash', '/bin/dash', '/usr/bin/tcsh', '/bin/csh', '/usr/bin/zsh'].filter((s) => fs.existsSync(s));

describe('commandOnStdin (how the session exec sends a command)', () => {
  it('tcsh and csh are here to test against (.ci/run installs tcsh)', () => {
    expect(loginShells).toContain('/usr/bin/tcsh');
  });

  it('puts one short line on the command line, whatever the command: no newline, backslash, ! or inner single quote', () => {
    const big = shScript(`# ${'x'.repeat(20_000)}\necho "$1"`, ['a\nb']);
    const { line, stdinPrefix } = commandOnStdin(big, true);
    expect(line.length).toBeLessThan(300);
    expect(line).toMatch(/^sh -c '[^'\n\\!]*'$/);
    expect(stdinPrefix.length).toBeGreaterThan(20_000);
    expect(commandOnStdin(big, false).line).toMatch(/^sh -c '[^'\n\\!]*'$/);
  });

  for (const shell of loginShells) {
    it(`${shell} -c <line> runs the command from stdin with hostile arguments, and leaves what follows for it`, () => {
      for (const v of HOSTILE) {
        const c = commandOnStdin(shScript('read -r pw; printf "%s|%s" "$1" "$pw"', [v]), true);
        const out = execFileSync(shell, ['-c', c.line], { cwd: dir, input: Buffer.concat([c.stdinPrefix, Buffer.from('s3cret\nnot for the script\n')]) }).toString();
        expect(out).toBe(`${v}|s3cret`);
        const d = commandOnStdin(shScript('printf "%s" "$1"', [v]), false);
        expect(execFileSync(shell, ['-c', d.line], { cwd: dir, input: d.stdinPrefix }).toString()).toBe(v);
      }
      expect(fs.existsSync(canary)).toBe(false);
    });
  }

  it('runs nothing of a command that arrives cut short (a connection lost part-way)', () => {
    const c = commandOnStdin(`touch ${shellQuote(canary)}; echo ran`, true);
    for (const cut of [c.stdinPrefix.length - 1, c.stdinPrefix.length - 5, 10]) {
      const r = spawnSync('/bin/sh', ['-c', c.line], { input: c.stdinPrefix.subarray(0, cut) });
      expect(r.status).toBe(126);
      expect(r.stderr.toString()).toMatch(/did not arrive whole/);
    }
    expect(fs.existsSync(canary)).toBe(false);
  });

  it('refuses a command with a NUL byte', () => {
    expect(() => commandOnStdin('echo a\0b', false)).toThrow(/NUL byte/);
  });
});
