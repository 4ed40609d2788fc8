import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCode } from './expectCode';
import { cleanupAll, isRoot, makeTempDir, startSshd, type SshdBed } from '../../bed';
import { bedOptions, trustedKnownHosts } from '../../helpers/ssh';
import { connectSsh } from '../../../src/core/ssh/connection';
import type { HostKeyPrompt } from '../../../src/core/ssh/types';

let bed: SshdBed;
let bed2: SshdBed;

beforeAll(async () => {
  [bed, bed2] = await Promise.all([startSshd(), startSshd({ hostKeyType: 'ecdsa' })]);
});
afterAll(cleanupAll);

describe('host keys, like OpenSSH', () => {
  it('unknown key: the callback gets the SHA256 fingerprint; accept-and-save means no question next time', async () => {
    const prompts: HostKeyPrompt[] = [];
    const opts = bedOptions(bed, { callbacks: { onUnknownHostKey: async (p) => { prompts.push(p); return 'accept-save'; } } });
    const c = await connectSsh(opts);
    expect(prompts).toHaveLength(1);
    expect(prompts[0].fingerprint).toBe(bed.hostKeyFingerprint);
    expect(prompts[0].keyType).toBe('ssh-ed25519');
    expect(prompts[0].host).toBe(`[127.0.0.1]:${bed.port}`);
    expect((await c.exec('echo ok')).stdout).toBe('ok\n');
    await c.close();
    expect(fs.readFileSync(opts.appKnownHostsFile, 'utf8')).toContain(bed.knownHostsLine.split(' ')[2]);
    const again = await connectSsh({ ...opts, callbacks: { onUnknownHostKey: async () => { throw new Error('asked again'); } } });
    await again.close();
  });

  it('a changed key is refused, naming the expected and presented fingerprints, without asking', async () => {
    const kh = path.join(makeTempDir('gd-kh-'), 'known_hosts');
    // bed2's key under bed's name: exactly what a man-in-the-middle looks like.
    const otherKey = fs.readFileSync(bed2.hostKeyPath + '.pub', 'utf8').split(' ').slice(0, 2).join(' ');
    const ed = execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(path.dirname(kh), 'k')]);
    void ed;
    const fakeEd = fs.readFileSync(path.join(path.dirname(kh), 'k.pub'), 'utf8').split(' ').slice(0, 2).join(' ');
    fs.writeFileSync(kh, `[127.0.0.1]:${bed.port} ${fakeEd}\n[127.0.0.1]:${bed.port} ${otherKey}\n`);
    let asked = false;
    const e = await expectCode(
      connectSsh(bedOptions(bed, { appKnownHostsFile: kh, callbacks: { onUnknownHostKey: async () => { asked = true; return 'accept-save'; } } })),
      'HOST_KEY_CHANGED',
    );
    expect(asked).toBe(false);
    expect(e.message).toContain(bed.hostKeyFingerprint);
    const { sha256Fingerprint } = await import('../../../src/core/ssh/fingerprint');
    expect(e.message).toContain(sha256Fingerprint(Buffer.from(fakeEd.split(' ')[1], 'base64')));
    expect(e.fix).toContain('ssh-keygen -R');
  });

  it('hashed |1| entries in ~/.ssh/known_hosts are recognised', async () => {
    const dir = makeTempDir('gd-khh-');
    const f = path.join(dir, 'known_hosts');
    fs.writeFileSync(f, bed.knownHostsLine + '\n');
    execFileSync('ssh-keygen', ['-H', '-f', f], { stdio: 'ignore' });
    expect(fs.readFileSync(f, 'utf8')).toMatch(/^\|1\|/);
    const c = await connectSsh(bedOptions(bed, { userKnownHostsFiles: [f], callbacks: {} }));
    await c.close();
  });

  it('reject → refused; no callback (non-interactive) → refused with the fix', async () => {
    await expectCode(connectSsh(bedOptions(bed, { callbacks: { onUnknownHostKey: async () => 'reject' } })), 'HOST_KEY_REJECTED');
    const e = await expectCode(connectSsh(bedOptions(bed, { callbacks: {} })), 'HOST_KEY_UNKNOWN');
    expect(e.message).toContain(bed.hostKeyFingerprint);
  });
});

