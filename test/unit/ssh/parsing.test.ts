import { createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkHostKey, entryMatchesHost, knownHostsName, parseKnownHosts } from '../../../src/core/ssh/knownHosts';
import os from 'node:os';
import { hostConfig, parseSshConfig } from '../../../src/core/ssh/sshConfig';
import { resolveTarget } from '../../../src/core/ssh/resolve';
import { hostKeyAlgorithms } from '../../../src/core/ssh/connection';
import { parseDestination } from '../../../src/core/ssh/destination';
import { parseForwardSpec, displayToPort } from '../../../src/core/tunnels/forwardSpec';
import { sha256Fingerprint, keyTypeOfBlob } from '../../../src/core/ssh/fingerprint';

function blob(type: string, body: string): Buffer {
  const t = Buffer.from(type);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(t.length);
  return Buffer.concat([len, t, Buffer.from(body)]);
}
const K1 = blob('ssh-ed25519', 'key-one');
const K2 = blob('ssh-ed25519', 'key-two');
const R1 = blob('ssh-rsa', 'rsa-one');

function hashed(name: string): string {
  const salt = randomBytes(20);
  return `|1|${salt.toString('base64')}|${createHmac('sha1', salt).update(name).digest('base64')}`;
}

describe('known_hosts', () => {
  const text = [
    '# comment',
    `gpu1,10.0.0.5 ssh-ed25519 ${K1.toString('base64')}`,
    `[gpu2]:2222 ssh-ed25519 ${K1.toString('base64')}`,
    `${hashed('[gpu3]:2200')} ssh-ed25519 ${K2.toString('base64')}`,
    `*.lab,!bad.lab ssh-rsa ${R1.toString('base64')}`,
    `@revoked * ssh-ed25519 ${blob('ssh-ed25519', 'stolen').toString('base64')}`,
    '@cert-authority *.corp ssh-ed25519 AAAA',
    'garbage line',
  ].join('\n');
  const entries = parseKnownHosts(text, 'kh');

  it('parses plain, [host]:port, hashed and marked lines; skips comments and junk', () => {
    expect(entries.map((e) => e.marker)).toEqual([null, null, null, null, '@revoked', '@cert-authority']);
    expect(entries[0].line).toBe(2);
  });
  it('names: host on 22, [host]:port otherwise', () => {
    expect(knownHostsName('h', 22)).toBe('h');
    expect(knownHostsName('h', 2222)).toBe('[h]:2222');
  });
  it('matches plain lists, ports, hashes, globs and negations', () => {
    expect(entryMatchesHost(entries[0], '10.0.0.5')).toBe(true);
    expect(entryMatchesHost(entries[1], '[gpu2]:2222')).toBe(true);
    expect(entryMatchesHost(entries[1], 'gpu2')).toBe(false);
    expect(entryMatchesHost(entries[2], '[gpu3]:2200')).toBe(true);
    expect(entryMatchesHost(entries[2], '[gpu3]:22')).toBe(false);
    expect(entryMatchesHost(entries[3], 'a.lab')).toBe(true);
    expect(entryMatchesHost(entries[3], 'bad.lab')).toBe(false);
  });
  it('known / changed / unknown / revoked, like OpenSSH', () => {
    expect(checkHostKey(entries, ['gpu1'], 'ssh-ed25519', K1).status).toBe('known');
    const ch = checkHostKey(entries, ['gpu1'], 'ssh-ed25519', K2);
    expect(ch).toMatchObject({ status: 'changed', expected: [{ fingerprint: sha256Fingerprint(K1), file: 'kh', line: 2 }] });
    expect(checkHostKey(entries, ['a.lab'], 'rsa-sha2-512', blob('ssh-rsa', 'other')).status).toBe('changed');
    expect(checkHostKey(entries, ['gpu1'], 'ecdsa-sha2-nistp256', blob('ecdsa-sha2-nistp256', 'x'))).toEqual({ status: 'unknown', otherKeys: [{ keyType: 'ssh-ed25519', fingerprint: sha256Fingerprint(K1), file: 'kh', line: 2 }], certAuthorities: [] });
    expect(checkHostKey(entries, ['new-host'], 'ssh-ed25519', K1).status).toBe('unknown');
    expect(checkHostKey(entries, ['any'], 'ssh-ed25519', blob('ssh-ed25519', 'stolen')).status).toBe('revoked');
  });
  it('hashed lines match the host name in any case, as OpenSSH lower-cases it before hashing (issue 16.2)', () => {
    const [e] = parseKnownHosts(`${hashed('gpu01.lab')} ssh-ed25519 ${K1.toString('base64')}`);
    expect(entryMatchesHost(e, 'GPU01.lab')).toBe(true);
    expect(checkHostKey([e], ['Gpu01.Lab'], 'ssh-ed25519', K1).status).toBe('known');
  });
  it('a host with known keys is offered only those types (issue 16.1)', () => {
    expect(hostKeyAlgorithms(['ssh-ed25519'])).toEqual(['ssh-ed25519']);
    expect(hostKeyAlgorithms(['ssh-rsa', 'ecdsa-sha2-nistp256'])).toEqual(['rsa-sha2-512', 'rsa-sha2-256', 'ecdsa-sha2-nistp256']);
    expect(hostKeyAlgorithms(['ssh-dss'])).toEqual([]);
    // OpenSSH ≥ 8.8: no ssh-rsa (SHA-1) signatures unless HostKeyAlgorithms adds them (issue 34 low 9).
    expect(hostKeyAlgorithms([])).not.toContain('ssh-rsa');
    expect(hostKeyAlgorithms([])).toContain('rsa-sha2-256');
    expect(hostKeyAlgorithms([])).toContain('ssh-ed25519');
  });
  it('@cert-authority lines for the host are reported with an unknown key, never as plain keys', () => {
    const ca = parseKnownHosts(`@cert-authority *.corp ssh-ed25519 ${K2.toString('base64')}`, 'kh');
    expect(checkHostKey(ca, ['a.corp'], 'ssh-ed25519', K1)).toEqual({ status: 'unknown', otherKeys: [], certAuthorities: [{ keyType: 'ssh-ed25519', fingerprint: sha256Fingerprint(K2), file: 'kh', line: 1 }] });
  });
  it('fingerprints are OpenSSH SHA256 without padding; the key type comes from the blob', () => {
    expect(sha256Fingerprint(K1)).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
    expect(keyTypeOfBlob(K1)).toBe('ssh-ed25519');
  });
});

