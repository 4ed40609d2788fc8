import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { createInterface } from 'node:readline';
import keytar from 'keytar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shellCommand } from '../../../src/core/remote/shellQuote';
import { cleanupAll, makeTempDir, readUntil, startSshd, startXvnc, type SshdBed, type XvncBed } from '../../bed';
import { clearService, createKeytarStore, requireKeyring, testService } from '../../helpers/profiles/keyring';
import { scanForSecrets } from '../../helpers/profiles/secretScan';

/** The real `gpu-desk` CLI in child processes, against the bed's sshd/Xvnc and a real keychain. */
const BIN = path.resolve(__dirname, '../../../bin/gpu-desk.cjs');
const service = testService('cli');
const secrets = createKeytarStore({ service });
let bed: SshdBed;
let xvnc: XvncBed;
let home: string;
let kh: string;
const transcript: string[] = [];
const privateKeys: string[] = [];

beforeAll(async () => {
  await requireKeyring(secrets);
  [bed, xvnc] = await Promise.all([startSshd(), startXvnc()]);
  home = makeTempDir('gd-keyscli-');
  kh = path.join(home, 'kh');
});
afterAll(async () => {
  await clearService(secrets);
  await cleanupAll();
  fs.rmSync(home, { recursive: true, force: true });
});

function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, GPU_DESK_HOME: path.join(home, 'data'), HOME: home, SSH_AUTH_SOCK: '', GPU_DESK_KEYCHAIN_SERVICE: service, ...extra };
}

interface Result { code: number; stdout: string; stderr: string }

function cli(args: string[], opts: { stdin?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Result> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args], { env: childEnv(opts.env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.stdin.end(opts.stdin ?? '');
    p.on('exit', (code) => {
      transcript.push(`$ gpu-desk ${args.join(' ')}\n${stdout}${stderr}`);
      resolve({ code: code ?? -1, stdout, stderr });
    });
  });
}

