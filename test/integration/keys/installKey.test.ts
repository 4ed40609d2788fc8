import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactSecrets } from '../../../src/core/errors';
import { installAndVerify, installPublicKey, removePublicKeyFromServer } from '../../../src/core/keychain/installKey';
import { keychainKeySource } from '../../../src/core/keychain/keySource';
import { KeyStore } from '../../../src/core/keychain/keyStore';
import { ProfileStore } from '../../../src/core/profiles/profileStore';
import { savedProfileConnectOptions } from '../../../src/core/profiles/connectOptions';
import { shellQuote } from '../../../src/core/remote/shellQuote';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import type { ConnectOptions, SshSession } from '../../../src/core/ssh/types';
import { TunnelManager } from '../../../src/core/tunnels/tunnelManager';
import { cleanupAll, makeTempDir, readUntil, startSshd, startXvnc, type SshdBed, type XvncBed } from '../../bed';
import { clearService, createKeytarStore, requireKeyring, testService } from '../../helpers/profiles/keyring';
import { scanForSecrets } from '../../helpers/profiles/secretScan';

/**
 * Generate → install over a password login → log in with only the keychain key → tunnel a VNC
 * display through that login. Real sshd (PAM password for the bed account), real Secret Service.
 */
let bed: SshdBed;
let xvnc: XvncBed;
let dataDir: string;
let keys: KeyStore;
let profiles: ProfileStore;
const secrets = createKeytarStore({ service: testService('inst') });
const logs: string[] = [];
const errors: string[] = [];
const opened: SshConnection[] = [];

