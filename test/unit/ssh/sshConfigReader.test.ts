import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GpuDeskError } from '../../../src/core/errors';
import { resolveTarget } from '../../../src/core/ssh/resolve';
import { hostConfig, loadSshConfig, parseSshConfig } from '../../../src/core/ssh/sshConfig';

// ~/.ssh is wherever HOME points (as for ssh's "~/"): each test gets its own home.
let home: string;
let savedHome: string | undefined;
beforeEach(() => {
  savedHome = process.env.HOME;
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-sshhome-'));
  fs.mkdirSync(path.join(home, '.ssh'), { mode: 0o700 });
  process.env.HOME = home;
});
afterEach(() => {
  process.env.HOME = savedHome;
  fs.rmSync(home, { recursive: true, force: true });
});

function write(rel: string, lines: string[]): string {
  const f = path.isAbsolute(rel) ? rel : path.join(home, '.ssh', rel);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, lines.join('\n') + '\n', { mode: 0o644 });
  return f;
}

function errorOf(fn: () => unknown): GpuDeskError {
  let err: unknown = null;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(GpuDeskError);
  expect((err as GpuDeskError).code).toBe('BAD_SSH_CONFIG');
  expect((err as GpuDeskError).message).not.toContain('\n');
  return err as GpuDeskError;
}

const userConfig = () => loadSshConfig(undefined, undefined, path.join(home, 'no-system-config'));

describe('Include, as OpenSSH reads it', () => {
  it('globs relative to ~/.ssh, in sorted order, nested; first value wins across files', () => {
    write('config', ['Include config.d/*', 'Host *', '  User fallback']);
    write('config.d/20-lab', ['Host lab', '  HostName lab.example', '  Port 2200', '  Include nested/lab-extra']);
    write('config.d/10-early', ['Host lab', '  User early']);
    write('config.d/.hidden', ['Host lab', '  User hidden']);
    write('nested/lab-extra', ['IdentityFile ~/.ssh/id_lab', 'ProxyJump bastion']);
    expect(hostConfig(userConfig(), 'lab')).toMatchObject({
      hostName: 'lab.example', port: 2200, user: 'early', identityFiles: ['~/.ssh/id_lab'], proxyJump: ['bastion'],
    });
    expect(hostConfig(userConfig(), 'other')).toMatchObject({ user: 'fallback', hostName: undefined, proxyJump: undefined });
  });

  it('~/ and absolute paths work; a pattern that matches nothing is not an error', () => {
    const abs = write(path.join(home, 'elsewhere', 'abs.conf'), ['Host a', '  Port 2001']);
    write('config', ['Include ~/.ssh/tilde.conf', `Include ${abs}`, 'Include nothing-here/*']);
    write('tilde.conf', ['Host t', '  Port 2002']);
    const cfg = userConfig();
    expect(hostConfig(cfg, 'a').port).toBe(2001);
    expect(hostConfig(cfg, 't').port).toBe(2002);
  });

  it('inside a Host block it applies only when that block does, and cannot switch the outer block off', () => {
    write('config', ['Host gpu', '  Include gpu.conf', '  User after-include']);
    // Included from an inactive block, even a Host line that matches must not apply (ssh's NEVERMATCH);
    // for "gpu" that Host line switches the included file off, but not the rest of the Host gpu block.
    write('gpu.conf', ['Port 2222', 'Host other', '  HostName leaked']);
    const cfg = userConfig();
    expect(hostConfig(cfg, 'gpu')).toMatchObject({ port: 2222, user: 'after-include', hostName: undefined });
    expect(hostConfig(cfg, 'other')).toMatchObject({ port: undefined, hostName: undefined, user: undefined });
  });

  it('a loop is refused, naming the file; nesting deeper than 16 is refused like ssh', () => {
    write('config', ['Include a.conf']);
    write('a.conf', ['Include b.conf']);
    write('b.conf', ['Include a.conf']);
    expect(errorOf(() => hostConfig(userConfig(), 'x')).message).toMatch(/b\.conf includes .*a\.conf.*Include loop/);
    for (let i = 0; i < 20; i++) write(`deep${i}.conf`, [`Include deep${i + 1}.conf`]);
    write('config', ['Include deep0.conf']);
    expect(errorOf(() => hostConfig(userConfig(), 'x')).message).toMatch(/more than 16/);
    // 16 levels is still fine.
    write('deep15.conf', ['Host x', '  Port 2016']);
    expect(hostConfig(userConfig(), 'x').port).toBe(2016);
  });

  it('a group- or world-writable included file is refused, as ssh refuses it', () => {
    write('config', ['Include open.conf']);
    const f = write('open.conf', ['Port 2']);
    fs.chmodSync(f, 0o666);
    expect(errorOf(() => hostConfig(userConfig(), 'x')).message).toMatch(/Bad owner or permissions on .*open\.conf/);
  });

  it('a system config resolves relative Includes in /etc/ssh and may not use ~', () => {
    const sys = write(path.join(home, 'etc-ssh-config'), ['Include ~/.ssh/x']);
    expect(errorOf(() => hostConfig(loadSshConfig(undefined, undefined, sys), 'x')).message).toMatch(/bad include path ~\/\.ssh\/x/);
    write(sys, ['Include ssh_config.d/gd-test-does-not-exist-*.conf', 'Host sys', '  Port 2300']);
    write('config', ['Host sys', '  User mine']);
    // Both files are read, the user's first.
    expect(hostConfig(loadSshConfig(undefined, undefined, sys), 'sys')).toMatchObject({ user: 'mine', port: 2300 });
  });
});

