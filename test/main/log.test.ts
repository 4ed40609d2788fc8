import { mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger, redactLine } from '../../src/main/log';
import { registerSecret } from '../../src/core/errors';
import { createDispatcher } from '../../src/core/ipc';
import { z } from 'zod';

const KEY = `-----BEGIN OPENSSH PRIVATE KEY-----
b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW
QyNTUxOQAAACDo9d4Tw3b4T+secretmaterial+AAAAAAAAAA==
-----END OPENSSH PRIVATE KEY-----`;

describe('main-process log', () => {
  it('writes to the log folder with registered secrets, private keys, secret fields and inline passwords redacted', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gd-log-'));
    const log = createLogger({ dir });
    const passphrase = 'correct horse battery staple 42';
    registerSecret(passphrase);
    log.info('unlocking key with %s', passphrase);
    log.warn('library said:\n%s', KEY);
    log.info('profile saved %o', { host: 'gpu1', auth: { kind: 'password', password: 'pw-not-registered-1' }, sudoPassword: 'sudo-pw-2', vncPassword: 'vncpw333' });
    log.error('ssh -o password=plainpw444 failed; url http://x/?token=tok555&a=1; passphrase: "pp666"');
    log.error('thrown: %s', new Error(`auth failed for ${passphrase}`).stack);
    const text = readFileSync(log.file, 'utf8');
    expect(log.file).toBe(path.join(dir, 'main.log'));
    for (const s of [passphrase, 'secretmaterial', 'BEGIN OPENSSH', 'pw-not-registered-1', 'sudo-pw-2', 'vncpw333', 'plainpw444', 'tok555', 'pp666'])
      expect(text, s).not.toContain(s);
    expect(text).toContain('[redacted private key]');
    expect(text).toContain('host');
    expect(text).toContain('gpu1');
    expect(text.trim().split('\n').filter((l) => /^\d{4}-\d\d-\d\dT/.test(l))).toHaveLength(5);
    expect(statSync(log.file).mode & 0o077).toBe(0);
  });

  it('server text in a line is written with control characters escaped (issue 16.5)', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gd-log-'));
    const log = createLogger({ dir });
    log.warn('ssh error: %s', 'Disconnected: \x1b]0;owned\x07\u009b2J bye\r\nnext');
    const text = readFileSync(log.file, 'utf8');
    expect(text).toContain('ssh error: Disconnected: \\033]0;owned\\007\\302\\2332J bye\n    next\n');
    for (const c of ['\x1b', '\x07', '\u009b', '\r']) expect(text).not.toContain(c);
  });

  it('rotates past the size limit and keeps one old file', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gd-log-'));
    const log = createLogger({ dir, maxBytes: 2000 });
    for (let i = 0; i < 100; i++) log.info('line %d %s', i, 'x'.repeat(40));
    expect(readdirSync(dir).sort()).toEqual(['main.log', 'main.old.log']);
    expect(statSync(path.join(dir, 'main.log')).size).toBeLessThanOrEqual(2000);
    expect(readFileSync(path.join(dir, 'main.log'), 'utf8')).toContain('line 99');
  });

  it('the IPC router logs failures through it without the secret', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gd-log-'));
    const log = createLogger({ dir });
    const secret = 'sudo-password-for-ipc-test';
    registerSecret(secret);
    const dispatch = createDispatcher({
      inputs: { 'x.run': z.object({ sudoPassword: z.string() }) },
      handlers: { 'x.run': (i: { sudoPassword: string }) => { throw new Error(`sudo: wrong password ${i.sudoPassword}`); } },
      isTrustedSender: () => true,
      log: (l) => log.warn('%s', l),
    });
    await dispatch(null, 'x.run', { sudoPassword: secret });
    await dispatch(null, 'x.run', { sudoPassword: 5 });
    const text = readFileSync(log.file, 'utf8');
    expect(text).toContain('x.run');
    expect(text).not.toContain(secret);
    expect(redactLine(`password=${secret}`)).toBe('password=[redacted]');
  });
});