describe('~/.ssh/config', () => {
  const cfg = parseSshConfig([
    'Host gpu gpu-alias',
    '  HostName 10.1.2.3',
    '  User alice',
    '  Port 2222',
    '  IdentityFile ~/.ssh/id_gpu',
    '  IdentityFile ~/.ssh/id_%h',
    '  ProxyJump bastion1,bob@bastion2:2200',
    '  ServerAliveInterval 10',
    '  ServerAliveCountMax 4',
    'Host *',
    '  User fallback',
    '  ServerAliveInterval 99',
  ].join('\n'));
  it('first value wins; IdentityFile accumulates; ProxyJump chains split', () => {
    const hc = hostConfig(cfg, 'gpu-alias');
    expect(hc).toMatchObject({
      hostName: '10.1.2.3', user: 'alice', port: 2222,
      identityFiles: ['~/.ssh/id_gpu', '~/.ssh/id_%h'],
      proxyJump: ['bastion1', 'bob@bastion2:2200'],
      serverAliveIntervalS: 10, serverAliveCountMax: 4,
    });
    expect(hostConfig(cfg, 'other')).toMatchObject({ user: 'fallback', serverAliveIntervalS: 99 });
  });
  it('UserKnownHostsFile, GlobalKnownHostsFile (none) and StrictHostKeyChecking (off = no) (issue 16.3)', () => {
    const c = parseSshConfig([
      'Host a', '  UserKnownHostsFile ~/kh1 /etc/kh-%h', '  GlobalKnownHostsFile none', '  StrictHostKeyChecking accept-new',
      'Host b', '  StrictHostKeyChecking off',
    ].join('\n'));
    expect(hostConfig(c, 'a')).toMatchObject({ userKnownHostsFiles: ['~/kh1', '/etc/kh-%h'], globalKnownHostsFiles: [], strictHostKeyChecking: 'accept-new' });
    expect(hostConfig(c, 'b')).toMatchObject({ strictHostKeyChecking: 'no' });
    const hop = resolveTarget({ destination: 'a', port: 2200, appKnownHostsFile: '/x' }, c).hops[0];
    expect(hop.knownHostsFiles).toEqual({ user: [`${os.homedir()}/kh1`, '/etc/kh-a'], global: [] });
    expect(hop.strictHostKeyChecking).toBe('accept-new');
    // The error names the file, line and key but never quotes the value (issue 16.10: no file contents in errors).
    expect(() => parseSshConfig('Host a\n  StrictHostKeyChecking maybe\n', 'cfg')).toThrow(/^cfg line 2: the value of StrictHostKeyChecking is not yes, no, ask or accept-new/);
    expect(() => parseSshConfig('Host a\n  StrictHostKeyChecking maybe\n', 'cfg')).not.toThrow(/maybe/);
  });
  it('without those lines, the files OpenSSH reads by default, system ones included', () => {
    const hop = resolveTarget({ destination: 'h', appKnownHostsFile: '/x' }, null).hops[0];
    expect(hop.knownHostsFiles).toEqual({
      user: [`${os.homedir()}/.ssh/known_hosts`, `${os.homedir()}/.ssh/known_hosts2`],
      global: ['/etc/ssh/ssh_known_hosts', '/etc/ssh/ssh_known_hosts2'],
    });
    expect(hop.strictHostKeyChecking).toBeUndefined();
    // The command line wins over the config.
    expect(resolveTarget({ destination: 'h', appKnownHostsFile: '/x', strictHostKeyChecking: 'yes', userKnownHostsFiles: ['/u'] }, null).hops[0]).toMatchObject({ strictHostKeyChecking: 'yes', knownHostsFiles: { user: ['/u'] } });
  });
  it('errors name the line', () => {
    expect(() => parseSshConfig('Host a\n  Port abc\n', 'cfg')).toThrow(/cfg line 2/);
    expect(() => parseSshConfig('Host\n', 'cfg')).toThrow(/cfg line 1/);
    expect(() => parseSshConfig('Host a\n  ===\n', 'cfg')).toThrow(/line 2/);
  });
});