/** `gpu-desk tunnel PROFILE` (no password on stdin, no terminal): listening, the RFB banner, SIGINT → 0. */
async function tunnelThroughProfile(profile: string): Promise<void> {
  const t = spawn(process.execPath, [BIN, 'tunnel', profile, '--display', String(xvnc.display), '--json', '-F', 'none', '--known-hosts', kh], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let terr = '';
  t.stderr.on('data', (d) => (terr += d));
  const exit = new Promise<number>((r) => t.on('exit', (c) => r(c ?? -1)));
  const line = await createInterface({ input: t.stdout })[Symbol.asyncIterator]().next();
  expect(line.done, terr).toBe(false);
  const ev = JSON.parse(line.value);
  expect(ev.event).toBe('listening');
  const sock = net.connect({ host: '127.0.0.1', port: Number(String(ev.local).split(':')[1]) });
  expect((await readUntil(sock, (b) => b.length >= 12)).subarray(0, 12).toString()).toBe('RFB 003.008\n');
  sock.destroy();
  t.kill('SIGINT');
  expect(await exit, terr).toBe(0);
  transcript.push(terr);
}

const passphrase = 'cli import passphrase 77';

const json = (r: Result) => {
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
};
const lastErr = (r: Result) => r.stderr.trim().split('\n').pop() ?? '';
const profilesFile = () => path.join(home, 'data', 'profiles.json');
const sshArgs = () => ['-p', String(bed.port), '-F', 'none', '--no-agent', '--known-hosts', kh];

describe('gpu-desk profiles', () => {
  it('add / list / show / remove with --json, and bad input → exit 2, one error line, nothing saved', async () => {
    json(await cli(['profiles', 'add', 'lab', 'ana@gpu1.example:2200', '-J', 'bastion:2222', '--display', '3', '--quality', '8', '-L', '8888:localhost:8888', '--json']));
    const before = fs.readFileSync(profilesFile(), 'utf8');
    const bad: [string[], RegExp][] = [
      [['profiles', 'add', 'p0', 'h', '-p', '0'], /^error: -p 0 must be a whole number from 1 to 65535 — /],
      [['profiles', 'add', 'p1', ''], /^error: The destination is empty — /],
      [['profiles', 'add', 'bad name', 'h'], /^error: profile "bad name": name: must be 1–64 letters/],
      [['profiles', 'add', 'p2', 'h', '--quality', '10'], /--quality 10 must be a whole number from 0 to 9/],
      [['profiles', 'add', 'lab', 'h'], /^error: a profile named "lab" already exists — /],
      [['profiles', 'add', 'p3', 'h', '--encodings', 'tight,warp'], /unknown encoding "warp"/],
      [['profiles', 'add', 'p4', 'h', '--agent', '--key', 'x'], /choose one way to authenticate/],
    ];
    for (const [args, re] of bad) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(lastErr(r)).toMatch(re);
    }
    expect(fs.readFileSync(profilesFile(), 'utf8')).toBe(before);
    const list = json(await cli(['profiles', 'list', '--json']));
    expect(list.profiles).toHaveLength(1);
    expect(list.profiles[0]).toMatchObject({ name: 'lab', host: 'gpu1.example', port: 2200, user: 'ana', jumpHosts: ['bastion:2222'], display: { number: 3 }, viewer: { quality: 8 }, forwards: [{ kind: 'local', localPort: 8888, remoteHost: 'localhost', remotePort: 8888 }] });
    const human = await cli(['profiles', 'list']);
    expect(human.stdout).toMatch(/^NAME +DESTINATION +JUMP +AUTH +DISPLAY\nlab +ana@gpu1\.example:2200 +bastion:2222 +auto +:3\n$/);
    expect(json(await cli(['profiles', 'remove', 'lab', '--json']))).toEqual({ removed: 'lab', forgotPassword: false });
    expect((await cli(['profiles', 'remove', 'lab'])).stderr).toMatch(/^error: no profile named "lab" — see "gpu-desk profiles list"/);
  });

  it('import-ssh-config, export/import, and a broken ssh config or import file → clear error, nothing changed', async () => {
    const cfg = path.join(home, 'ssh_config');
    fs.writeFileSync(cfg, 'Host gpu-a gpu-b\n  HostName 10.1.1.1\n  User ops\nHost *\n  Port 2022\n');
    const r = json(await cli(['profiles', 'import-ssh-config', '--file', cfg, '--json']));
    expect(r).toMatchObject({ added: ['gpu-a', 'gpu-b'], skipped: [] });
    const before = fs.readFileSync(profilesFile(), 'utf8');
    fs.writeFileSync(cfg, 'Host gpu-c\n  HostName x\n  Port twenty\n');
    const broken = await cli(['profiles', 'import-ssh-config', '--file', cfg]);
    expect(broken.code).toBe(1);
    // File, line and key, never the value (issue 16.10: errors do not quote file contents).
    expect(lastErr(broken)).toMatch(/ssh_config line 3: the value of Port is not a number — fix line 3/);
    expect(lastErr(broken)).not.toContain('twenty');
    expect(fs.readFileSync(profilesFile(), 'utf8')).toBe(before);

    const exported = path.join(home, 'export.json');
    expect((await cli(['profiles', 'export', '--output', exported])).code).toBe(0);
    const badImport = path.join(home, 'bad-import.json');
    const doc = JSON.parse(fs.readFileSync(exported, 'utf8'));
    doc.profiles[0].name = 'gpu-z';
    doc.profiles[0].auth = { kind: 'smoke-signals' };
    fs.writeFileSync(badImport, JSON.stringify(doc));
    const bi = await cli(['profiles', 'import', badImport]);
    expect(bi.code).toBe(1);
    expect(lastErr(bi)).toMatch(/profile "gpu-z": auth\.kind: auth kind must be one of auto, agent, keychain-key, key-file, password/);
    expect(fs.readFileSync(profilesFile(), 'utf8')).toBe(before);
    expect(json(await cli(['profiles', 'import', exported, '--json']))).toMatchObject({ added: [], skipped: [{ name: 'gpu-a' }, { name: 'gpu-b' }] });
  });

  it('a corrupt profiles file: one notice line, the backup used, the broken file kept aside', async () => {
    json(await cli(['profiles', 'add', 'gpu-c', 'c.example', '--json'])); // the backup is now the version before this
    fs.writeFileSync(profilesFile(), '{"schemaVersion":1,"profiles":[{"name":"gpu-a","host":""');
    const r = await cli(['profiles', 'list', '--json']);
    expect(r.code).toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^gpu-desk: .*profiles\.json was unreadable \(not valid JSON.*\); kept it as profiles\.json\.corrupt-\d{8}T\d{6}Z and restored \d+ profile\(s\) from profiles\.json\.bak/);
    expect(JSON.parse(r.stdout).profiles.map((p: { name: string }) => p.name)).toEqual(['gpu-a', 'gpu-b']);
    expect(fs.readdirSync(path.join(home, 'data')).some((n) => n.startsWith('profiles.json.corrupt-'))).toBe(true);
  });
});

