import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, makeTempDir, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh } from '../../../src/core/ssh/connection';
import type { ConnectionStateEvent, HostKeyPrompt } from '../../../src/core/ssh/types';
import { GpuDeskError } from '../../../src/core/errors';
import { waitFor } from '../../helpers/until';

let bed: SshdBed;
let bed2: SshdBed;

beforeAll(async () => {
  [bed, bed2] = await Promise.all([startSshd(), startSshd({ hostKeyType: 'ecdsa' })]);
});
afterAll(cleanupAll);

/** Run `fn` with HOME (and so ~/.ssh) pointing at a fresh directory, as ssh reads it. */
async function withHome<T>(fn: (sshDir: string) => Promise<T>): Promise<T> {
  const home = makeTempDir('gd-home-');
  const sshDir = path.join(home, '.ssh');
  fs.mkdirSync(sshDir, { mode: 0o700 });
  const saved = process.env.HOME;
  process.env.HOME = home;
  try {
    return await fn(sshDir);
  } finally {
    process.env.HOME = saved;
  }
}

function hostBlock(alias: string, b: SshdBed, extra: string[] = []): string[] {
  return [`Host ${alias}`, '  HostName 127.0.0.1', `  Port ${b.port}`, `  User ${b.user}`, `  IdentityFile ${b.userKeyPath}`, ...extra];
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A ProxyCommand that is neither nc nor socat: it records its argv and pid in `dir`, says something
 * on stderr (which must not reach the user), and pipes stdin/stdout to host:port.
 */
function proxyScript(): { dir: string; script: string; starts: () => { pid: number; argv: string[] }[] } {
  const dir = makeTempDir('gd-proxy-');
  const script = path.join(dir, 'proxy.cjs');
  fs.writeFileSync(script, `
const fs = require('node:fs'), net = require('node:net'), path = require('node:path');
const [dir, host, port] = process.argv.slice(2);
fs.writeFileSync(path.join(dir, 'start-' + process.pid + '.json'), JSON.stringify({ pid: process.pid, argv: process.argv.slice(2) }));
process.stderr.write('proxy-chatter: dialling ' + host + ':' + port + '\\n');
const s = net.connect(Number(port), host);
s.on('error', (e) => { process.stderr.write('proxy: ' + e.message + '\\n'); process.exit(2); });
process.stdin.pipe(s);
s.pipe(process.stdout);
s.on('close', () => process.exit(0));
`);
  const starts = () =>
    fs.readdirSync(dir).filter((f) => f.startsWith('start-')).map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { pid: number; argv: string[] });
  return { dir, script, starts };
}

describe('Include (issue 16 point 6)', () => {
  it('an alias defined in ~/.ssh/config.d/* resolves with its ProxyJump to the bed', async () => {
    await withHome(async (sshDir) => {
      fs.writeFileSync(path.join(sshDir, 'config'), 'Include config.d/*\n');
      fs.mkdirSync(path.join(sshDir, 'config.d'));
      fs.writeFileSync(path.join(sshDir, 'config.d', 'lab.conf'), [...hostBlock('lab-gpu', bed, ['  ProxyJump lab-bastion']), ...hostBlock('lab-bastion', bed2), ''].join('\n'));
      const prompts: HostKeyPrompt[] = [];
      const c = await connectSsh({
        ...bedOptions(bed), destination: 'lab-gpu', port: undefined, identityFiles: undefined, sshConfigPath: undefined,
        callbacks: { onUnknownHostKey: async (p) => { prompts.push(p); return 'accept-once'; } },
      });
      try {
        expect(c.hops.map((h) => h.host)).toEqual(['lab-bastion', 'lab-gpu']);
        expect(prompts.map((p) => p.fingerprint)).toEqual([bed2.hostKeyFingerprint, bed.hostKeyFingerprint]);
        expect((await c.exec('id -un')).stdout.trim()).toBe(bed.user);
      } finally {
        await c.close();
      }
    });
  });
});

describe('ProxyJump through the config, recursively (issue 16 point 8)', () => {
  it("a jump host's own ProxyJump, User, Port, IdentityFile and HostKeyAlias are used: bed2 → bed (as 'mid') → bed", async () => {
    const cfg = path.join(makeTempDir('gd-cfg-'), 'config');
    fs.writeFileSync(cfg, [
      ...hostBlock('target', bed, ['  ProxyJump mid']),
      ...hostBlock('mid', bed, ['  HostKeyAlias mid-key', '  ProxyJump edge']),
      ...hostBlock('edge', bed2),
      '',
    ].join('\n'));
    const kh = path.join(makeTempDir('gd-kh-'), 'known_hosts');
    // Only the HostKeyAlias line can make "mid" known; the edge and the target are asked about.
    fs.writeFileSync(kh, `mid-key ${bed.knownHostsLine.split(' ').slice(1).join(' ')}\n`);
    const prompts: HostKeyPrompt[] = [];
    const c = await connectSsh({
      ...bedOptions(bed), appKnownHostsFile: kh, destination: 'target', port: undefined, identityFiles: undefined, sshConfigPath: cfg,
      callbacks: { onUnknownHostKey: async (p) => { prompts.push(p); return 'accept-once'; } },
    });
    try {
      expect(c.hops.map((h) => h.host)).toEqual(['edge', 'mid', 'target']);
      expect(prompts.map((p) => [p.hop, p.fingerprint])).toEqual([[0, bed2.hostKeyFingerprint], [2, bed.hostKeyFingerprint]]);
      expect((await c.exec('echo $SSH_CONNECTION')).stdout).toMatch(/^127\.0\.0\.1 \d+ 127\.0\.0\.1 \d+/);
    } finally {
      await c.close();
    }
  });

  it('a ProxyJump loop is refused before anything is dialled', async () => {
    const cfg = path.join(makeTempDir('gd-cfg-'), 'config');
    fs.writeFileSync(cfg, [...hostBlock('a', bed, ['  ProxyJump b']), ...hostBlock('b', bed2, ['  ProxyJump a']), ''].join('\n'));
    const e = await connectSsh({ ...bedOptions(bed), destination: 'a', port: undefined, identityFiles: undefined, sshConfigPath: cfg }).then(() => null, (x) => x);
    expect(e).toBeInstanceOf(GpuDeskError);
    expect((e as GpuDeskError).code).toBe('BAD_SSH_CONFIG');
    expect((e as GpuDeskError).message).toMatch(/ProxyJump loop: a:\d+ → b:\d+ → a:\d+/);
  });
});