describe('destinations and forwards', () => {
  it('destinations', () => {
    expect(parseDestination('gpu')).toEqual({ host: 'gpu', user: undefined, port: undefined });
    expect(parseDestination('me@gpu')).toMatchObject({ user: 'me', host: 'gpu' });
    expect(parseDestination('ssh://me@gpu:2222')).toMatchObject({ user: 'me', host: 'gpu', port: 2222 });
    expect(parseDestination('[::1]:2222', { allowPort: true })).toMatchObject({ host: '::1', port: 2222 });
    expect(parseDestination('me@j:2200', { allowPort: true })).toMatchObject({ host: 'j', port: 2200 });
    for (const bad of ['', '@h', 'h;rm', '-oProxyCommand=x', 'a b']) expect(() => parseDestination(bad)).toThrow(/destination|empty/);
  });
  it('-L specs and displays', () => {
    expect(parseForwardSpec('8888:localhost:8888')).toEqual({ localPort: 8888, remoteHost: 'localhost', remotePort: 8888 });
    expect(parseForwardSpec('127.0.0.1:0:[::1]:6006')).toEqual({ localPort: 0, remoteHost: '::1', remotePort: 6006 });
    expect(() => parseForwardSpec('0.0.0.0:1:h:2')).toThrow(/127\.0\.0\.1/);
    expect(() => parseForwardSpec('1:h:70000')).toThrow(/out of range/);
    expect(() => parseForwardSpec('x:h:1')).toThrow(/Bad -L/);
    expect(displayToPort(0)).toBe(5900);
    expect(displayToPort(99)).toBe(5999);
    expect(() => displayToPort(-1)).toThrow(/out of range/);
  });
});

describe('ssh-agent discovery', async () => {
  const { resolveAgent } = await import('../../../src/core/ssh/auth');
  const sys = (platform: NodeJS.Platform, env: NodeJS.ProcessEnv, pipes: string[] = []) => ({ platform, env, exists: (p: string) => pipes.includes(p) });
  it('SSH_AUTH_SOCK, the Windows OpenSSH pipe, Pageant, IdentityAgent and off', () => {
    expect(resolveAgent(undefined, undefined, sys('linux', { SSH_AUTH_SOCK: '/tmp/a.sock' }))).toBe('/tmp/a.sock');
    expect(resolveAgent(undefined, undefined, sys('linux', {}))).toBeUndefined();
    expect(resolveAgent(undefined, undefined, sys('win32', {}, ['\\\\.\\pipe\\openssh-ssh-agent']))).toBe('\\\\.\\pipe\\openssh-ssh-agent');
    expect(resolveAgent(undefined, undefined, sys('win32', {}))).toBe('pageant');
    expect(resolveAgent(undefined, 'none', sys('linux', { SSH_AUTH_SOCK: '/tmp/a.sock' }))).toBeUndefined();
    expect(resolveAgent(undefined, '/run/agent', sys('linux', { SSH_AUTH_SOCK: '/tmp/a.sock' }))).toBe('/run/agent');
    expect(resolveAgent(false, undefined, sys('linux', { SSH_AUTH_SOCK: '/tmp/a.sock' }))).toBeUndefined();
    expect(resolveAgent('pageant', undefined, sys('linux', {}))).toBe('pageant');
  });
});