describe('gpu-desk tunnel PROFILE uses the profile\'s saved display', () => {
  it('no --display on the command line: the saved display :n is tunnelled', async () => {
    json(await cli(['profiles', 'add', 'saved-disp', `${bed.user}@127.0.0.1:${bed.port}`, '-i', bed.userKeyPath, '--display', String(xvnc.display), '--json']));
    fs.writeFileSync(kh, bed.knownHostsLine + '\n', { flag: 'a' });
    const t = spawn(process.execPath, [BIN, 'tunnel', 'saved-disp', '--json', '-F', 'none', '--no-agent', '--known-hosts', kh], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let terr = '';
    t.stderr.on('data', (d) => (terr += d));
    const exit = new Promise<number>((r) => t.on('exit', (c) => r(c ?? -1)));
    const line = await createInterface({ input: t.stdout })[Symbol.asyncIterator]().next();
    expect(line.done, terr).toBe(false);
    expect(JSON.parse(line.value)).toMatchObject({ event: 'listening', display: xvnc.display, remote: `127.0.0.1:${5900 + xvnc.display}` });
    t.kill('SIGINT');
    expect(await exit, terr).toBe(0);
    json(await cli(['profiles', 'remove', 'saved-disp', '--json']));
  });
});

describe('gpu-desk keys against the bed', () => {
  it('generate → install over a password from stdin → key login reported → profile name as <destination> for a tunnel', async () => {
    if (!bed.password) throw new Error('the bed has no password account (not running as root); this test needs one');
    const gen = json(await cli(['keys', 'generate', 'bedkey', '--comment', 'cli-test', '--json']));
    expect(gen.key).toMatchObject({ name: 'bedkey', type: 'ssh-ed25519', storage: 'keychain', comment: 'cli-test' });
    privateKeys.push((await keytar.getPassword(service, 'key:bedkey'))!);
    expect(json(await cli(['keys', 'list', '--json'])).keys.map((k: { name: string }) => k.name)).toEqual(['bedkey']);
    expect((await cli(['keys', 'public', 'bedkey'])).stdout.trim()).toBe(gen.key.publicKey);

    const install = ['keys', 'install', 'bedkey', `${bed.user}@127.0.0.1`, ...sshArgs(), '--accept-new-host-key', '--password-stdin', '--json'];
    const first = json(await cli(install, { stdin: bed.password + '\n' }));
    expect(first).toEqual({ key: 'bedkey', destination: `${bed.user}@127.0.0.1:${bed.port}`, added: true, keyLogin: { ok: true } });
    const again = json(await cli(install, { stdin: bed.password + '\n' }));
    expect(again).toMatchObject({ added: false, keyLogin: { ok: true } });
    const wrongPw = await cli(install, { stdin: 'not-the-password\n' });
    expect(wrongPw.code).toBe(1);
    expect(lastErr(wrongPw)).toMatch(/^error: .*(authenticat|denied|rejected)/i);

    // A profile that logs in with the keychain key, used as <destination> by `tunnel`.
    json(await cli(['profiles', 'add', 'bedp', `${bed.user}@127.0.0.1:${bed.port}`, '--key', 'bedkey', '--json']));
    await tunnelThroughProfile('bedp');
  });

  it('a remembered password: asked once, kept only in the keychain, used by `tunnel PROFILE`, forgotten on remove', async () => {
    if (!bed.password) throw new Error('the bed has no password account (not running as root); this test needs one');
    const add = json(await cli(['profiles', 'add', 'pwp', `${bed.user}@127.0.0.1:${bed.port}`, '--remember-password', '--password-stdin', '--json'], { stdin: bed.password + '\n' }));
    expect(add.profile.auth).toEqual({ kind: 'password', remember: true });
    expect(await keytar.getPassword(service, `password:${add.profile.id}`)).toBe(bed.password);
    expect(fs.readFileSync(profilesFile(), 'utf8')).not.toContain(bed.password);
    await tunnelThroughProfile('pwp');
    expect(json(await cli(['profiles', 'remove', 'pwp', '--json']))).toEqual({ removed: 'pwp', forgotPassword: true });
    expect(await keytar.getPassword(service, `password:${add.profile.id}`)).toBeNull();
  });

  it('keys import: an encrypted key file, passphrase from stdin, stored decrypted only in the keychain', async () => {
    const src = path.join(makeTempDir('gd-keysrc-'), 'id_enc');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', passphrase, '-C', 'from-file', '-f', src]);
    const wrong = await cli(['keys', 'import', 'fromfile', src, '--passphrase-stdin'], { stdin: 'not it\n' });
    expect(wrong.code).toBe(1);
    expect(lastErr(wrong)).toMatch(/^error: wrong passphrase for .*id_enc \(read from stdin\) — /);
    const noTty = await cli(['keys', 'import', 'fromfile', src]);
    expect(lastErr(noTty)).toMatch(/is encrypted and there is no terminal .* — pipe it in with --passphrase-stdin/);
    const r = json(await cli(['keys', 'import', 'fromfile', src, '--passphrase-stdin', '--json'], { stdin: passphrase + '\n' }));
    expect(r.key).toMatchObject({ name: 'fromfile', storage: 'keychain', source: 'imported', comment: 'from-file' });
    expect(r.key.publicKey.split(' ')[1]).toBe(fs.readFileSync(`${src}.pub`, 'utf8').split(' ')[1]);
    const stored = (await keytar.getPassword(service, 'key:fromfile'))!;
    privateKeys.push(stored);
    expect(stored).toMatch(/^-----BEGIN OPENSSH PRIVATE KEY-----/);
    expect(stored).not.toBe(fs.readFileSync(src, 'utf8'));
    fs.rmSync(path.dirname(src), { recursive: true, force: true });
  });

  it('keys install reads the password from the terminal (a real pty), hidden', async () => {
    if (!bed.password) throw new Error('the bed has no password account (not running as root); this test needs one');
    json(await cli(['keys', 'generate', 'ttykey', '--json']));
    privateKeys.push((await keytar.getPassword(service, 'key:ttykey'))!);
    const cmd = shellCommand([process.execPath, BIN, 'keys', 'install', 'ttykey', `${bed.user}@127.0.0.1`, ...sshArgs()]);
    const p = spawn('script', ['-qfec', cmd, '/dev/null'], { env: childEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let sent = false;
    p.stdout.on('data', (d) => {
      out += d;
      // sshd asks through PAM keyboard-interactive ("Password: ") before plain password auth.
      if (!sent && /[Pp]assword: $/.test(out)) {
        sent = true;
        p.stdin.write(bed.password + '\r');
      }
    });
    const code = await new Promise<number>((r) => p.on('exit', (c) => r(c ?? -1)));
    transcript.push(out);
    expect(out).toMatch(/^(Password: |.*'s password: )/m);
    expect(code, out).toBe(0);
    expect(out).toMatch(/Added key "ttykey" to ~\/\.ssh\/authorized_keys on /);
    expect(out).toMatch(/Key login works/);
    expect(out).not.toContain(bed.password);
    // Without a terminal and without --password-stdin there is nobody to ask.
    const none = await cli(['keys', 'install', 'ttykey', `${bed.user}@127.0.0.1`, ...sshArgs(), '-i', '/dev/null']);
    expect(none.code).not.toBe(0);
  });

  it('keys remove --from a profile: off the server, out of the keychain, the profile falls back to auto', async () => {
    const ak = path.join(bed.home, '.ssh', 'authorized_keys');
    const blob = (await cli(['keys', 'public', 'bedkey'])).stdout.split(' ')[1];
    expect(fs.readFileSync(ak, 'utf8')).toContain(blob);
    const refused = await cli(['keys', 'remove', 'bedkey']);
    expect(lastErr(refused)).toMatch(/used by profile\(s\) bedp — .*--force/);
    const r = json(await cli(['keys', 'remove', 'bedkey', '--from', 'bedp', ...sshArgs().slice(2), '--force', '--json']));
    expect(r).toEqual({ removed: 'bedkey', profilesChanged: ['bedp'], server: { destination: `${bed.user}@127.0.0.1:${bed.port}`, removed: true } });
    expect(fs.readFileSync(ak, 'utf8')).not.toContain(blob);
    expect(await keytar.getPassword(service, 'key:bedkey')).toBeNull();
    const ttyBlob = (await cli(['keys', 'public', 'ttykey'])).stdout.split(' ')[1];
    // Clean the shared bed account: the tty key off the server too.
    json(await cli(['keys', 'remove', 'ttykey', '--from', `${bed.user}@127.0.0.1`, ...sshArgs(), '--password-stdin', '--json'], { stdin: bed.password ?? '' }));
    expect(fs.readFileSync(ak, 'utf8')).not.toContain(ttyBlob);
  });

  it('no Secret Service: keys generate fails with the fix and writes nothing', async () => {
    const r = await cli(['keys', 'generate', 'nokc'], { env: { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' } });
    expect(r.code).toBe(1);
    expect(lastErr(r)).toMatch(/^error: no OS keychain is available .* — start a Secret Service .* gpu-desk never stores secrets in plain files$/);
    expect(json(await cli(['keys', 'list', '--json'])).keys.map((k: { name: string }) => k.name)).not.toContain('nokc');
    expect(fs.existsSync(path.join(home, 'data', 'keys'))).toBe(false);
  });

  it('secrets scan: no private key or password in the data dir, CLI output or the sshd log', () => {
    expect(privateKeys).toHaveLength(3);
    const hits = scanForSecrets([...privateKeys, bed.password ?? '', passphrase], [path.join(home, 'data')], [
      { where: 'cli transcript', text: transcript.join('\n') },
      { where: 'sshd log', text: fs.readFileSync(bed.logPath, 'utf8') },
    ]);
    expect(hits).toEqual([]);
  });
});

describe('gpu-desk keys certificate', () => {
  it('a keychain key with its site certificate attached logs in where only certificates are accepted; keys list shows principals and expiry; another key\'s certificate is refused; --none detaches', async () => {
    const certBed = await startSshd({ userCa: true, authorizeUserKey: false });
    const dir = makeTempDir('gd-kcert-');
    const keyFile = path.join(dir, 'id_ed25519');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyFile]);
    const cert = certBed.signUserKey(`${keyFile}.pub`, { principals: [certBed.user], validity: '-5m:+1h' });
    json(await cli(['keys', 'import', 'sitekey', keyFile, '--json']));
    json(await cli(['profiles', 'add', 'certsite', `${certBed.user}@127.0.0.1:${certBed.port}`, '--key', 'sitekey', '--json']));
    const login = ['sessions', 'certsite', 'list', '-F', 'none', '--no-agent', '--known-hosts', kh, '--accept-new-host-key'];
    const refused = await cli(login);
    expect(refused.code).not.toBe(0);
    expect(lastErr(refused)).toMatch(/^error: Authentication to .* failed/);

    const attached = json(await cli(['keys', 'certificate', 'sitekey', cert, '--json']));
    expect(attached.certificate).toMatchObject({ file: cert, principals: [certBed.user], problem: null });
    const until = /Valid: from \S+ to (\S+)/.exec(execFileSync('ssh-keygen', ['-L', '-f', cert]).toString())![1];
    expect(attached.certificate.validBefore).toBe(new Date(until).toISOString());
    const listed = (await cli(['keys', 'list'])).stdout;
    expect(listed).toContain(`    certificate ${cert}: principals ${certBed.user}, valid until ${new Date(until).toISOString().slice(0, 16).replace('T', ' ')} UTC`);
    const ok = await cli(login);
    expect(ok.code, ok.stderr).toBe(0);
    expect(fs.readFileSync(certBed.logPath, 'utf8')).toMatch(/Accepted publickey for \S+ .*ED25519-CERT/);

    // Another key's certificate: refused with the reason, the attached one kept.
    const other = path.join(dir, 'other');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', other]);
    const wrong = await cli(['keys', 'certificate', 'sitekey', certBed.signUserKey(`${other}.pub`, { principals: [certBed.user] })]);
    expect(wrong.code).not.toBe(0);
    expect(lastErr(wrong)).toMatch(/certifies another key than "sitekey"/);
    expect(json(await cli(['keys', 'list', '--json'])).keys.find((k: { name: string }) => k.name === 'sitekey').certificateFile).toBe(cert);

    json(await cli(['keys', 'certificate', 'sitekey', '--none', '--json']));
    expect((await cli(['keys', 'list'])).stdout).not.toContain('certificate');
    expect((await cli(login)).code).not.toBe(0);
    json(await cli(['profiles', 'remove', 'certsite', '--json']));
    json(await cli(['keys', 'remove', 'sitekey', '--json']));
  });
});