describe('authentication', () => {
  it('a wrong key is an auth error naming what was tried', async () => {
    const e = await expectCode(connectSsh(bedOptions(bed, { identityFiles: [bed2.userKeyPath] })), 'AUTH_FAILED');
    expect(e.message).toContain(bed2.userKeyPath);
  });

  it('an encrypted key asks for its passphrase, which never appears in errors', async () => {
    let asked = 0;
    const c = await connectSsh(bedOptions(bed, {
      identityFiles: [bed.encryptedKeyPath],
      callbacks: { onUnknownHostKey: async () => 'accept-once', askPassphrase: async () => { asked++; return bed.userKeyPassphrase; } },
    }));
    expect(asked).toBe(1);
    await c.close();
    const e = await expectCode(connectSsh(bedOptions(bed, {
      identityFiles: [bed.encryptedKeyPath],
      callbacks: { onUnknownHostKey: async () => 'accept-once', askPassphrase: async () => 'wrong passphrase 99' },
    })), 'AUTH_FAILED');
    expect(e.message).not.toContain('wrong passphrase 99');
  });

  it('password and keyboard-interactive (relayed prompts, the 2FA path) against the real account', async () => {
    if (!isRoot) {
      console.log('NOT RUN: password/keyboard-interactive need the bed to run as root (it creates a real account with a password)');
      return;
    }
    const pw = await connectSsh(bedOptions(bed, { identityFiles: [], callbacks: { onUnknownHostKey: async () => 'accept-once', askPassword: async () => bed.password } }));
    expect((await pw.exec('id -un')).stdout.trim()).toBe(bed.user);
    await pw.close();
    const seen: string[] = [];
    const ki = await connectSsh(bedOptions(bed, {
      identityFiles: [],
      callbacks: {
        onUnknownHostKey: async () => 'accept-once',
        keyboardInteractive: async (p) => { seen.push(...p.prompts.map((x) => x.prompt)); return p.prompts.map(() => bed.password!); },
      },
    }));
    expect(seen.join(' ')).toMatch(/password/i);
    await ki.close();
    const e = await expectCode(connectSsh(bedOptions(bed, { identityFiles: [], callbacks: { onUnknownHostKey: async () => 'accept-once', askPassword: async () => 'not-the-password-123' } })), 'AUTH_FAILED');
    expect(e.message).not.toContain('not-the-password-123');
  });

  it('ssh-agent: keys held by a real ssh-agent are used', async () => {
    const dir = makeTempDir('gd-agent-');
    const sock = path.join(dir, 'agent.sock');
    const agent = spawn('ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' });
    try {
      for (let i = 0; i < 50 && !fs.existsSync(sock); i++) await new Promise((r) => setTimeout(r, 50));
      execFileSync('ssh-add', [bed.userKeyPath], { env: { ...process.env, SSH_AUTH_SOCK: sock }, stdio: 'ignore' });
      const c = await connectSsh(bedOptions(bed, { identityFiles: [], agent: sock }));
      expect((await c.exec('echo agent')).stdout).toBe('agent\n');
      await c.close();
    } finally {
      agent.kill();
    }
  });
});

