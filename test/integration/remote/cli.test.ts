/** `gpu-desk probe|sessions|setup` as real CLI processes (bin/gpu-desk.cjs) against the real bed sshd. */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, makeTempDir, runNativeViewer, startSshd, startXvnc, type SshdBed } from '../../bed';

const BIN = path.resolve(__dirname, '../../../bin/gpu-desk.cjs');
const SHIMS = path.resolve(__dirname, '../../shims');
let bed: SshdBed;
let shimBed: SshdBed;
let home: string;
const started: { bed: () => SshdBed; display: number }[] = [];

beforeAll(async () => {
  [bed, shimBed] = await Promise.all([
    startSshd(),
    startSshd({ extraConfig: [`SetEnv PATH=${SHIMS}/bin:/usr/local/bin:/usr/bin:/bin`] }),
  ]);
  home = makeTempDir('gd-remotecli-');
});
afterAll(async () => {
  for (const s of started) await cli(['sessions', ...dest(s.bed()), 'kill', String(s.display)]);
  await cleanupAll();
});

interface Result { code: number; stdout: string; stderr: string }

function cli(args: string[], opts: { env?: NodeJS.ProcessEnv; stdin?: string } = {}): Promise<Result> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, GPU_DESK_HOME: home, HOME: home, SSH_AUTH_SOCK: '', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.stdin.end(opts.stdin ?? '');
    p.on('exit', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

function dest(b: SshdBed): string[] {
  return [`${b.user}@127.0.0.1`, '-p', String(b.port), '-i', b.userKeyPath, '-F', 'none', '--no-agent', '--known-hosts', path.join(home, `kh-${b.port}`), '--accept-new-host-key'];
}

describe('gpu-desk probe', () => {
  it('--json prints one object with os, gpus, virtualgl, vnc, sessions and findings', async () => {
    const r = await cli(['probe', ...dest(bed), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const j = JSON.parse(lines[0]);
    expect(j.os.distro).toBe('debian-12');
    expect(j.gpus).toEqual([]);
    expect(j.virtualgl).toMatchObject({ installed: true, version: '3.1.4', eglUsable: true, eglDevice: 'egl0' });
    expect(j.virtualgl.eglDevices[0]).toMatchObject({ id: 'egl0', kind: 'software' });
    expect(j.vnc).toMatchObject({ flavor: 'turbovnc', version: '3.3' });
    expect(j.vnc.tigervnc.version).toMatch(/^1\./);
    expect(Array.isArray(j.sessions)).toBe(true);
    for (const f of j.findings) expect(Object.keys(f)).toEqual(expect.arrayContaining(['severity', 'code', 'message', 'fix']));
    expect(j.findings.map((f: { code: string }) => f.code)).toEqual(expect.arrayContaining(['NO_NVIDIA_DRIVER', 'EGL_SOFTWARE_RENDERER']));
    // Video mode's encoders, each by its one-frame test encode (bed.test.ts checks them against this machine's ffmpeg).
    expect(j.video.encoders.map((e: { name: string }) => e.name)).toEqual(['h264_nvenc', 'h264_vaapi', 'libx264']);
    expect(Object.keys(j.video)).toEqual(expect.arrayContaining(['ffmpeg', 'encoders', 'best']));
  });

  it('the human report says what is wrong and how to fix it', async () => {
    const r = await cli(['probe', ...dest(bed)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Debian GNU/Linux 12');
    expect(r.stdout).toContain('VNC server: TurboVNC 3.3');
    expect(r.stdout).toMatch(/^Video encoder: (?:h264_nvenc|h264_vaapi|libx264|none works|none \(no ffmpeg\))/m);
    expect(r.stdout).toMatch(/VirtualGL: 3\.1\.4 — EGL: yes, renders on egl0 \(llvmpipe/);
    expect(r.stdout).toMatch(/EGL device egl0: llvmpipe .* — software renderer \(CPU\), used for sessions/);
    expect(r.stdout).toMatch(/error\s+No NVIDIA driver is running/);
    expect(r.stdout).toMatch(/warning\s+VirtualGL's EGL device egl0 is llvmpipe/);
    expect(r.stdout).toMatch(/Fix: /);
  });

  it('shim: on a GPU server (nvidia-smi shim over SSH) it lists the GPUs and TurboVNC', async () => {
    const r = await cli(['probe', ...dest(shimBed), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.gpus.map((g: { name: string }) => g.name)).toEqual(['NVIDIA A100-SXM4-80GB', 'NVIDIA A100-SXM4-80GB']);
    expect(j.vnc).toMatchObject({ flavor: 'turbovnc', version: '3.3' });
    expect(j.virtualgl.installed).toBe(true);
    const human = await cli(['probe', ...dest(shimBed)]);
    expect(human.stdout).toContain('GPUs (driver 535.183.01):');
    expect(human.stdout).toContain('1  NVIDIA A100-SXM4-80GB  (80 GiB, 18213 MiB used, 97% busy)');
    expect(human.stdout).toContain('VNC server: TurboVNC 3.3');
    expect(human.stdout).toMatch(/error\s+Only VirtualGL's GLX back end is possible here/);
  });

  it('bad usage is one line naming the fix', async () => {
    const r = await cli(['probe']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^error: The destination is missing — see "gpu-desk probe --help"$/);
  });
});

// Sessions start real X servers: on a machine shared by several test runs that can take minutes.
describe('gpu-desk sessions', { timeout: 300_000 }, () => {
  it('TigerVNC: start --json → list --json shows it on localhost → kill → gone', async () => {
    const s = await cli(['sessions', ...dest(bed), 'start', '--flavor', 'tigervnc', '--geometry', '800x600', '--wm', '/usr/bin/xterm', '--json']);
    expect(s.code, s.stderr).toBe(0);
    const info = JSON.parse(s.stdout);
    started.push({ bed: () => bed, display: info.display });
    expect(info).toMatchObject({ flavor: 'tigervnc', port: 5900 + info.display, localhostOnly: true, passwordKind: 'session' });
    expect(info.password).toMatch(/^[A-Za-z0-9]{8}$/);

    const l = await cli(['sessions', ...dest(bed), 'list', '--json']);
    expect(l.code, l.stderr).toBe(0);
    const list = JSON.parse(l.stdout);
    expect(list.filter((x: { display: number }) => x.display === info.display)).toEqual([expect.objectContaining({ flavor: 'tigervnc', port: info.port, unixPath: null, localhostOnly: true })]);
    // The listing never carries a password.
    expect(l.stdout).not.toContain(info.password);

    const human = await cli(['sessions', ...dest(bed), 'list']);
    expect(human.stdout).toContain(`:${info.display}  port ${info.port}  TigerVNC`);
    expect(human.stdout).toContain('localhost only');

    const k = await cli(['sessions', ...dest(bed), 'kill', String(info.display)]);
    expect(k.code, k.stderr).toBe(0);
    expect(k.stdout).toContain(`Session :${info.display} stopped.`);
    started.pop();
    // This session gone: its number is free, and another test's desktop of the same account may take it at once.
    const after = JSON.parse((await cli(['sessions', ...dest(bed), 'list', '--json'])).stdout);
    expect(after.find((x: { display: number; pid: number }) => x.display === info.display && x.pid === info.pid)).toBeUndefined();
    expect(fs.existsSync(`/proc/${info.pid}`)).toBe(false);
  });

  it('TurboVNC: start listens on a Unix socket only; gpu-desk tunnel reaches it; xtigervncviewer gets the desktop with the OTP once only; kill removes the socket', async () => {
    const s = await cli(['sessions', ...dest(bed), 'start', '--geometry', '800x600', '--wm', '/usr/bin/xterm']);
    expect(s.code, s.stderr).toBe(0);
    const display = Number(/Started :(\d+)/.exec(s.stdout)?.[1]);
    started.push({ bed: () => bed, display });
    const sock = `${bed.home}/.vnc/gpu-desk-${display}.sock`;
    expect(s.stdout).toContain(`Started :${display}  socket ${sock}  TurboVNC`);
    expect(s.stdout).toContain('no TCP port');
    const otp = /One-time password \(valid for one connection\): (\d{8})/.exec(s.stdout)?.[1];
    expect(otp).toBeDefined();

    const l = JSON.parse((await cli(['sessions', ...dest(bed), 'list', '--json'])).stdout);
    const mine = l.filter((x: { display: number }) => x.display === display);
    expect(mine).toEqual([expect.objectContaining({ flavor: 'turbovnc', port: null, unixPath: sock, localhostOnly: true })]);
    // The server opened no TCP port for it: its Xvnc holds no listening TCP socket at all.
    expect(execFileSync('ss', ['-Hltnp']).toString().split('\n').filter((x) => x.includes(`pid=${mine[0].pid},`))).toEqual([]);
    expect(fs.statSync(sock).mode & 0o777).toBe(0o600);

    // Tunnel-only mode: a 127.0.0.1 port on this side, the session's socket on the other.
    const tunnel = spawn(process.execPath, [BIN, 'tunnel', ...dest(bed), '--display', String(display), '--json'], {
      env: { ...process.env, GPU_DESK_HOME: home, HOME: home, SSH_AUTH_SOCK: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const listening = await new Promise<{ local: string; remote: string; remoteSocket?: string; password: string }>((resolve, reject) => {
        let out = '';
        let err = '';
        tunnel.stderr.on('data', (d) => (err += d));
        tunnel.stdout.on('data', (d) => {
          out += d;
          const line = out.split('\n').find((x) => x.includes('"listening"'));
          if (line) resolve(JSON.parse(line));
        });
        tunnel.on('exit', (code) => reject(new Error(`tunnel exited ${code}: ${err}`)));
      });
      expect(listening.remoteSocket).toBe(sock);
      expect(listening.remote).toBe(sock);
      const port = Number(listening.local.split(':')[1]);
      // The tunnel printed a fresh one-time password (TurboVNC keeps one at a time: it replaced start's).
      expect(listening.password).toMatch(/^\d{8}$/);
      expect(listening.password).not.toBe(otp);
      // The real TigerVNC viewer through the tunnel, with that password in a `vncpasswd -f` file: it
      // gets the desktop the server started (its name and size), and the same password again is refused.
      const desk = await startXvnc({ geometry: '1024x768' });
      const first = await runNativeViewer(port, listening.password, desk.x11Display);
      expect(first, first.log).toMatchObject({ kind: 'connected', width: 800, height: 600 });
      expect(first.kind === 'connected' && first.windowTitle).toMatch(new RegExp(`^TurboVNC: \\S+:${display} \\(.*\\) - TigerVNC$`));
      const again = await runNativeViewer(port, listening.password, desk.x11Display);
      expect(again, again.log).toMatchObject({ kind: 'refused' });
      expect(again.kind === 'refused' && again.reason).toMatch(/one-time password/i);
    } finally {
      tunnel.kill('SIGTERM');
      await new Promise((r) => tunnel.once('exit', r));
    }

    const k = await cli(['sessions', ...dest(bed), 'kill', String(display)]);
    expect(k.code, k.stderr).toBe(0);
    started.pop();
    // This session gone, socket and all: its number is free, and another test's desktop of the same
    // account may take it (and the same socket path) at once, so the socket is judged by who serves it.
    const after = JSON.parse((await cli(['sessions', ...dest(bed), 'list', '--json'])).stdout) as { display: number; pid: number }[];
    expect(after.find((x) => x.display === display && x.pid === mine[0].pid)).toBeUndefined();
    expect(fs.existsSync(`/proc/${mine[0].pid}`)).toBe(false);
    const successor = after.find((x) => x.display === display);
    if (!successor) expect(fs.existsSync(sock)).toBe(false);
  });

  it('usage errors: kill without N, display out of range, unknown action', async () => {
    const a = await cli(['sessions', ...dest(bed), 'kill']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/^error: kill needs the display number/m);
    const b = await cli(['sessions', ...dest(bed), 'kill', '100']);
    expect(b.code).toBe(1);
    expect(b.stderr).toMatch(/^error: Display 100 is out of range — give 0–99/m);
    const c = await cli(['sessions', ...dest(bed), 'reboot']);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/Unknown action "reboot"/);
  });
});

describe('gpu-desk setup', () => {
  it('--plan --json: every step with its commands, why, and whether it is already done', async () => {
    const r = await cli(['setup', ...dest(bed), '--plan', '--json', '--system-install']);
    expect(r.code, r.stderr).toBe(0);
    const p = JSON.parse(r.stdout);
    expect(p.distro).toBe('debian-12');
    expect(p.backend).toBe('none');
    const byId = Object.fromEntries(p.steps.map((s: { id: string }) => [s.id, s]));
    expect(byId['vnc-server'].status).toBe('done');
    for (const s of p.steps) {
      expect(s).toMatchObject({ id: expect.any(String), title: expect.any(String), why: expect.any(String), check: expect.any(String), apply: expect.any(String), needsRoot: expect.any(Boolean) });
    }
  });

  it('without sudo the plan installs into the home by itself: every step as the user, none done yet', async () => {
    const r = await cli(['setup', ...dest(bed), '--plan', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const p = JSON.parse(r.stdout);
    expect(p.userInstall).toEqual({ prefix: '~/.local/share/gpu-desk/turbovnc-3.3_virtualgl-3.1.4', diskMB: expect.any(Number), windowManager: expect.stringMatching(/^(openbox|existing)$/) });
    expect(p.steps.map((s: { id: string }) => s.id)).toEqual(expect.arrayContaining(['user-turbovnc', 'user-virtualgl', 'user-deps', 'user-env']));
    for (const s of p.steps) expect(s).toMatchObject({ needsRoot: false, status: 'pending' });
    const text = await cli(['setup', ...dest(bed), '--plan']);
    expect(text.stdout).toMatch(/^Set-up plan for debian-12: installs into your home \(~\/\.local\/share\/gpu-desk\/turbovnc-3\.3_virtualgl-3\.1\.4\); no administrator needed; about \d+ MB of disk space$/m);
    const both = await cli(['setup', ...dest(bed), '--plan', '--user-install', '--system-install']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/Say --user-install or --system-install, not both/);
  });

  it('--plan (human) shows every command and marks finished steps', async () => {
    const r = await cli(['setup', ...dest(bed), '--plan', '--system-install']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Set-up plan for debian-12');
    expect(r.stdout).toMatch(/Install TurboVNC .* — already done, will be skipped/);
    expect(r.stdout).toContain('install -y -q --no-install-recommends');
    expect(r.stdout).toContain('Why: ');
  });

  it('shim: --plan on a GPU server picks the GLX recipe with the GPU bus ID', async () => {
    const r = await cli(['setup', ...dest(shimBed), '--plan', '--system-install']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('render back end: GLX');
    expect(r.stdout).toContain('--busid PCI:7:0:0');
    expect(r.stdout).toMatch(/Install VirtualGL .* — already done/);
  });

  it('--apply asks before running anything: without a terminal it needs --yes', async () => {
    const r = await cli(['setup', ...dest(bed), '--apply']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('error: --apply without a terminal needs --yes (review the steps first with --plan) — see "gpu-desk setup --help"');
  });

  it('--apply on a terminal shows the plan and asks first; "n" runs nothing', async () => {
    // `script` gives the CLI a real pseudo-terminal, as a person at a shell would have.
    const cmd = [process.execPath, BIN, 'setup', ...dest(bed), '--apply', '--system-install', '--only', 'gl-libraries'].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const r = await new Promise<Result>((resolve) => {
      const p = spawn('script', ['-qec', cmd, '/dev/null'], { env: { ...process.env, GPU_DESK_HOME: home, HOME: home, SSH_AUTH_SOCK: '' } });
      let out = '';
      let answered = 0;
      p.stdout.on('data', (d) => {
        out += d;
        const tail = out.trimEnd();
        // A first connection on a terminal asks about the host key, as ssh does: accept it once.
        if (answered === 0 && tail.endsWith('[n]o:')) { answered = 1; p.stdin.write('o\n'); }
        if (answered < 2 && tail.endsWith('[y/N]')) { answered = 2; p.stdin.write('n\n'); }
      });
      p.on('exit', (code) => resolve({ code: code ?? -1, stdout: out, stderr: '' }));
    });
    expect(r.stdout).toContain('Install the OpenGL libraries');
    expect(r.stdout).toMatch(/Run 1 step\(s\) \(gl-libraries\) on .*\? \[y\/N\]/);
    expect(r.stdout).toContain('Nothing was run.');
    expect(r.stdout).not.toContain('running…');
    expect(r.stdout).not.toContain('[sudo] password');
    expect(r.code).toBe(1);
  });

  it('--apply on steps that are already done runs nothing and asks for no password', async () => {
    const r = await cli(['setup', ...dest(bed), '--apply', '--yes', '--system-install', '--only', 'vnc-server']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Nothing to do: every step is already done.');
    const j = await cli(['setup', ...dest(bed), '--apply', '--yes', '--json', '--system-install', '--only', 'vnc-server']);
    expect(j.code, j.stderr).toBe(0);
    expect(j.stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual([{ type: 'step-skip', stepId: 'vnc-server', index: 0, total: 1 }, { type: 'finished', ok: true, applied: [] }]);
    const bad = await cli(['setup', ...dest(bed), '--apply', '--yes', '--system-install', '--only', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--only nope: no such step \(steps: gl-libraries, (window-manager, )?virtualgl, vnc-server, vnc-localhost, ffmpeg, vulkan\)/);
  });
});
