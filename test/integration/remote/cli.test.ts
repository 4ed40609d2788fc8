/** `gpu-desk probe|sessions|setup` as real CLI processes (bin/gpu-desk.cjs) against the real bed sshd. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, makeTempDir, startSshd, type SshdBed } from '../../bed';

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
    expect(j.virtualgl.installed).toBe(false);
    expect(j.vnc.flavor).toBe('tigervnc');
    expect(j.vnc.version).toMatch(/^1\./);
    expect(Array.isArray(j.sessions)).toBe(true);
    for (const f of j.findings) expect(Object.keys(f)).toEqual(expect.arrayContaining(['severity', 'code', 'message', 'fix']));
    expect(j.findings.map((f: { code: string }) => f.code)).toContain('NO_NVIDIA_DRIVER');
  });

  it('the human report says what is wrong and how to fix it', async () => {
    const r = await cli(['probe', ...dest(bed)]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Debian GNU/Linux 12');
    expect(r.stdout).toContain('VNC server: TigerVNC');
    expect(r.stdout).toMatch(/error\s+No NVIDIA driver is running/);
    expect(r.stdout).toMatch(/Fix: /);
  });

  it('shim: on a GPU server (shims over SSH) it lists the GPUs and TurboVNC', async () => {
    const r = await cli(['probe', ...dest(shimBed), '--json'], { env: { GPU_DESK_REMOTE_OPT_ROOT: path.join(SHIMS, 'opt') } });
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.gpus.map((g: { name: string }) => g.name)).toEqual(['NVIDIA A100-SXM4-80GB', 'NVIDIA A100-SXM4-80GB']);
    expect(j.vnc).toMatchObject({ flavor: 'turbovnc', version: '3.1.1' });
    expect(j.virtualgl.installed).toBe(true);
    const human = await cli(['probe', ...dest(shimBed)], { env: { GPU_DESK_REMOTE_OPT_ROOT: path.join(SHIMS, 'opt') } });
    expect(human.stdout).toContain('GPUs (driver 535.183.01):');
    expect(human.stdout).toContain('1  NVIDIA A100-SXM4-80GB  (80 GiB, 18213 MiB used, 97% busy)');
    expect(human.stdout).toContain('VNC server: TurboVNC 3.1.1');
    expect(human.stdout).toMatch(/error\s+Only VirtualGL's GLX back end is possible here/);
  });

  it('bad usage is one line naming the fix', async () => {
    const r = await cli(['probe']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toMatch(/^error: The destination is missing — see "gpu-desk probe --help"$/);
  });
});

describe('gpu-desk sessions', () => {
  it('start --json → list --json shows it on localhost → kill → gone', async () => {
    const s = await cli(['sessions', ...dest(bed), 'start', '--geometry', '800x600', '--wm', '/usr/bin/xterm', '--json']);
    expect(s.code, s.stderr).toBe(0);
    const info = JSON.parse(s.stdout);
    started.push({ bed: () => bed, display: info.display });
    expect(info).toMatchObject({ flavor: 'tigervnc', port: 5900 + info.display, localhostOnly: true, passwordKind: 'session' });
    expect(info.password).toMatch(/^[A-Za-z0-9]{8}$/);

    const l = await cli(['sessions', ...dest(bed), 'list', '--json']);
    expect(l.code, l.stderr).toBe(0);
    const list = JSON.parse(l.stdout);
    expect(list.find((x: { display: number }) => x.display === info.display)).toMatchObject({ port: info.port, localhostOnly: true });
    // The listing never carries a password.
    expect(l.stdout).not.toContain(info.password);

    const human = await cli(['sessions', ...dest(bed), 'list']);
    expect(human.stdout).toContain(`:${info.display}  port ${info.port}  TigerVNC`);
    expect(human.stdout).toContain('localhost only');

    const k = await cli(['sessions', ...dest(bed), 'kill', String(info.display)]);
    expect(k.code, k.stderr).toBe(0);
    expect(k.stdout).toContain(`Session :${info.display} stopped.`);
    started.pop();
    const after = JSON.parse((await cli(['sessions', ...dest(bed), 'list', '--json'])).stdout);
    expect(after.find((x: { display: number }) => x.display === info.display)).toBeUndefined();
  });

  it('shim: TurboVNC start prints a one-time password', async () => {
    const env = { GPU_DESK_REMOTE_OPT_ROOT: path.join(SHIMS, 'opt') };
    const s = await cli(['sessions', ...dest(shimBed), 'start', '--wm', 'xterm'], { env });
    expect(s.code, s.stderr).toBe(0);
    const display = Number(/Started :(\d+)/.exec(s.stdout)?.[1]);
    started.push({ bed: () => shimBed, display });
    expect(s.stdout).toMatch(/TurboVNC/);
    expect(s.stdout).toMatch(/One-time password \(valid for one connection\): \d{8}/);
    const k = await cli(['sessions', ...dest(shimBed), 'kill', String(display)], { env });
    expect(k.code, k.stderr).toBe(0);
    started.pop();
  });

  it('usage errors: kill without N, display out of range, unknown action', async () => {
    const a = await cli(['sessions', ...dest(bed), 'kill']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/^error: kill needs the display number/m);
    const b = await cli(['sessions', ...dest(bed), 'kill', '100']);
    expect(b.code).toBe(1);
    expect(b.stderr).toMatch(/^error: Display "100" is not a display number — use a number from 0 to 99/m);
    const c = await cli(['sessions', ...dest(bed), 'reboot']);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/Unknown action "reboot"/);
  });
});

describe('gpu-desk setup', () => {
  it('--plan --json: every step with its commands, why, and whether it is already done', async () => {
    const r = await cli(['setup', ...dest(bed), '--plan', '--json']);
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

  it('--plan (human) shows every command and marks finished steps', async () => {
    const r = await cli(['setup', ...dest(bed), '--plan']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Set-up plan for debian-12');
    expect(r.stdout).toMatch(/Install TurboVNC .* — already done, will be skipped/);
    expect(r.stdout).toContain('install -y -q --no-install-recommends');
    expect(r.stdout).toContain('Why: ');
  });

  it('shim: --plan on a GPU server picks the GLX recipe with the GPU bus ID', async () => {
    const r = await cli(['setup', ...dest(shimBed), '--plan'], { env: { GPU_DESK_REMOTE_OPT_ROOT: path.join(SHIMS, 'opt') } });
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
    const cmd = [process.execPath, BIN, 'setup', ...dest(bed), '--apply', '--only', 'window-manager'].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
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
    expect(r.stdout).toContain('Install a light desktop (Xfce)');
    expect(r.stdout).toMatch(/Run 1 step\(s\) \(window-manager\) on .*\? \[y\/N\]/);
    expect(r.stdout).toContain('Nothing was run.');
    expect(r.stdout).not.toContain('running…');
    expect(r.stdout).not.toContain('[sudo] password');
    expect(r.code).toBe(1);
  });

  it('--apply on steps that are already done runs nothing and asks for no password', async () => {
    const r = await cli(['setup', ...dest(bed), '--apply', '--yes', '--only', 'vnc-server']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Nothing to do: every step is already done.');
    const j = await cli(['setup', ...dest(bed), '--apply', '--yes', '--json', '--only', 'vnc-server']);
    expect(j.code, j.stderr).toBe(0);
    expect(j.stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual([{ type: 'step-skip', stepId: 'vnc-server', index: 0, total: 1 }, { type: 'finished', ok: true, applied: [] }]);
    const bad = await cli(['setup', ...dest(bed), '--apply', '--yes', '--only', 'nope']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--only nope: no such step \(steps: gl-libraries, (window-manager, )?virtualgl, vnc-server, vnc-localhost\)/);
  });
});