describe('Match exec is never run', () => {
  it('the command does not run, its block does not match, and the log says so once', () => {
    const marker = path.join(home, 'match-exec-ran');
    const logs: string[] = [];
    const cfg = parseSshConfig([
      `Match exec "touch ${marker}"`,
      '  User from-exec',
      `Match !exec "touch ${marker}2" host gpu`,
      '  Port 2222',
      'Match host gpu user alice',
      '  HostName matched.example',
      'Host gpu',
      '  User alice',
    ].join('\n'), 'cfg', (l) => logs.push(l));
    expect(hostConfig(cfg, 'gpu')).toMatchObject({ user: 'alice', port: undefined, hostName: undefined });
    expect(hostConfig(cfg, 'gpu')).toMatchObject({ user: 'alice' });
    expect(fs.existsSync(marker)).toBe(false);
    expect(fs.existsSync(marker + '2')).toBe(false);
    expect(logs.filter((l) => /Match exec/.test(l))).toHaveLength(1);
  });

  it('Match host / originalhost / user / final follow ssh', () => {
    const cfg = parseSshConfig([
      'Host short',
      '  HostName long.example',
      'Match originalhost short !user zz-no-such-user',
      '  Port 2001',
      'Match host long.example',
      '  IdentityFile ~/.ssh/by-hostname',
      'Match final host long.example',
      '  User final-user',
      'Host long.example',
      '  ConnectTimeout 9',
    ].join('\n'), 'cfg');
    // "Host long.example" matches only in the final pass, where Host lines see the HostName.
    expect(hostConfig(cfg, 'short')).toMatchObject({ port: 2001, identityFiles: ['~/.ssh/by-hostname'], user: 'final-user', connectTimeoutS: 9 });
  });
});

describe('ProxyJump and ProxyCommand resolved like ssh', () => {
  const base = { appKnownHostsFile: '/dev/null', identityFiles: [] };

  it("a jump host's own ProxyJump, User, Port, IdentityFile and HostKeyAlias come from the config", () => {
    const cfg = parseSshConfig([
      'Host target', '  HostName 10.0.0.9', '  ProxyJump mid',
      'Host mid', '  HostName 10.0.0.5', '  User midu', '  Port 2205', '  IdentityFile /keys/mid', '  HostKeyAlias mid-alias', '  ProxyJump edge',
      'Host edge', '  HostName edge.example', '  User edgeu', '  Port 2201',
    ].join('\n'), 'cfg');
    const t = resolveTarget({ ...base, destination: 'target', user: 'me' }, cfg);
    expect(t.hops.map((h) => [h.endpoint.user, h.endpoint.hostName, h.endpoint.port, h.knownHostsNames[0]])).toEqual([
      ['edgeu', 'edge.example', 2201, '[edge.example]:2201'],
      ['midu', '10.0.0.5', 2205, 'mid-alias'],
      ['me', '10.0.0.9', 22, '10.0.0.9'],
    ]);
    expect(t.hops[1].endpoint.identityFiles).toContain('/keys/mid');
  });

  it('"ProxyJump a,b" dials b through a (b\'s own ProxyJump is overridden, a\'s is followed); -J replaces the config', () => {
    const cfg = parseSshConfig([
      'Host target', '  ProxyJump a,b',
      'Host b', '  ProxyJump ignored',
      'Host a', '  ProxyJump a0',
    ].join('\n'), 'cfg');
    expect(resolveTarget({ ...base, destination: 'target' }, cfg).hops.map((h) => h.endpoint.host)).toEqual(['a0', 'a', 'b', 'target']);
    expect(resolveTarget({ ...base, destination: 'target', jump: ['z'] }, cfg).hops.map((h) => h.endpoint.host)).toEqual(['z', 'target']);
  });

  it('a ProxyJump loop is a one-line error naming the chain', () => {
    const cfg = parseSshConfig(['Host a', '  ProxyJump b', 'Host b', '  ProxyJump a'].join('\n'), 'cfg');
    expect(errorOf(() => resolveTarget({ ...base, destination: 'a', user: 'u' }, cfg)).message).toMatch(/ProxyJump loop: a:22 → b:22 → a:22$/);
  });

  it('ProxyCommand: tokens %h %p %r %n %% expanded; whichever of ProxyCommand/ProxyJump comes first wins; none turns it off', () => {
    const cfg = parseSshConfig([
      'Host cmd', '  HostName real.example', '  User bob', '  Port 2022', '  ProxyCommand connect %h:%p as %r for %n at 100%%',
      '  ProxyJump later',
      'Host jumpfirst', '  ProxyJump j', '  ProxyCommand never',
      'Host off', '  ProxyCommand none',
      'Host *', '  ProxyCommand default %h',
    ].join('\n'), 'cfg');
    const t = resolveTarget({ ...base, destination: 'cmd' }, cfg);
    expect(t.hops).toHaveLength(1);
    expect(t.hops[0].proxyCommand).toBe('connect real.example:2022 as bob for cmd at 100%');
    expect(resolveTarget({ ...base, destination: 'jumpfirst' }, cfg).hops.map((h) => [h.endpoint.host, h.proxyCommand])).toEqual([['j', 'default j'], ['jumpfirst', undefined]]);
    expect(resolveTarget({ ...base, destination: 'off' }, cfg).hops[0].proxyCommand).toBeUndefined();
    // -J replaces ProxyCommand as ssh -J does.
    expect(resolveTarget({ ...base, destination: 'cmd', jump: ['j'] }, cfg).hops[1].proxyCommand).toBeUndefined();
    const bad = parseSshConfig(['Host x', '  ProxyCommand nc %h %Z'].join('\n'), 'cfg');
    expect(errorOf(() => resolveTarget({ ...base, destination: 'x' }, bad)).message).toMatch(/%Z/);
  });
});
