import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCode } from './expectCode';
import { cleanupAll, makeTempDir, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh } from '../../../src/core/ssh/connection';
import { readCertificateFile } from '../../../src/core/ssh/certificate';
import type { PromptRequest } from '../../../src/shared/models';
import { registerCleanup } from '../../bed';
import { memorySecrets } from '../../unit/app/services/fakes';
import { until } from '../../helpers/until';
import { connectionsCore } from '../../helpers/appCore';

/**
 * OpenSSH user certificates against the real sshd: the bed trusts a user CA (TrustedUserCAKeys) and
 * its authorized_keys is empty, so a certificate is the only way in — as at a site whose sshproxy or
 * step-ca signs a 24-hour certificate for each user.
 */
const BIN = path.resolve(__dirname, '../../../bin/gpu-desk.cjs');

let bed: SshdBed;

beforeAll(async () => {
  bed = await startSshd({ userCa: true, authorizeUserKey: false });
});
afterAll(cleanupAll);

/** A fresh key pair in a folder of its own (its certificate goes beside it, as ssh-keygen -s writes it). */
function freshKey(type: 'ed25519' | 'ecdsa' | 'rsa' = 'ed25519'): string {
  const f = path.join(makeTempDir('gd-certkey-'), `id_${type}`);
  execFileSync('ssh-keygen', ['-q', '-t', type, ...(type === 'rsa' ? ['-b', '2048'] : []), '-N', '', '-C', 'cert-test', '-f', f]);
  return f;
}

async function login(key: string, extra: Parameters<typeof bedOptions>[1] = {}): Promise<string> {
  const conn = await connectSsh(bedOptions(bed, { identityFiles: [key], onlyGivenKeys: true, ...extra }));
  try {
    return (await conn.exec('id -un')).stdout.trim();
  } finally {
    await conn.close();
  }
}

function cli(args: string[], home: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, HOME: home, GPU_DESK_HOME: home, SSH_AUTH_SOCK: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('close', (code) => resolve({ code: code ?? -1, stdout: out, stderr: err }));
  });
}

