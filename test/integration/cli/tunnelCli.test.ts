import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, freePort, isPortFree, makeTempDir, readUntil, startSshd, startXvnc, type SshdBed, type XvncBed } from '../../bed';
import { nextJson, spawnCli } from '../../helpers/cli';

let bed: SshdBed;
let xvnc: XvncBed;
let home: string;

beforeAll(async () => {
  [bed, xvnc] = await Promise.all([startSshd(), startXvnc()]);
  home = makeTempDir('gd-clihome-');
});
afterAll(cleanupAll);

// stdin stays open: a tunnel runs until it is signalled, as at a terminal.
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => spawnCli(args, { home, env, stdin: null });

function base(extra: string[] = []): string[] {
  return [`${bed.user}@127.0.0.1`, '-p', String(bed.port), '-i', bed.userKeyPath, '-F', 'none', ...extra];
}

async function banner(port: number): Promise<string> {
  const s = net.connect({ host: '127.0.0.1', port });
  const b = await readUntil(s, (x) => x.length >= 12);
  s.destroy();
  return b.subarray(0, 12).toString();
}

async function failsWith(args: string[], re: RegExp): Promise<string> {
  const r = cli(args);
  const code = await r.exit;
  expect(code).not.toBe(0);
  const lines = r.stderr().trim().split('\n');
  expect(lines.at(-1)).toMatch(/^error: /);
  expect(lines.at(-1)).toMatch(re);
  return r.stderr();
}

describe('gpu-desk tunnel (real CLI process, real sshd + Xvnc)', () => {
  it('--help works without Electron and names every option', async () => {
    const r = cli(['tunnel', '--help']);
    let out = '';
    r.proc.stdout.on('data', (d) => (out += d));
    expect(await r.exit).toBe(0);
    for (const o of ['--display', '--local-port', '-p', '-i', '-J', '-L', '--known-hosts', '--accept-new-host-key', '--json']) expect(out).toContain(o);
  });

  it('--json: listening first, the RFB banner through the port, SIGINT → clean exit 0 and the port freed', async () => {
    const kh = path.join(makeTempDir('gd-kh-'), 'known_hosts');
    const r = cli(['tunnel', ...base(['--display', String(xvnc.display), '--json', '--known-hosts', kh, '--accept-new-host-key'])]);
    const ev = await nextJson(r);
    expect(ev.event).toBe('listening');
    expect(ev.remote).toBe(`127.0.0.1:${5900 + xvnc.display}`);
    expect(ev.display).toBe(xvnc.display);
    const port = Number(String(ev.local).split(':')[1]);
    expect(String(ev.local)).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(await banner(port)).toBe('RFB 003.008\n');
    // accept-new: the key was saved, and the warning names the fingerprint.
    expect(fs.readFileSync(kh, 'utf8')).toContain(`[127.0.0.1]:${bed.port} ssh-ed25519`);
    expect(r.stderr()).toContain(bed.hostKeyFingerprint);
    r.proc.kill('SIGINT');
    expect(await r.exit).toBe(0);
    expect(await isPortFree(port)).toBe(true);
  });

  it('human output says where to point a viewer; -L forwards are listed; SIGTERM exits 0', async () => {
    const kh = path.join(makeTempDir('gd-kh-'), 'known_hosts');
    fs.writeFileSync(kh, bed.knownHostsLine + '\n');
    const lp = await freePort();
    const r = cli(['tunnel', ...base(['--display', String(xvnc.display), '--local-port', String(lp), '-L', `0:127.0.0.1:${bed.port}`, '--known-hosts', kh])]);
    const seen: string[] = [];
    for (;;) {
      const { value, done } = await r.lines.next();
      if (done) break;
      seen.push(value);
      if (value.includes('Ctrl+C')) break;
    }
    expect(seen.join('\n')).toContain(`vncviewer 127.0.0.1::${lp}`);
    expect(seen.join('\n')).toMatch(new RegExp(`Forward 127\\.0\\.0\\.1:\\d+ → 127\\.0\\.0\\.1:${bed.port}`));
    r.proc.kill('SIGTERM');
    expect(await r.exit).toBe(0);
  });

  it('a forward that answers HTTP gets its browser address whatever its port (asked through the forward, as the app asks); one that does not gets none', async () => {
    const kh = path.join(makeTempDir('gd-kh-'), 'known_hosts');
    fs.writeFileSync(kh, bed.knownHostsLine + '\n');
    const web = http.createServer((_q, res) => res.end('a dev server'));
    await new Promise<void>((r) => web.listen(0, '127.0.0.1', () => r()));
    const webPort = (web.address() as net.AddressInfo).port;
    try {
      const r = cli(['tunnel', ...base(['-L', `0:127.0.0.1:${webPort}`, '-L', `0:127.0.0.1:${bed.port}`, '--known-hosts', kh])]);
      const seen: string[] = [];
      for (;;) {
        const { value, done } = await r.lines.next();
        if (done) break;
        seen.push(value);
        if (value.includes('Ctrl+C')) break;
      }
      const toWeb = seen.find((l) => l.includes(`→ 127.0.0.1:${webPort} `));
      const toSshd = seen.find((l) => l.includes(`→ 127.0.0.1:${bed.port} `));
      expect(toWeb).toMatch(/^Forward 127\.0\.0\.1:(\d+) → .* http:\/\/127\.0\.0\.1:\1\/$/);
      expect(toSshd).toBeDefined();
      expect(toSshd).not.toContain('http://');
      r.proc.kill('SIGTERM');
      expect(await r.exit).toBe(0);
    } finally {
      web.close();
    }
  });

  it('reports reconnecting and ready when sshd dies and comes back, on the same local port', async () => {
    const own = await startSshd();
    const kh = path.join(makeTempDir('gd-kh-'), 'known_hosts');
    fs.writeFileSync(kh, own.knownHostsLine + '\n');
    const r = cli(['tunnel', `${own.user}@127.0.0.1`, '-p', String(own.port), '-i', own.userKeyPath, '-F', 'none', '--display', String(xvnc.display), '--json', '--known-hosts', kh], { GPU_DESK_RECONNECT_INITIAL_MS: '200' });
    const first = await nextJson(r);
    const port = Number(String(first.local).split(':')[1]);
    await own.kill();
    expect((await nextJson(r)).event).toBe('reconnecting');
    await own.restart();
    let ev = await nextJson(r);
    while (ev.event === 'reconnecting') ev = await nextJson(r);
    expect(ev).toMatchObject({ event: 'ready', local: `127.0.0.1:${port}` });
    expect(await banner(port)).toBe('RFB 003.008\n');
    r.proc.kill('SIGINT');
    expect(await nextJson(r)).toMatchObject({ event: 'closed' });
    expect(await r.exit).toBe(0);
  });
});

