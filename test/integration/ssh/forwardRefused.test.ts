import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { cleanupAll, makeTempDir, readUntil, startSshd, type SshdBed } from '../../bed';
import { dropbearOptions, startDropbear } from '../../bed/dropbear';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { GpuDeskError } from '../../../src/core/errors';
import { ChannelHub } from '../../../src/core/vnc/channelHub';
import { TunnelManager } from '../../../src/core/tunnels/tunnelManager';
import { FORWARD_REFUSED_CLOSE } from '../../../src/shared/viewerClose';

// Forwards the server refuses by policy, each against the real server configured that way: the error
// says what `ssh -L` says (administratively prohibited) and who can change it; a desktop on a Unix socket
// the server will not open is told to restart on TCP where TCP is forwarded. OpenSSH's own verdict on
// the same bed is checked beside (ssh -W).

const BIN = path.resolve(__dirname, '../../../bin/gpu-desk.cjs');
const ORIGIN = 'http://127.0.0.1:5556';
const servers: net.Server[] = [];
let service: number;
let socketPath: string;

/** What the server would forward to: a TCP service and a Unix socket on the server's side (this machine). */
beforeAll(async () => {
  const tcp = net.createServer((s) => s.end('hello\n'));
  servers.push(tcp);
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', () => r()));
  service = (tcp.address() as net.AddressInfo).port;
  const dir = makeTempDir('gd-sock-');
  fs.chmodSync(dir, 0o755);
  socketPath = path.join(dir, 'desktop.sock');
  const unix = net.createServer((s) => s.end('hello\n'));
  servers.push(unix);
  await new Promise<void>((r) => unix.listen(socketPath, () => r()));
  fs.chmodSync(socketPath, 0o777); // the bed's account connects to it
});
afterAll(async () => {
  for (const s of servers) s.close();
  await cleanupAll();
});

async function refusal(p: Promise<unknown>): Promise<GpuDeskError> {
  const e = await p.then(() => null, (x: unknown) => x);
  expect(e).toBeInstanceOf(GpuDeskError);
  return e as GpuDeskError;
}

/** OpenSSH's ssh, asked for the same forward (-W: stdio forwarding), says what it was told (async: the service it reaches runs in this process). */
async function opensshSays(bed: SshdBed, target: string): Promise<{ stdout: string; stderr: string }> {
  const p = spawn('ssh', ['-F', '/dev/null', '-i', bed.userKeyPath, '-p', String(bed.port), '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-W', target, `${bed.user}@127.0.0.1`], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (d) => (stdout += d));
  p.stderr.on('data', (d) => (stderr += d));
  p.stdin.end();
  await new Promise((r) => p.on('close', r));
  return { stdout, stderr };
}