describe('~/.ssh/config and ProxyJump', () => {
  it('a Host alias supplies HostName, User, Port and IdentityFile', async () => {
    const dir = makeTempDir('gd-cfg-');
    const cfg = path.join(dir, 'config');
    fs.writeFileSync(cfg, `Host gpu-box\n  HostName 127.0.0.1\n  User ${bed.user}\n  Port ${bed.port}\n  IdentityFile ${bed.userKeyPath}\n  ServerAliveInterval 7\n`);
    const c = await connectSsh({ ...bedOptions(bed), destination: 'gpu-box', port: undefined, identityFiles: undefined, sshConfigPath: cfg });
    expect(c.endpoint).toMatchObject({ host: 'gpu-box', hostName: '127.0.0.1', port: bed.port, user: bed.user });
    expect((await c.exec('id -un')).stdout.trim()).toBe(bed.user);
    await c.close();
  });

  it('ProxyJump through a second sshd: each hop verified and authenticated', async () => {
    const dir = makeTempDir('gd-cfg-');
    const cfg = path.join(dir, 'config');
    fs.writeFileSync(cfg, [
      'Host jumpbox', '  HostName 127.0.0.1', `  Port ${bed2.port}`, `  User ${bed2.user}`, `  IdentityFile ${bed2.userKeyPath}`,
      'Host target', '  HostName 127.0.0.1', `  Port ${bed.port}`, `  User ${bed.user}`, `  IdentityFile ${bed.userKeyPath}`, '  ProxyJump jumpbox', '',
    ].join('\n'));
    const prompts: HostKeyPrompt[] = [];
    const c = await connectSsh({
      ...bedOptions(bed), destination: 'target', port: undefined, identityFiles: undefined, sshConfigPath: cfg,
      callbacks: { onUnknownHostKey: async (p) => { prompts.push(p); return 'accept-once'; } },
    });
    expect(prompts.map((p) => [p.hop, p.fingerprint])).toEqual([[0, bed2.hostKeyFingerprint], [1, bed.hostKeyFingerprint]]);
    expect(c.hops).toHaveLength(2);
    // The target connection really arrives from the jump host's sshd (a direct-tcpip channel).
    const log = fs.readFileSync(bed2.logPath, 'utf8');
    expect(log).toMatch(new RegExp(`direct-tcpip.*127\\.0\\.0\\.1.*${bed.port}|Connection from 127\\.0\\.0\\.1`));
    await c.close();
    // -J on the command line overrides the config; a hop with a changed key stops the chain.
    const kh = trustedKnownHosts(bed);
    const fake = path.join(makeTempDir('gd-fake-'), 'k');
    execFileSync('ssh-keygen', ['-q', '-t', 'ecdsa', '-N', '', '-f', fake]);
    fs.writeFileSync(kh, `[127.0.0.1]:${bed2.port} ${fs.readFileSync(fake + '.pub', 'utf8').split(' ').slice(0, 2).join(' ')}\n`, { flag: 'a' });
    await expectCode(connectSsh({ ...bedOptions(bed), appKnownHostsFile: kh, jump: [`${bed2.user}@127.0.0.1:${bed2.port}`] }), 'HOST_KEY_CHANGED');
  });

  it('a two-hop chain given as -J j1,j2 (comma-separated), each hop with its own key from the config', async () => {
    const bed3 = await startSshd();
    const cfg = path.join(makeTempDir('gd-cfg-'), 'config');
    fs.writeFileSync(cfg, [
      'Host j1', '  HostName 127.0.0.1', `  Port ${bed2.port}`, `  User ${bed2.user}`, `  IdentityFile ${bed2.userKeyPath}`,
      'Host j2', '  HostName 127.0.0.1', `  Port ${bed3.port}`, `  User ${bed3.user}`, `  IdentityFile ${bed3.userKeyPath}`, '',
    ].join('\n'));
    const prompts: HostKeyPrompt[] = [];
    const c = await connectSsh({
      ...bedOptions(bed), sshConfigPath: cfg, jump: ['j1', 'j2'],
      callbacks: { onUnknownHostKey: async (p) => { prompts.push(p); return 'accept-once'; } },
    });
    expect(prompts.map((p) => p.fingerprint)).toEqual([bed2.hostKeyFingerprint, bed3.hostKeyFingerprint, bed.hostKeyFingerprint]);
    expect((await c.exec('echo $SSH_CONNECTION')).stdout).toMatch(/^127\.0\.0\.1 /);
    await c.close();
    await bed3.stop();
  });

  it('a malformed ssh config is a one-line error naming the line', async () => {
    const cfg = path.join(makeTempDir('gd-cfg-'), 'config');
    fs.writeFileSync(cfg, 'Host x\n  Port twenty-two\n');
    const e = await expectCode(connectSsh({ ...bedOptions(bed), destination: 'x', sshConfigPath: cfg }), 'BAD_SSH_CONFIG');
    expect(e.message).toContain('line 2');
  });
});