describe('Match exec never runs (issue 16 point 9)', () => {
  it('a config whose Match exec would create a file: the file does not appear, the block does not apply, the log says so', async () => {
    const dir = makeTempDir('gd-cfg-');
    const marker = path.join(dir, 'match-exec-ran');
    const cfg = path.join(dir, 'config');
    fs.writeFileSync(cfg, [`Match exec "touch ${marker}"`, '  Port 1', ...hostBlock('gpu-box', bed), ''].join('\n'));
    const logs: string[] = [];
    const c = await connectSsh({ ...bedOptions(bed), destination: 'gpu-box', port: undefined, identityFiles: undefined, sshConfigPath: cfg, log: (l) => logs.push(l) });
    await c.close();
    expect(c.endpoint.port).toBe(bed.port);
    expect(fs.existsSync(marker)).toBe(false);
    expect(logs.filter((l) => l.includes('Match exec'))).toHaveLength(1);
  });
});

describe('ProxyCommand (issue 16 point 7)', () => {
  it('runs the command with %h %p %r %n %% expanded, carries SSH over its stdin/stdout, logs its stderr, and ends it on close', async () => {
    const p = proxyScript();
    const cfg = path.join(makeTempDir('gd-cfg-'), 'config');
    fs.writeFileSync(cfg, [...hostBlock('via-cmd', bed, [`  ProxyCommand node ${p.script} ${p.dir} %h %p %r %n 100%%`]), ''].join('\n'));
    const logs: string[] = [];
    const c = await connectSsh({ ...bedOptions(bed), destination: 'via-cmd', port: undefined, identityFiles: undefined, sshConfigPath: cfg, log: (l) => logs.push(l) });
    const [start] = p.starts();
    try {
      expect(p.starts()).toHaveLength(1);
      expect(start.argv).toEqual([p.dir, '127.0.0.1', String(bed.port), bed.user, 'via-cmd', '100%']);
      expect((await c.exec('echo through-proxy')).stdout).toBe('through-proxy\n');
      expect(alive(start.pid)).toBe(true);
      expect(logs.some((l) => l.includes('proxy-chatter: dialling 127.0.0.1'))).toBe(true);
    } finally {
      await c.close();
    }
    await waitFor(() => !alive(start.pid), 'the ProxyCommand process to end after close');
  });

  it('a command that exits before the handshake: one-line error with its status and last stderr line', async () => {
    const cfg = path.join(makeTempDir('gd-cfg-'), 'config');
    fs.writeFileSync(cfg, ['Host iap', `  ProxyCommand node -e "process.stderr.write('warming up\\\\nERROR: access denied by policy\\\\n'); process.exit(3)"`, ''].join('\n'));
    const e = await connectSsh({ ...bedOptions(bed), destination: 'iap', port: undefined, sshConfigPath: cfg }).then(() => null, (x) => x);
    expect(e).toBeInstanceOf(GpuDeskError);
    expect((e as GpuDeskError).code).toBe('PROXY_COMMAND_FAILED');
    expect((e as GpuDeskError).message).toMatch(/ProxyCommand for .*iap.* exited \(status 3\) before the SSH handshake: ERROR: access denied by policy$/);
  });

  it('after sshd restarts, the connection comes back through a new ProxyCommand process; the old one is gone', async () => {
    const own = await startSshd();
    const p = proxyScript();
    const cfg = path.join(makeTempDir('gd-cfg-'), 'config');
    fs.writeFileSync(cfg, [...hostBlock('re', own, [`  ProxyCommand node ${p.script} ${p.dir} %h %p`]), ''].join('\n'));
    const states: ConnectionStateEvent[] = [];
    const c = await connectSsh({
      ...bedOptions(own), destination: 're', port: undefined, identityFiles: undefined, sshConfigPath: cfg,
      reconnect: { enabled: true, initialDelayMs: 200, maxDelayMs: 1000 },
    });
    c.on('state', (s: ConnectionStateEvent) => states.push(s));
    try {
      const first = p.starts()[0];
      await own.kill();
      await waitFor(() => states.some((s) => s.state === 'reconnecting'), 'reconnecting');
      await waitFor(() => !alive(first.pid), 'the first ProxyCommand to end with its connection');
      await own.restart();
      await c.whenReady(60_000);
      const live = p.starts().filter((s) => alive(s.pid));
      expect(live).toHaveLength(1);
      expect(live[0].pid).not.toBe(first.pid);
      expect((await c.exec('echo back')).stdout).toBe('back\n');
    } finally {
      await c.close();
      await own.stop();
    }
    await waitFor(() => p.starts().every((s) => !alive(s.pid)), 'every ProxyCommand process to end');
  });
});
