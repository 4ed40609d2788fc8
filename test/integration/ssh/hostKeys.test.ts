import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCode } from './expectCode';
import { cleanupAll, makeTempDir, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh } from '../../../src/core/ssh/connection';
import { fingerprintOfPublicKeyLine } from '../../bed/sshd';
import type { ConnectOptions, HostKeyPrompt } from '../../../src/core/ssh/types';

const BIN = path.resolve(__dirname, '../../../bin/gpu-desk.cjs');

let rsaBed: SshdBed;
let certBed: SshdBed;
let bed: SshdBed;

beforeAll(async () => {
  [rsaBed, certBed, bed] = await Promise.all([
    startSshd({ hostKeyType: 'rsa' }),
    startSshd({ hostCertificatePrincipals: ['127.0.0.1', 'localhost'] }),
    startSshd(),
  ]);
});
afterAll(cleanupAll);

/** A fresh ed25519 public key line ("ssh-ed25519 AAAA…") nobody's server has. */
function strangerKey(): string {
  const f = path.join(makeTempDir('gd-stranger-'), 'k');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', f]);
  return fs.readFileSync(f + '.pub', 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
}

/** Real OpenSSH client, nothing from ~/.ssh: proves a known_hosts file means what the test says. */
function opensshLogin(b: SshdBed, host: string, knownHosts: string, extra: string[] = []): { code: number; stderr: string } {
  try {
    execFileSync('ssh', [
      '-F', 'none', '-o', 'BatchMode=yes', '-o', `UserKnownHostsFile=${knownHosts}`, '-o', 'GlobalKnownHostsFile=/dev/null',
      '-o', 'IdentitiesOnly=yes', '-i', b.userKeyPath, '-p', String(b.port), ...extra, `${b.user}@${host}`, 'true',
    ], { stdio: ['ignore', 'ignore', 'pipe'], timeout: 30_000 });
    return { code: 0, stderr: '' };
  } catch (e) {
    return { code: (e as { status: number }).status ?? -1, stderr: String((e as { stderr: Buffer }).stderr ?? '') };
  }
}

async function waitForLog(file: string, re: RegExp, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = fs.readFileSync(file, 'utf8');
    if (re.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`${re} never appeared in ${file}: ${text.slice(-500)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function cliRun(args: string[], home: string): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, HOME: home, GPU_DESK_HOME: home, SSH_AUTH_SOCK: '' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    // A tunnel that (wrongly) comes up would run until killed: end it so the test fails instead of hanging.
    const timer = setTimeout(() => p.kill('SIGKILL'), 45_000);
    p.stderr.on('data', (d) => (stderr += d));
    p.on('exit', (code) => { clearTimeout(timer); resolve({ code: code ?? -1, stderr }); });
  });
}

describe('a known host offering another key type is not a new host (issue 16.1)', () => {
  it('only the known types are offered; the RSA-only server is refused naming the pinned fingerprint; nothing asked or saved', async () => {
    const pinned = strangerKey();
    const dir = makeTempDir('gd-kt-');
    const userKh = path.join(dir, 'known_hosts');
    fs.writeFileSync(userKh, `[127.0.0.1]:${rsaBed.port} ${pinned}\n`);
    const appKh = path.join(dir, 'app_known_hosts');
    const prompts: HostKeyPrompt[] = [];
    const opts = bedOptions(rsaBed, {
      userKnownHostsFiles: [userKh],
      appKnownHostsFile: appKh,
      callbacks: { onUnknownHostKey: async (p) => { prompts.push(p); return 'accept-save'; } },
    });
    const e = await expectCode(connectSsh(opts), 'HOST_KEY_CHANGED');
    expect(e.message).toContain(fingerprintOfPublicKeyLine(pinned));
    expect(e.message).toContain(`${userKh}:1`);
    expect(e.fix).toContain('ssh-keygen -R');
    // accept-new never applies to a host with a known key.
    await expectCode(connectSsh({ ...opts, strictHostKeyChecking: 'accept-new' }), 'HOST_KEY_CHANGED');
    expect(prompts).toEqual([]);
    expect(fs.existsSync(appKh)).toBe(false);
    // The server saw an offer of the pinned type alone, as OpenSSH would make it.
    await waitForLog(rsaBed.logPath, /no matching host key type found\. Their offer: ssh-ed25519(\s|$)/m);
  });

  it('gpu-desk tunnel --accept-new-host-key: one error line naming the known fingerprint, exit 1, nothing saved', async () => {
    const pinned = strangerKey();
    const home = makeTempDir('gd-kt-home-');
    const kh = path.join(home, 'app_kh');
    fs.writeFileSync(kh, `[127.0.0.1]:${rsaBed.port} ${pinned}\n`);
    const before = fs.readFileSync(kh, 'utf8');
    const r = await cliRun(['tunnel', `${rsaBed.user}@127.0.0.1`, '-p', String(rsaBed.port), '-i', rsaBed.userKeyPath, '-F', 'none',
      '--display', '1', '--known-hosts', kh, '--accept-new-host-key'], home);
    expect(r.code).toBe(1);
    const last = r.stderr.trim().split('\n').at(-1)!;
    expect(last).toMatch(/^error: /);
    expect(last).toContain(fingerprintOfPublicKeyLine(pinned));
    expect(fs.readFileSync(kh, 'utf8')).toBe(before);
  });
});

describe('hashed known_hosts lines match whatever the case (issue 16.2)', () => {
  it('a line hashed by real `ssh localhost` matches a destination typed as LOCALHOST', async () => {
    const kh = path.join(makeTempDir('gd-hash-'), 'known_hosts');
    const r = opensshLogin(bed, 'localhost', kh, ['-o', 'HashKnownHosts=yes', '-o', 'StrictHostKeyChecking=accept-new']);
    expect(r, r.stderr).toMatchObject({ code: 0 });
    expect(fs.readFileSync(kh, 'utf8')).toMatch(/^\|1\|\S+ ssh-ed25519 /);
    const c = await connectSsh(bedOptions(bed, { destination: `${bed.user}@LOCALHOST`, userKnownHostsFiles: [kh], callbacks: {} }));
    expect((await c.exec('echo ok')).stdout).toBe('ok\n');
    await c.close();
  });
});

describe('every known-hosts file OpenSSH reads, and StrictHostKeyChecking (issue 16.3)', () => {
  function configFor(b: SshdBed, lines: string[]): string {
    const cfg = path.join(makeTempDir('gd-khcfg-'), 'config');
    fs.writeFileSync(cfg, ['Host gpu', '  HostName 127.0.0.1', `  Port ${b.port}`, `  User ${b.user}`, `  IdentityFile ${b.userKeyPath}`, ...lines.map((l) => `  ${l}`), ''].join('\n'));
    return cfg;
  }
  /** Options that leave the known-hosts files to the config (no test overrides). */
  function viaConfig(cfg: string, extra: Partial<ConnectOptions> = {}): ConnectOptions {
    const { userKnownHostsFiles: _u, globalKnownHostsFiles: _g, ...rest } = bedOptions(bed, { destination: 'gpu', port: undefined, identityFiles: undefined, sshConfigPath: cfg, callbacks: {}, ...extra });
    return rest;
  }

  it('UserKnownHostsFile (two files, a %h token) and GlobalKnownHostsFile from the config are read', async () => {
    const dir = makeTempDir('gd-khfiles-');
    fs.writeFileSync(path.join(dir, 'global'), bed.knownHostsLine + '\n');
    const viaGlobal = configFor(bed, [`UserKnownHostsFile ${path.join(dir, 'none-here')}`, `GlobalKnownHostsFile ${path.join(dir, 'global')}`]);
    const c1 = await connectSsh(viaConfig(viaGlobal));
    await c1.close();
    fs.writeFileSync(path.join(dir, 'kh-127.0.0.1'), bed.knownHostsLine + '\n');
    const viaUser = configFor(bed, [`UserKnownHostsFile ${path.join(dir, 'empty')} ${path.join(dir, 'kh-%h')}`, 'GlobalKnownHostsFile none']);
    const c2 = await connectSsh(viaConfig(viaUser));
    await c2.close();
    // Without those lines the same host is unknown (nothing asks here, so it is refused).
    await expectCode(connectSsh(viaConfig(configFor(bed, [`UserKnownHostsFile ${path.join(dir, 'empty')}`, 'GlobalKnownHostsFile none']))), 'HOST_KEY_UNKNOWN');
  });

  it('StrictHostKeyChecking yes refuses an unknown host without asking', async () => {
    let asked = false;
    const cfg = configFor(bed, ['UserKnownHostsFile none', 'GlobalKnownHostsFile none', 'StrictHostKeyChecking yes']);
    const e = await expectCode(connectSsh(viaConfig(cfg, { callbacks: { onUnknownHostKey: async () => { asked = true; return 'accept-save'; } } })), 'HOST_KEY_UNKNOWN');
    expect(e.message).toContain('StrictHostKeyChecking is yes');
    expect(e.message).toContain(bed.hostKeyFingerprint);
    expect(asked).toBe(false);
  });

  it('StrictHostKeyChecking accept-new saves the key without asking and says so', async () => {
    const notices: string[] = [];
    const opts = viaConfig(configFor(bed, ['UserKnownHostsFile none', 'GlobalKnownHostsFile none', 'StrictHostKeyChecking accept-new']), { callbacks: { notice: (l) => notices.push(l) } });
    const c = await connectSsh(opts);
    await c.close();
    expect(fs.readFileSync(opts.appKnownHostsFile, 'utf8')).toBe(`${bed.knownHostsLine}\n`);
    expect(notices.join('\n')).toContain(bed.hostKeyFingerprint);
  });

  it('StrictHostKeyChecking no is treated as ask, with a notice saying why', async () => {
    const notices: string[] = [];
    const prompts: HostKeyPrompt[] = [];
    const cfg = configFor(bed, ['UserKnownHostsFile none', 'GlobalKnownHostsFile none', 'StrictHostKeyChecking no']);
    const c = await connectSsh(viaConfig(cfg, { callbacks: { notice: (l) => notices.push(l), onUnknownHostKey: async (p) => { prompts.push(p); return 'accept-once'; } } }));
    await c.close();
    expect(prompts.map((p) => p.fingerprint)).toEqual([bed.hostKeyFingerprint]);
    expect(notices.join('\n')).toMatch(/StrictHostKeyChecking no is treated as ask/);
    // Nobody to ask: refused, not connected.
    await expectCode(connectSsh(viaConfig(cfg)), 'HOST_KEY_UNKNOWN');
  });
});

describe('host certificates (issue 34): a @cert-authority line instead of a host key', () => {
  /** known_hosts with the given lines, and the app's own file (which a certificate never writes to). */
  function files(lines: string[]): { kh: string; appKh: string } {
    const dir = makeTempDir('gd-cert-');
    const kh = path.join(dir, 'known_hosts');
    fs.writeFileSync(kh, lines.join('\n') + '\n');
    return { kh, appKh: path.join(dir, 'app_known_hosts') };
  }
  function certOptions(b: SshdBed, kh: string, appKh: string, ask: () => void) {
    return bedOptions(b, { userKnownHostsFiles: [kh], appKnownHostsFile: appKh, callbacks: { onUnknownHostKey: async () => { ask(); return 'accept-save'; } } });
  }

  it('the CA signed the host\'s certificate for its name: connected with no question and nothing saved, as OpenSSH does', async () => {
    const { kh, appKh } = files([`@cert-authority [127.0.0.1]:${certBed.port} ${certBed.hostCaPublicKey}`]);
    const ssh = opensshLogin(certBed, '127.0.0.1', kh, ['-o', 'StrictHostKeyChecking=yes']);
    expect(ssh, ssh.stderr).toMatchObject({ code: 0 });
    let asked = false;
    const c = await connectSsh({ ...certOptions(certBed, kh, appKh, () => (asked = true)), strictHostKeyChecking: 'yes' });
    expect((await c.exec('echo certified')).stdout.trim()).toBe('certified');
    await c.close();
    expect(asked).toBe(false);
    expect(fs.existsSync(appKh)).toBe(false);
    // A wildcard @cert-authority line (how sites publish one CA for all their hosts) works too.
    const wild = files([`@cert-authority * ${certBed.hostCaPublicKey}`]);
    await (await connectSsh({ ...certOptions(certBed, wild.kh, wild.appKh, () => (asked = true)), strictHostKeyChecking: 'yes' })).close();
    expect(asked).toBe(false);
  });

  it('refused, naming why, and nothing asked or saved: another CA, a revoked CA, a certificate for another name, an expired one', async () => {
    const [otherName, expired] = await Promise.all([
      startSshd({ hostCertificatePrincipals: ['gpu7.example.org'] }),
      startSshd({ hostCertificatePrincipals: ['127.0.0.1'], hostCertificateValidity: '-2d:-1d' }),
    ]);
    const rogue = path.join(makeTempDir('gd-rogue-'), 'ca');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', rogue]);
    const rogueLine = fs.readFileSync(rogue + '.pub', 'utf8').trim().split(/\s+/).slice(0, 2).join(' ');
    const cases: [string, SshdBed, string[], RegExp][] = [
      ['another CA', certBed, [`@cert-authority * ${rogueLine}`], /signed by a CA \(ssh-ed25519 SHA256:\S+\) that no @cert-authority line for it trusts/],
      ['a revoked CA', certBed, [`@cert-authority * ${certBed.hostCaPublicKey}`, `@revoked * ${certBed.hostCaPublicKey}`], /its CA \(SHA256:\S+\) is marked @revoked in .*:2/],
      ['another name', otherName, [`@cert-authority * ${otherName.hostCaPublicKey}`], /it is for gpu7\.example\.org, not for 127\.0\.0\.1/],
      ['expired', expired, [`@cert-authority * ${expired.hostCaPublicKey}`], /the certificate presented by \S+ expired at \d{4}-\d\d-\d\d \d\d:\d\d UTC/],
    ];
    for (const [what, b, lines, why] of cases) {
      const { kh, appKh } = files(lines);
      let asked = false;
      const e = await expectCode(connectSsh(certOptions(b, kh, appKh, () => (asked = true))), 'HOST_KEY_REJECTED');
      expect(e.message, what).toMatch(why);
      expect(asked, what).toBe(false);
      expect(fs.existsSync(appKh), what).toBe(false);
      // OpenSSH refuses these too (with StrictHostKeyChecking=yes it cannot fall back to asking).
      expect(opensshLogin(b, '127.0.0.1', kh, ['-o', 'StrictHostKeyChecking=yes']).code, `OpenSSH, ${what}`).not.toBe(0);
    }
  });
});