describe('user certificates (TrustedUserCAKeys, empty authorized_keys)', () => {
  it('the key alone is refused; with KEY-cert.pub beside it (ed25519, ECDSA and RSA keys) it logs in', async () => {
    const key = freshKey();
    await expectCode(login(key), 'AUTH_FAILED');
    bed.signUserKey(`${key}.pub`, { principals: [bed.user], validity: '-5m:+1h' });
    expect(await login(key)).toBe(bed.user);
    for (const type of ['ecdsa', 'rsa'] as const) {
      const k = freshKey(type);
      bed.signUserKey(`${k}.pub`, { principals: [bed.user], validity: '-5m:+1h' });
      expect(await login(k), `${type} key with its certificate`).toBe(bed.user);
    }
    // sshd's own log says it took the certificate, signed by the bed's CA.
    expect(fs.readFileSync(bed.logPath, 'utf8')).toMatch(/Accepted publickey for \S+ .*ED25519-CERT/);
  });

  it('CertificateFile in ~/.ssh/config names a certificate kept elsewhere', async () => {
    const key = freshKey();
    const cert = bed.signUserKey(`${key}.pub`, { principals: [bed.user], validity: '-5m:+1h' });
    const elsewhere = path.join(makeTempDir('gd-certs-'), 'site.cert');
    fs.renameSync(cert, elsewhere);
    await expectCode(login(key), 'AUTH_FAILED');
    const cfg = path.join(makeTempDir('gd-certcfg-'), 'config');
    fs.writeFileSync(cfg, `Host 127.0.0.1\n  CertificateFile ${elsewhere}\n`);
    expect(await login(key, { sshConfigPath: cfg })).toBe(bed.user);
  });

  it('an expired certificate is one line naming when it expired; one for another principal says so after the server refused it', async () => {
    const key = freshKey();
    const cert = bed.signUserKey(`${key}.pub`, { principals: [bed.user], validity: '-2d:-1d' });
    const expiry = new Date(readCertificateFile(cert)!.validBefore!).toISOString().slice(0, 16).replace('T', ' ');
    const e = await expectCode(login(key), 'AUTH_FAILED');
    expect(e.message).toContain(`the certificate ${cert} expired at ${expiry} UTC`);
    expect(e.fix).toMatch(/new certificate/);

    const other = freshKey();
    bed.signUserKey(`${other}.pub`, { principals: ['somebody-else'], validity: '-5m:+1h' });
    const e2 = await expectCode(login(other), 'AUTH_FAILED');
    expect(e2.message).toContain(`is for somebody-else, not for ${bed.user}`);
  });

  it('a certificate from a CA the server does not trust is refused', async () => {
    const key = freshKey();
    const rogue = path.join(makeTempDir('gd-rogue-ca-'), 'ca');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', rogue]);
    bed.signUserKey(`${key}.pub`, { principals: [bed.user], validity: '-5m:+1h', ca: rogue });
    await expectCode(login(key), 'AUTH_FAILED');
  });

  it('the gpu-desk CLI logs in with -i KEY and the certificate beside it', async () => {
    const key = freshKey();
    bed.signUserKey(`${key}.pub`, { principals: [bed.user], validity: '-5m:+1h' });
    const home = makeTempDir('gd-cert-cli-');
    const r = await cli(['sessions', `${bed.user}@127.0.0.1`, 'list', '-p', String(bed.port), '-i', key, '-F', 'none', '--no-agent', '--accept-new-host-key', '--known-hosts', path.join(home, 'kh')], home);
    expect(r.code, r.stderr).toBe(0);
  });

  it('host and user certificate together: the CLI trusts the host through @cert-authority in ~/.ssh/known_hosts and logs in with the user certificate, asking nothing', async () => {
    const both = await startSshd({ userCa: true, authorizeUserKey: false, hostCertificatePrincipals: ['127.0.0.1'] });
    const key = freshKey();
    both.signUserKey(`${key}.pub`, { principals: [both.user], validity: '-5m:+1h' });
    const home = makeTempDir('gd-cert-both-');
    fs.mkdirSync(path.join(home, '.ssh'), { mode: 0o700 });
    fs.writeFileSync(path.join(home, '.ssh', 'known_hosts'), `@cert-authority 127.0.0.1,[127.0.0.1]:* ${both.hostCaPublicKey}\n`);
    const appKh = path.join(home, 'app_known_hosts');
    const r = await cli(['sessions', `${both.user}@127.0.0.1`, 'list', '-p', String(both.port), '-i', key, '-F', 'none', '--no-agent', '--known-hosts', appKh], home);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/host key/i);
    expect(fs.existsSync(appKh)).toBe(false);
    expect(fs.readFileSync(both.logPath, 'utf8')).toMatch(/Accepted publickey for \S+ .*ED25519-CERT/);
  });

  it('ssh-agent: the certificate ssh-add added with its key logs in with no key file; PubkeyAcceptedAlgorithms keeps an agent key of another type from being offered', async () => {
    const key = freshKey('ecdsa');
    bed.signUserKey(`${key}.pub`, { principals: [bed.user], validity: '-5m:+1h' });
    const sock = path.join(makeTempDir('gd-agent-'), 'agent.sock');
    const agent = spawn('ssh-agent', ['-D', '-a', sock], { stdio: 'ignore' });
    registerCleanup(() => { agent.kill(); });
    await until(async () => fs.existsSync(sock), (x) => x, 'ssh-agent listening');
    // ssh-add adds KEY and, beside it, KEY-cert.pub (as ssh users load their site's certificate).
    execFileSync('ssh-add', [key], { env: { ...process.env, SSH_AUTH_SOCK: sock }, stdio: 'pipe' });
    expect(execFileSync('ssh-add', ['-l'], { env: { ...process.env, SSH_AUTH_SOCK: sock } }).toString()).toMatch(/ECDSA-CERT/);
    const viaAgent = { identityFiles: [], agent: sock };
    const conn = await connectSsh(bedOptions(bed, viaAgent));
    expect((await conn.exec('id -un')).stdout.trim()).toBe(bed.user);
    await conn.close();
    // Only ed25519 accepted: neither the ECDSA key nor its certificate is offered, so sshd never sees them.
    const cfg = path.join(makeTempDir('gd-agentcfg-'), 'config');
    fs.writeFileSync(cfg, 'Host *\n  PubkeyAcceptedAlgorithms ssh-ed25519\n');
    const before = fs.readFileSync(bed.logPath, 'utf8').length;
    const e = await expectCode(connectSsh(bedOptions(bed, { ...viaAgent, sshConfigPath: cfg })), 'AUTH_FAILED');
    expect(e.message).toContain('not in PubkeyAcceptedAlgorithms');
    expect(fs.readFileSync(bed.logPath, 'utf8').slice(before)).not.toMatch(/ECDSA/);
  });

  it('the app: a key-file profile whose key has its certificate beside it, on a host known through @cert-authority, connects asking nothing', async () => {
    const both = await startSshd({ userCa: true, authorizeUserKey: false, hostCertificatePrincipals: ['127.0.0.1'] });
    const key = freshKey();
    both.signUserKey(`${key}.pub`, { principals: [both.user], validity: '-5m:+1h' });
    const kh = path.join(makeTempDir('gd-cert-app-'), 'ssh_known_hosts');
    fs.writeFileSync(kh, `@cert-authority * ${both.hostCaPublicKey}\n`);
    const asked: PromptRequest['kind'][] = [];
    const { core, dir } = connectionsCore({
      emit: (event, payload) => {
        if (event !== 'prompt') return;
        const q = payload as PromptRequest;
        asked.push(q.kind);
        if (q.kind === 'hostKey') void core.handlers()['prompts.answer']({ promptId: q.promptId, answer: { kind: 'hostKey', decision: 'accept-once' } });
      },
      secrets: memorySecrets(),
      userKnownHostsFiles: [kh],
    });
    const h = core.handlers();
    const p = await h['profiles.save']({
      profile: {
        name: 'certified', host: '127.0.0.1', port: both.port, user: both.user, jumpHosts: [], auth: { kind: 'key-file', path: key },
        display: {}, viewer: { quality: 6, compression: 2, encodings: ['tight'], scaling: 'fit', adaptive: false }, forwards: [],
      },
    });
    const c = await h['connections.open']({ profileId: p.id });
    expect(c.state).toBe('ready');
    expect(asked).toEqual([]);
    expect(fs.existsSync(path.join(dir, 'known_hosts'))).toBe(false);
    await h['connections.close']({ connectionId: c.id });
  });
});