describe('gpu-desk tunnel through a ProxyCommand from ~/.ssh/config (issue 16 point 7)', () => {
  it('the alias connects through the command (a Node script, not nc): RFB banner through the port; its stderr stays off the terminal', async () => {
    const cliHome = makeTempDir('gd-clihome-proxy-');
    const dir = makeTempDir('gd-proxy-');
    const script = path.join(dir, 'proxy.cjs');
    fs.writeFileSync(script, [
      "const net = require('node:net');",
      "process.stderr.write('proxy-chatter: connecting\\n');",
      'const s = net.connect(Number(process.argv[3]), process.argv[2]);',
      'process.stdin.pipe(s); s.pipe(process.stdout);',
      "s.on('close', () => process.exit(0));",
      "s.on('error', () => process.exit(2));",
    ].join('\n'));
    fs.mkdirSync(path.join(cliHome, '.ssh'), { mode: 0o700 });
    fs.writeFileSync(path.join(cliHome, '.ssh', 'config'), [
      // .invalid never resolves: only the ProxyCommand can reach the server.
      'Host proxied-gpu', '  HostName gpu.invalid', `  Port ${bed.port}`, `  User ${bed.user}`, `  IdentityFile ${bed.userKeyPath}`,
      `  ProxyCommand ${process.execPath} ${script} 127.0.0.1 %p`, '',
    ].join('\n'));
    const kh = path.join(makeTempDir('gd-kh-'), 'known_hosts');
    fs.writeFileSync(kh, `[gpu.invalid]:${bed.port} ${bed.knownHostsLine.split(' ').slice(1).join(' ')}\n`);
    const r = cli(['tunnel', 'proxied-gpu', '--display', String(xvnc.display), '--json', '--known-hosts', kh], { HOME: cliHome });
    const ev = await nextJson(r);
    expect(ev.event).toBe('listening');
    const port = Number(String(ev.local).split(':')[1]);
    expect(await banner(port)).toBe('RFB 003.008\n');
    r.proc.kill('SIGINT');
    expect(await r.exit).toBe(0);
    expect(r.stderr()).not.toContain('proxy-chatter');
    // -v, as with ssh -v, shows the command's own messages.
    const verbose = cli(['tunnel', 'proxied-gpu', '-v', '--display', String(xvnc.display), '--json', '--known-hosts', kh], { HOME: cliHome });
    expect((await nextJson(verbose)).event).toBe('listening');
    verbose.proc.kill('SIGINT');
    expect(await verbose.exit).toBe(0);
    expect(verbose.stderr()).toContain('debug: ProxyCommand: proxy-chatter: connecting');
  });
});