describe('connection life', () => {
  it('an unreachable port is a clear error', async () => {
    const { freePort } = await import('../../bed');
    const port = await freePort();
    const e = await expectCode(connectSsh({ ...bedOptions(bed), port }), 'HOST_UNREACHABLE');
    expect(e.fix).toMatch(/port/);
  });

  it('the login is timed by phase (key exchange, then authentication) within the connect\'s own time; through a jump host the total also holds the first hop', async () => {
    const t0 = performance.now();
    const c = await connectSsh(bedOptions(bed));
    const wall = performance.now() - t0;
    const l = c.lastLogin!;
    expect(l.handshakeMs).toBeGreaterThan(0);
    expect(l.authMs).toBeGreaterThan(0);
    expect(l.handshakeMs + l.authMs).toBeLessThanOrEqual(l.totalMs + 0.001);
    expect(l.totalMs).toBeLessThanOrEqual(wall);
    await c.close();
    const cfg = path.join(makeTempDir('gd-cfg-'), 'config');
    fs.writeFileSync(cfg, ['Host j1', '  HostName 127.0.0.1', `  Port ${bed2.port}`, `  User ${bed2.user}`, `  IdentityFile ${bed2.userKeyPath}`, ''].join('\n'));
    const jumped = await connectSsh({ ...bedOptions(bed), sshConfigPath: cfg, jump: ['j1'], callbacks: { onUnknownHostKey: async () => 'accept-once' } });
    const j = jumped.lastLogin!;
    // The jump host's own login comes first: more than the target's two phases.
    expect(j.totalMs).toBeGreaterThan(j.handshakeMs + j.authMs);
    await jumped.close();
  });

  it('keepalive probes measure the SSH round trip', async () => {
    const c = await connectSsh(bedOptions(bed));
    const rtt = await c.measureRtt();
    expect(rtt).toBeGreaterThan(0);
    expect(c.rttMs).toBeGreaterThan(0);
    await c.close();
    expect(c.state).toBe('closed');
  });

  it('the link drops while a command\'s channel is still opening: CONNECTION_LOST, not "the server refused"', async () => {
    // A relay whose server→client direction can be held: the exec request reaches sshd, its answer never comes back.
    let hold = false;
    const held: net.Socket[] = [];
    const relay = net.createServer((client) => {
      const up = net.connect(bed.port, '127.0.0.1');
      held.push(client, up);
      client.pipe(up);
      up.on('data', (d) => { if (!hold) client.write(d); });
      client.on('error', () => up.destroy());
      up.on('error', () => client.destroy());
    });
    await new Promise<void>((r) => relay.listen(0, '127.0.0.1', r));
    try {
      const c = await connectSsh({ ...bedOptions(bed), port: (relay.address() as net.AddressInfo).port });
      hold = true;
      const running = c.exec('echo never');
      await new Promise((r) => setTimeout(r, 200));
      for (const s of held) s.destroy();
      const e = await expectCode(running, 'CONNECTION_LOST');
      expect(e.fix).toMatch(/reconnect/);
      // Once it is gone, exec() rejects (it never throws) with the state named.
      await expectCode(c.exec('true'), 'NOT_CONNECTED');
      await c.close();
    } finally {
      relay.close();
    }
  });
});