beforeAll(async () => {
  await requireKeyring(secrets);
  [bed, xvnc] = await Promise.all([startSshd(), startXvnc()]);
  dataDir = makeTempDir('gd-inst-');
  profiles = new ProfileStore({ file: path.join(dataDir, 'profiles.json'), notice: (l) => logs.push(l) });
  keys = new KeyStore({ secrets, profiles, keysDir: path.join(dataDir, 'keys') });
  fs.writeFileSync(path.join(dataDir, 'known_hosts'), bed.knownHostsLine + '\n');
});
afterAll(async () => {
  for (const c of opened) await c.close().catch(() => {});
  await clearService(secrets);
  await cleanupAll();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

function base(extra: Partial<ConnectOptions> = {}): ConnectOptions {
  return {
    destination: `${bed.user}@127.0.0.1`,
    port: bed.port,
    sshConfigPath: null,
    appKnownHostsFile: path.join(dataDir, 'known_hosts'),
    userKnownHostsFiles: [],
    agent: false,
    reconnect: { enabled: false },
    log: (l) => logs.push(l),
    ...extra,
  };
}

async function connect(extra: Partial<ConnectOptions>): Promise<SshConnection> {
  try {
    const c = await connectSsh(base(extra));
    opened.push(c);
    return c;
  } catch (e) {
    errors.push(redactSecrets(String((e as Error).message)));
    throw e;
  }
}

/** Only the named keychain key: no agent, no ~/.ssh/id_*, no password. */
const keyOnly = (name: string) => connect({ onlyGivenKeys: true, keySources: [keychainKeySource(keys, [name])] });

/** The same real SSH session with HOME pointed at a scratch directory, to stage authorized_keys files safely. */
function withHome(s: SshSession, home: string): SshSession {
  return {
    get state() { return s.state; },
    get endpoint() { return s.endpoint; },
    get rttMs() { return s.rttMs; },
    exec: (cmd, o) => s.exec(`HOME=${shellQuote(home)}; export HOME; ${cmd}`, o),
    forwardOut: (h, p) => s.forwardOut(h, p),
    forwardOutUnix: (p) => s.forwardOutUnix(p),
  };
}

describe('keys on a real server', () => {
  it('password login → install once (idempotent, 700/600) → key-only login → VNC tunnel through it → remove', async () => {
    if (!bed.password) throw new Error('the bed has no password account (not running as root); this test needs one');
    const rec = await keys.generate('bedkey');
    const pwConn = await connect({ password: bed.password, onlyGivenKeys: true });
    expect(pwConn.state).toBe('ready');

    // Before: the key does not log in.
    const before = await keyOnly('bedkey').then(() => 'logged in', (e) => e.code);
    expect(before).toBe('AUTH_FAILED');

    const report = await installAndVerify(pwConn, rec.publicKey, async () => {
      const c = await keyOnly('bedkey');
      const r = await c.exec('id -un');
      expect(r.stdout.trim()).toBe(bed.user);
      await c.close();
    });
    expect(report).toEqual({ added: true, keyLogin: { ok: true } });
    expect((await installPublicKey(pwConn, rec.publicKey)).added).toBe(false);

    const sshDir = path.join(bed.home, '.ssh');
    const ak = path.join(sshDir, 'authorized_keys');
    expect(fs.statSync(sshDir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(ak).mode & 0o777).toBe(0o600);
    const blob = rec.publicKey.split(' ')[1];
    expect(fs.readFileSync(ak, 'utf8').split('\n').filter((l) => l.includes(blob))).toEqual([rec.publicKey]);

    // Connect with the keychain key through a saved profile, and tunnel a real VNC display.
    await profiles.add({ name: 'bed', host: '127.0.0.1', port: bed.port, user: bed.user, auth: { kind: 'keychain-key', key: 'bedkey' } });
    const fromProfile = await savedProfileConnectOptions(await profiles.get('bed'), { keys, secrets });
    const conn = await connect({ ...fromProfile, onlyGivenKeys: true });
    const tm = new TunnelManager(conn);
    const t = await tm.openDisplay(xvnc.display);
    const sock = net.connect({ host: '127.0.0.1', port: t.localPort });
    const banner = await readUntil(sock, (b) => b.length >= 12);
    sock.destroy();
    expect(banner.subarray(0, 12).toString()).toBe('RFB 003.008\n');
    await tm.closeAll();
    await conn.close();

    expect(await removePublicKeyFromServer(pwConn, rec.publicKey)).toEqual({ removed: true });
    expect(await removePublicKeyFromServer(pwConn, rec.publicKey)).toEqual({ removed: false });
    expect(fs.readFileSync(ak, 'utf8')).not.toContain(blob);
    expect(await keyOnly('bedkey').then(() => 'logged in', (e) => e.code)).toBe('AUTH_FAILED');
    await pwConn.close();
  });

  it('the key-only login is specific: another keychain key is refused, and the report says so', async () => {
    if (!bed.password) throw new Error('the bed has no password account (not running as root); this test needs one');
    const installed = await keys.generate('right');
    await keys.generate('wrong');
    const pwConn = await connect({ password: bed.password, onlyGivenKeys: true });
    const report = await installAndVerify(pwConn, installed.publicKey, async () => {
      await (await keyOnly('wrong')).close();
    });
    expect(report.added).toBe(true);
    expect(report.keyLogin.ok).toBe(false);
    expect(report.keyLogin).toMatchObject({ code: 'AUTH_FAILED' });
    await removePublicKeyFromServer(pwConn, installed.publicKey);
    await pwConn.close();
  });

  it('a key sealed in the data dir (too large for a Windows-sized entry) logs in too', async () => {
    if (!bed.password) throw new Error('the bed has no password account (not running as root); this test needs one');
    const srcDir = makeTempDir('gd-inst-src-');
    const src = path.join(srcDir, 'id_rsa4k');
    execFileSync('ssh-keygen', ['-q', '-t', 'rsa', '-b', '4096', '-N', '', '-f', src]);
    const small = new KeyStore({ secrets: createKeytarStore({ service: secrets.service, maxSecretBytes: 2560 }), profiles, keysDir: path.join(dataDir, 'keys') });
    const rec = await small.importFile('sealed', src);
    fs.rmSync(srcDir, { recursive: true, force: true });
    expect(rec.storage).toBe('sealed-file');
    const pwConn = await connect({ password: bed.password, onlyGivenKeys: true });
    const report = await installAndVerify(pwConn, rec.publicKey, async () => {
      const c = await keyOnly('sealed');
      expect((await c.exec('id -un')).stdout.trim()).toBe(bed.user);
      await c.close();
    });
    expect(report).toEqual({ added: true, keyLogin: { ok: true } });
    await removePublicKeyFromServer(pwConn, rec.publicKey);
    await pwConn.close();
  });

  it('repairs what it finds: a missing final newline, a commented-out copy, a too-open ~/.ssh', async () => {
    if (!bed.password) throw new Error('the bed has no password account (not running as root); this test needs one');
    const rec = await keys.generate('staged');
    const conn = await connect({ password: bed.password, onlyGivenKeys: true });
    const home = (await conn.exec('mktemp -d')).stdout.trim();
    const s = withHome(conn, home);
    const other = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOtherKeyOtherKeyOtherKeyOtherKeyOtherKeyOt other@host';
    // 755/644 and no trailing newline, with the key present only as a comment.
    await conn.exec(`mkdir -m 755 ${shellQuote(home + '/.ssh')} && printf '%s\\n%s' ${shellQuote('# ' + rec.publicKey)} ${shellQuote(other)} > ${shellQuote(home + '/.ssh/authorized_keys')} && chmod 644 ${shellQuote(home + '/.ssh/authorized_keys')}`);
    expect(await installPublicKey(s, rec.publicKey)).toEqual({ added: true });
    expect(await installPublicKey(s, rec.publicKey)).toEqual({ added: false });
    const r = await conn.exec(`stat -c %a ${shellQuote(home + '/.ssh')} ${shellQuote(home + '/.ssh/authorized_keys')}; cat ${shellQuote(home + '/.ssh/authorized_keys')}`);
    const [dirMode, fileMode, ...lines] = r.stdout.split('\n');
    expect([dirMode, fileMode]).toEqual(['700', '600']);
    expect(lines).toEqual(['# ' + rec.publicKey, other, rec.publicKey, '']);
    // Removing takes our lines (the comment too) and keeps the rest, with 600.
    expect(await removePublicKeyFromServer(s, rec.publicKey)).toEqual({ removed: true });
    const after = await conn.exec(`stat -c %a ${shellQuote(home + '/.ssh/authorized_keys')}; cat ${shellQuote(home + '/.ssh/authorized_keys')}`);
    expect(after.stdout).toBe(`600\n${other}\n`);
    // A key line that is not a public key is refused before anything runs remotely.
    await expect(installPublicKey(s, "ssh-ed25519 AAAA'; rm -rf ~; '")).rejects.toThrow(/not an OpenSSH public key line/);
    await conn.exec(`rm -rf ${shellQuote(home)}`);
    await conn.close();
  });

  it('secrets scan: no private key or password in the data dir, logs or errors', async () => {
    const known = [bed.password ?? '', ...(await Promise.all(['staged', 'right', 'wrong', 'sealed'].map((n) => keys.privateKey(n))))];
    expect(errors.length).toBeGreaterThan(0);
    expect(scanForSecrets(known, [dataDir], [{ where: 'logs', text: logs.join('\n') }, { where: 'errors', text: errors.join('\n') }])).toEqual([]);
  });
});