describe('gpu-desk tunnel error paths: one line, cause and fix, non-zero exit', () => {
  it('unknown host key without a terminal is refused', async () => {
    const err = await failsWith(['tunnel', ...base(['--display', '1', '--known-hosts', path.join(makeTempDir('gd-kh-'), 'kh')])], /host key.*not known/i);
    expect(err).toContain(bed.hostKeyFingerprint);
    expect(err).toContain('--accept-new-host-key');
  });

  it('a changed host key is refused even with --accept-new-host-key', async () => {
    const dir = makeTempDir('gd-kh-');
    const kh = path.join(dir, 'kh');
    const other = await startSshd();
    fs.writeFileSync(kh, `[127.0.0.1]:${bed.port} ${other.knownHostsLine.split(' ').slice(1).join(' ')}\n`);
    const err = await failsWith(['tunnel', ...base(['--display', '1', '--known-hosts', kh, '--accept-new-host-key'])], /HOST KEY CHANGED/);
    expect(err).toContain(other.hostKeyFingerprint);
    expect(err).toContain(bed.hostKeyFingerprint);
    await other.stop();
  });

  it('auth failed', async () => {
    const other = await startSshd();
    await failsWith(['tunnel', `${bed.user}@127.0.0.1`, '-p', String(bed.port), '-i', other.userKeyPath, '-F', 'none', '--display', '1', '--accept-new-host-key', '--known-hosts', path.join(makeTempDir('gd-kh-'), 'kh')], /Authentication to .* failed/);
    await other.stop();
  });

  it('unreachable host', async () => {
    const dead = await freePort();
    await failsWith(['tunnel', 'me@127.0.0.1', '-p', String(dead), '-F', 'none', '--display', '1'], /refused.*check the host and port/);
  });

  it('port taken', async () => {
    const srv = net.createServer().listen(0, '127.0.0.1');
    await new Promise((r) => srv.once('listening', r));
    const taken = (srv.address() as net.AddressInfo).port;
    await failsWith(['tunnel', ...base(['--display', String(xvnc.display), '--local-port', String(taken), '--accept-new-host-key', '--known-hosts', path.join(makeTempDir('gd-kh-'), 'kh')])], new RegExp(`port ${taken} is already in use`));
    srv.close();
  });

  it('display out of range, bad -L spec, missing destination, unknown option', async () => {
    await failsWith(['tunnel', 'h', '--display', '100'], /Display 100 is out of range — give 0–99/);
    await failsWith(['tunnel', 'h', '--display', 'abc'], /Display 'abc' is not a number — give 0–99/);
    await failsWith(['tunnel', 'h', '--display', '1', '-L', '8888:localhost'], /Bad -L forward "8888:localhost"/);
    await failsWith(['tunnel', 'h', '--display', '1', '-L', '0.0.0.0:8888:localhost:8888'], /only listens on 127\.0\.0\.1/);
    await failsWith(['tunnel', '--display', '1'], /destination is missing/);
    await failsWith(['tunnel', 'h', '--display', '1', '--bogus'], /Unknown option '--bogus'/);
  });
});