describe.each([['AllowTcpForwarding no'], ['PermitOpen 127.0.0.1:1'], ['DisableForwarding yes']])('sshd with %s', (line) => {
  let bed: SshdBed;
  let conn: SshConnection;
  beforeAll(async () => {
    bed = await startSshd({ overrideConfig: [line] });
    conn = await connectSsh(bedOptions(bed));
  });
  afterAll(async () => {
    await conn?.close();
    await bed?.stop();
  });

  it('TCP: "administratively prohibited", the administrator, and the settings that do it, as ssh -L is told', async () => {
    expect((await opensshSays(bed, `127.0.0.1:${service}`)).stderr).toMatch(/open failed: administratively prohibited/);
    const e = await refusal(conn.forwardOut('127.0.0.1', service));
    expect(e.code).toBe('FORWARD_PROHIBITED');
    expect(e.message).toMatch(/refused to forward to 127\.0\.0\.1:\d+: administratively prohibited \(the server's administrator has disabled this kind of forwarding\)/);
    expect(e.fix).toMatch(/AllowTcpForwarding, PermitOpen, DisableForwarding/);
  });

  it('a Unix socket where TCP is refused too: no --tcp advice that cannot help', async () => {
    const e = await refusal(conn.forwardOutUnix(socketPath));
    expect(e.code).toBe('FORWARD_PROHIBITED');
    expect(e.message).toContain(`the desktop's socket ${socketPath} and to TCP ports: administratively prohibited`);
    expect(e.fix).not.toMatch(/--tcp/);
  });

  it("the app's viewer channel ends with the refusal's code, not as a desktop that is not running", async () => {
    const hub = new ChannelHub({ allowedOrigins: () => [ORIGIN] });
    const port = await hub.listen();
    try {
      const ticket = hub.register(() => conn.forwardOut('127.0.0.1', service));
      const ws = new WebSocket(`ws://127.0.0.1:${port}${ticket.path}`, { origin: ORIGIN });
      const [code, reason] = await new Promise<[number, string]>((r) => ws.once('close', (c, why) => r([c, why.toString()])));
      expect(code).toBe(FORWARD_REFUSED_CLOSE);
      expect(reason).toBe('FORWARD_PROHIBITED');
    } finally {
      await hub.close();
    }
  });

  it('a display tunnel tells the connecting VNC viewer why (RFB "connection failed" with the reason), not a bare EOF', async () => {
    const tm = new TunnelManager(conn);
    const errors: Error[] = [];
    tm.on('forward-error', ({ error }: { error: Error }) => errors.push(error));
    try {
      const info = await tm.openDisplay(1, { remotePort: service });
      const s = net.connect({ host: '127.0.0.1', port: info.localPort });
      const version = await readUntil(s, (b) => b.length >= 12);
      expect(version.subarray(0, 12).toString()).toBe('RFB 003.003\n');
      s.write('RFB 003.003\n');
      const all = await new Promise<Buffer>((resolve) => {
        const chunks: Buffer[] = [version];
        s.on('data', (d) => chunks.push(d));
        s.on('end', () => resolve(Buffer.concat(chunks)));
      });
      s.destroy();
      expect(all.readUInt32BE(12)).toBe(0); // security type 0: connection failed
      const reason = all.subarray(20, 20 + all.readUInt32BE(16)).toString();
      expect(reason).toMatch(/administratively prohibited \(the server's administrator has disabled this kind of forwarding\) — ask them/);
      expect(errors.map((x) => (x as GpuDeskError).code)).toEqual(['FORWARD_PROHIBITED']);
    } finally {
      await tm.closeAll();
    }
  });

  it('gpu-desk tunnel -L prints the refusal in one line when a program connects', async () => {
    const home = makeTempDir('gd-clihome-');
    const kh = path.join(home, 'known_hosts');
    fs.writeFileSync(kh, bed.knownHostsLine + '\n');
    const proc = spawn(process.execPath, [BIN, 'tunnel', `${bed.user}@127.0.0.1`, '-p', String(bed.port), '-i', bed.userKeyPath, '-F', 'none', '--known-hosts', kh, '-L', `0:127.0.0.1:${service}`, '--json'], {
      env: { ...process.env, GPU_DESK_HOME: home, SSH_AUTH_SOCK: '', HOME: home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    proc.stderr.on('data', (d) => (err += d));
    const exited = new Promise<void>((r) => proc.on('exit', () => r()));
    try {
      const listening = await new Promise<Record<string, unknown>>((resolve, reject) => {
        proc.stdout.on('data', (d) => {
          out += d;
          const line = out.split('\n').find((l) => l.includes('"listening"'));
          if (line) resolve(JSON.parse(line));
        });
        proc.on('exit', () => reject(new Error(`gpu-desk tunnel exited: ${err}`)));
      });
      const local = String((listening.forwards as { local: string }[])[0].local).split(':')[1];
      const s = net.connect({ host: '127.0.0.1', port: Number(local) });
      await new Promise<void>((r) => s.on('close', () => r()).on('error', () => {}));
      const failed = await new Promise<Record<string, unknown>>((resolve) => {
        const look = () => {
          const line = out.split('\n').find((l) => l.includes('"open-failed"'));
          if (line) resolve(JSON.parse(line));
        };
        look();
        proc.stdout.on('data', look);
      });
      expect(String(failed.reason)).toMatch(/refused to forward to 127\.0\.0\.1:\d+: administratively prohibited \(the server's administrator has disabled this kind of forwarding\)/);
      expect(String(failed.fix)).toMatch(/ask them to allow it \(sshd_config: AllowTcpForwarding, PermitOpen, DisableForwarding\)/);
    } finally {
      proc.kill('SIGTERM');
      await exited;
    }
  });
});

describe('sshd with AllowStreamLocalForwarding no (TCP still forwarded)', () => {
  let bed: SshdBed;
  let conn: SshConnection;
  beforeAll(async () => {
    bed = await startSshd({ overrideConfig: ['AllowStreamLocalForwarding no'] });
    conn = await connectSsh(bedOptions(bed));
  });
  afterAll(async () => {
    await conn?.close();
    await bed?.stop();
  });

  it('a desktop on a Unix socket: the server will not open it, restart the desktop on TCP (--tcp)', async () => {
    expect((await opensshSays(bed, `127.0.0.1:${service}`)).stdout).toBe('hello\n');
    const e = await refusal(conn.forwardOutUnix(socketPath));
    expect(e.code).toBe('SOCKET_FORWARD_REFUSED');
    expect(e.message).toMatch(/would not open it, though it is there: sshd refuses forwarding to Unix sockets \(AllowStreamLocalForwarding no/);
    expect(e.fix).toMatch(/restart the desktop on TCP.*start --tcp/);
  });

  it('a socket that is not there is a session that ended, not a refusal', async () => {
    const e = await refusal(conn.forwardOutUnix(`${socketPath}.gone`));
    expect(e.code).toBe('FORWARD_FAILED');
    expect(e.message).toMatch(/is gone from .*: its session has ended/);
  });
});

describe('Dropbear', () => {
  it('has no Unix-socket forwarding: restart the desktop on TCP', async () => {
    const db = await startDropbear();
    const conn = await connectSsh(dropbearOptions(db));
    try {
      const e = await refusal(conn.forwardOutUnix(socketPath));
      expect(e.code).toBe('SOCKET_FORWARD_REFUSED');
      expect(e.message).toMatch(/does not forward to Unix sockets at all \(Dropbear has no stream-local forwarding\)/);
      expect(e.fix).toMatch(/start --tcp/);
    } finally {
      await conn.close();
      await db.stop();
    }
  });

  it('with -j (no local forwarding): administratively prohibited', async () => {
    const db = await startDropbear({ noLocalForwarding: true });
    const conn = await connectSsh(dropbearOptions(db));
    try {
      const e = await refusal(conn.forwardOut('127.0.0.1', service));
      expect(e.code).toBe('FORWARD_PROHIBITED');
      expect(e.message).toMatch(/administratively prohibited/);
    } finally {
      await conn.close();
      await db.stop();
    }
  });
});
