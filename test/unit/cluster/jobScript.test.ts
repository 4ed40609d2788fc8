import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildJob } from '../../../src/core/cluster/jobScript';
import { shellCommand, shellQuote } from '../../../src/core/remote/shellQuote';

describe('the desktop job script', () => {
  it('every profile setting becomes one sbatch word; the job is named for finding it again', () => {
    const j = buildJob({ partition: 'gpu', account: 'proj', qos: 'normal', time: '2:00:00', gres: 'gpu:a100:2', cpus: 8, mem: '32G', constraint: 'a100', extraSbatch: ['--reservation=demo'] }, 'hpc1');
    expect(j.sbatchArgs).toEqual([
      '--parsable', '--job-name=gpu-desk', '--comment=gpu-desk desktop', '--output=.gpu-desk/jobs/hpc1/%j.out', '--nodes=1', '--ntasks=1',
      '--partition=gpu', '--account=proj', '--qos=normal', '--time=2:00:00', '--gres=gpu:a100:2', '--cpus-per-task=8', '--mem=32G',
      '--constraint=a100', '--reservation=demo',
    ]);
    expect(j.shown.split('\n')[0]).toBe(`${shellCommand(['sbatch', ...j.sbatchArgs])} <<'EOF'`);
    expect(j.script).toMatch(/^#!\/bin\/bash\n/);
    expect(j.script).toContain('-securitytypes OTP');
    execFileSync('bash', ['-n'], { input: j.script });
  });

  it('job files are keyed by cluster: the output under the ClusterName asked of the login node, the directory under the job\'s SLURM_CLUSTER_NAME', () => {
    expect(buildJob({}, 'hpc1').sbatchArgs).toContain('--output=.gpu-desk/jobs/hpc1/%j.out');
    // Shown before connecting: the cluster's name is not known yet, and the placeholder says so.
    expect(buildJob({}).sbatchArgs).toContain('--output=.gpu-desk/jobs/<cluster>/%j.out');
    expect(buildJob({}).script).toContain('dir="$HOME/.gpu-desk/jobs/$SLURM_CLUSTER_NAME/$SLURM_JOB_ID"');
    for (const bad of ['../x', 'a/b', '', '.', 'x y', '$(id)']) expect(() => buildJob({}, bad), bad).toThrow(/cannot name a directory/);
  });

  it('a display counts as taken by an X server here, a listener on its ports or a live vncserver pid file, not by stale pid files of this node or others', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-taken-'));
    try {
      const script = buildJob({}).script;
      const fn = script.slice(script.indexOf('vhost=$(uname -n)'), script.indexOf('try=1; min=1'));
      const vnc = path.join(home, '.vnc');
      fs.mkdirSync(vnc);
      const host = os.hostname();
      // A display number no X server here uses, so only the pid files decide.
      const free = [...Array(400).keys()].map((i) => 600 + i).filter((n) => !fs.existsSync(`/tmp/.X${n}-lock`) && !fs.existsSync(`/tmp/.X11-unix/X${n}`));
      const [live, stale, elsewhere, none, renamed] = free;
      fs.writeFileSync(path.join(vnc, `${host}:${live}.pid`), `${process.pid}\n`);
      fs.writeFileSync(path.join(vnc, `${host}:${stale}.pid`), '2147483646\n');
      // Jobs on other nodes killed after KillWait leave files in the shared home: dead pids here.
      fs.writeFileSync(path.join(vnc, `othernode:${elsewhere}.pid`), '2147483645\n');
      // A live session whose file the wrapper named otherwise (its host name, not uname -n) still counts.
      fs.writeFileSync(path.join(vnc, `${host}.example.org:${renamed}.pid`), `${process.pid}\n`);
      const out = execFileSync('bash', ['-c', `${fn}\nfor n in "$@"; do taken "$n" && echo "$n taken" || echo "$n free"; done`, 'x', String(live), String(stale), String(elsewhere), String(none), String(renamed)], { encoding: 'utf8', env: { ...process.env, HOME: home } });
      expect(out.trim().split('\n')).toEqual([`${live} taken`, `${stale} free`, `${elsewhere} free`, `${none} free`, `${renamed} taken`]);
      // Something listening on the display's VNC port (a tunnel, say) makes TurboVNC refuse it: skipped too.
      const port = free.slice(5).map((n) => 5900 + n).find((p) => !execFileSync('bash', ['-c', 'cat /proc/net/tcp /proc/net/tcp6'], { encoding: 'utf8' }).toUpperCase().includes(`:${p.toString(16).toUpperCase().padStart(4, '0')} `))!;
      const server = net.createServer().listen(port, '127.0.0.1');
      try {
        await new Promise((r) => server.once('listening', r));
        const n = String(port - 5900);
        expect(execFileSync('bash', ['-c', `${fn}\ntaken "$1" && echo taken || echo free`, 'x', n], { encoding: 'utf8', env: { ...process.env, HOME: home } }).trim()).toBe('taken');
      } finally {
        server.close();
      }
      // An X server's abstract socket alone (its /tmp files elsewhere) also takes the display.
      const unix = fs.readFileSync('/proc/net/unix', 'utf8');
      const abs = free.slice(5).find((n) => !unix.includes(`@/tmp/.X11-unix/X${n}\n`))!;
      const x = net.createServer().listen(`\0/tmp/.X11-unix/X${abs}`);
      try {
        await new Promise((r) => x.once('listening', r));
        expect(execFileSync('bash', ['-c', `${fn}\ntaken "$1" && echo taken || echo free`, 'x', String(abs)], { encoding: 'utf8', env: { ...process.env, HOME: home } }).trim()).toBe('taken');
      } finally {
        x.close();
      }
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('the user\'s own lines run first, as written', () => {
    const j = buildJob({ preamble: ['module load VirtualGL TurboVNC', '', 'export FOO=1'] });
    const lines = j.script.split('\n');
    expect(lines.indexOf('module load VirtualGL TurboVNC')).toBeLessThan(lines.findIndex((l) => l.startsWith('geometry=')));
    expect(lines).toContain('export FOO=1');
  });

  it('hostile values are inert: quoted in the shown sbatch line and in the script\'s assignments', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-jobscript-'));
    const mark = path.join(dir, 'x');
    const hostile = {
      partition: `gpu; touch ${mark}`,
      time: `$(touch ${mark})`,
      account: `\`touch ${mark}\``,
      windowManager: `x'; touch ${mark}; '`,
      optRoot: `/opt"$(touch ${mark})"`,
    };
    const j = buildJob(hostile);
    expect(j.sbatchArgs).toContain(`--partition=gpu; touch ${mark}`);
    expect(j.sbatchArgs).toContain(`--time=$(touch ${mark})`);
    // The shown command line, run by a shell with sbatch replaced by printf, hands each value over whole.
    const line = j.shown.split('\n')[0].replace(/ <<'EOF'$/, '').replace(/^sbatch /, 'printf "%s\\n" ');
    const words = execFileSync('bash', ['-c', line], { encoding: 'utf8' }).trimEnd().split('\n');
    expect(words).toEqual(j.sbatchArgs);
    // The script's assignments give back the very values, and nothing ran.
    const assigns = j.script.split('\n').filter((l) => /^(geometry|wm|access|opt)=/.test(l)).join('\n');
    const back = execFileSync('bash', ['-c', `${assigns}\nprintf '%s\\n' "$wm" "$opt"`], { encoding: 'utf8' }).trimEnd().split('\n');
    expect(back).toEqual([hostile.windowManager, hostile.optRoot]);
    expect(fs.existsSync(mark)).toBe(false);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('refuses what cannot be one word: a geometry that is not WxH, a line break, a non-option', () => {
    expect(() => buildJob({ geometry: '1920x1080; id' })).toThrow(/not a screen size/);
    expect(() => buildJob({ partition: 'gpu\nid' })).toThrow(/line break/);
    expect(() => buildJob({ extraSbatch: ['id'] })).toThrow(/not an sbatch option/);
    // Options that would lose the job or its files: refused, each with why.
    expect(() => buildJob({ extraSbatch: ['--clusters=other'] })).toThrow(/another cluster/);
    expect(() => buildJob({ extraSbatch: ['-Mother'] })).toThrow(/another cluster/);
    expect(() => buildJob({ extraSbatch: ['--job-name=x'] })).toThrow(/finds its desktops by/);
    expect(() => buildJob({ extraSbatch: ['--output=/tmp/x'] })).toThrow(/output away/);
    expect(() => buildJob({ extraSbatch: ['--chdir=/scratch'] })).toThrow(/output away/);
    expect(() => buildJob({ extraSbatch: ['--array=1-4'] })).toThrow(/one desktop job/);
    // Options that merely look alike pass.
    expect(buildJob({ extraSbatch: ['--exclusive', '--mail-type=END', '--open-mode=append', '--cluster-constraint=x', '-vH'] }).sbatchArgs).toEqual(expect.arrayContaining(['--exclusive', '--mail-type=END', '--open-mode=append', '--cluster-constraint=x', '-vH']));
  });

  /** Issue 40 §2: what sbatch's getopt_long reads as a refused option, however it is spelled. */
  const BYPASSES: [string, RegExp][] = [
    ['--export-f=/tmp/env', /environment/],
    ['--export-file=/tmp/env', /environment/],
    ['--exp=ALL,LD_PRELOAD=/tmp/x.so', /environment/],
    ['--get-u', /environment/],
    ['--job-n=x', /finds its desktops by/],
    ['--comm=x', /finds its desktops by/],
    ['--out=/tmp/x', /output away/],
    ['--err=/tmp/x', /output away/],
    ['--ch=/tmp', /output away/],
    ['--clust=other', /another cluster/],
    ['--arr=1-4', /one desktop job/],
    ['--wr=id', /one desktop job/],
    ['-vo/tmp/x', /output away/],
    ['-Qve/tmp/x', /output away/],
    ['-HvJx', /finds its desktops by/],
    ['-vMother', /another cluster/],
    ['-sa1-4', /one desktop job/],
    ['--', /not an sbatch option/],
    ['--=x', /would/],
  ];

  it('refused options are refused in every spelling sbatch reads: abbreviations and short-option bundles', () => {
    for (const [word, why] of BYPASSES) expect(() => buildJob({ extraSbatch: [word] }), word).toThrow(why);
    // A value that merely contains a refused letter is a value: -p takes the rest of the word.
    expect(buildJob({ extraSbatch: ['-pgpuoe'] }).sbatchArgs).toContain('-pgpuoe');
  });

  it('the real sbatch (slurm-wlm 22.05) accepts each bypass spelling as an option, so each one really was a way round', () => {
    // --test-only with an empty script: sbatch parses every option, then stops at the empty script.
    const conf = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gd-sbatch-')), 'slurm.conf');
    fs.writeFileSync(conf, 'ClusterName=parse\nSlurmctldHost=localhost\n');
    const parse = (word: string) => spawnSync('sbatch', [word, '--test-only', '/dev/null'], { env: { ...process.env, SLURM_CONF: conf }, encoding: 'utf8' }).stderr;
    for (const [word] of BYPASSES.filter(([w]) => w.length > 2 && !w.startsWith('--=') && !w.startsWith('--wr') && !w.startsWith('--exp=') && !w.startsWith('--clust'))) {
      expect(parse(word), word).toMatch(/Batch script is empty/);
    }
    // Where sbatch itself finds an abbreviation ambiguous it refuses it too: no way round either.
    expect(parse('--exp=ALL')).toMatch(/ambiguous/);
    expect(parse('--clust=other')).toMatch(/ambiguous/);
    fs.rmSync(path.dirname(conf), { recursive: true, force: true });
  });
});

describe('the TurboVNC start shared by server desktops and jobs (remote/turboVncArgs.ts)', () => {
  /** The job script's own vncserver arguments, got by running its start with vncserver replaced by printf. */
  function jobArgs(settings: Parameters<typeof buildJob>[0]): string[] {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-turboargs-'));
    try {
      const script = buildJob(settings).script;
      const start = script.indexOf('set -- ":$n" -securitytypes OTP');
      const end = script.indexOf('"$vnc/vncserver" "$@"');
      const head = script.split('\n').filter((l) => /^(geometry|wm|access|opt)=/.test(l)).join('\n');
      const run = `${head}\nn=7; dir=${dir}; geom="$geometry"; xsdir="$dir"; vgl=""; loopback=""; unixsock=""\n` +
        `if [ "$access" = ssh ]; then loopback=1; unixsock="$dir/vnc.sock"; fi\n${script.slice(start, end)}\nprintf '%s\\n' "$@"`;
      return execFileSync('bash', ['-c', run], { encoding: 'utf8' }).trimEnd().split('\n').map((w) => w.replace(dir, 'DIR'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }

  it('ssh access: OTP only, loopback only, the 0600 socket in the job directory, in the foreground', () => {
    expect(jobArgs({ geometry: '1280x720' })).toEqual([':7', '-securitytypes', 'OTP', '-geometry', '1280x720', '-alr', '0.5', '-localhost', '-rfbunixpath', 'DIR/vnc.sock', '-rfbunixmode', '0600', '-noxstartup', '-fg']);
  });

  it('login-forward: TCP beyond loopback (the login node connects) with OTP as the only way in', () => {
    expect(jobArgs({ nodeAccess: 'login-forward' })).toEqual([':7', '-securitytypes', 'OTP', '-geometry', '1920x1080', '-alr', '0.5', '-noxstartup', '-fg']);
  });

  it('a window manager without a session file starts through an xstartup in the job\'s own directory', () => {
    expect(jobArgs({ windowManager: 'no-such-wm-here' })).toEqual([':7', '-securitytypes', 'OTP', '-geometry', '1920x1080', '-alr', '0.5', '-localhost', '-rfbunixpath', 'DIR/vnc.sock', '-rfbunixmode', '0600', '-xstartup', 'DIR/gpu-desk-xstartup', '-fg']);
  });
  it('the clean-up finishes even when Slurm\'s TERM reaches the shell in the middle of it (the desktop had already ended)', async () => {
    // The job's stop() and traps, as submitted. The X server's pid file is a FIFO, so stop() blocks
    // reading it until this test writes: the TERM lands inside the clean-up, deterministically.
    const script = buildJob({}).script;
    const from = script.indexOf('stop() {');
    const to = script.indexOf("trap 'stop $?' EXIT");
    expect(from).toBeGreaterThan(0);
    expect(to).toBeGreaterThan(from);
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-jobstop-'));
    try {
      const dir = path.join(home, 'job');
      fs.mkdirSync(dir);
      for (const f of ['connection', 'vnc.log', 'otp']) fs.writeFileSync(path.join(dir, f), 'x');
      fs.mkdirSync(path.join(home, '.vnc'));
      const fifo = path.join(home, '.vnc', 'node:5.pid');
      execFileSync('mkfifo', [fifo]);
      const body = `dir=${shellQuote(dir)}; n=5; pid=""; vhost=node; vnc=/nonexistent\n${script.slice(from, to + "trap 'stop $?' EXIT".length)}\nexit 0\n`;
      const sh = spawn('bash', ['-c', body], { env: { ...process.env, HOME: home }, stdio: 'ignore' });
      const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => sh.once('exit', (code, signal) => r({ code, signal })));
      // The clean-up is reading the pid file once the FIFO has a reader.
      let fd = -1;
      while (fd < 0) {
        try { fd = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK); } catch { await new Promise((r) => setTimeout(r, 20)); }
      }
      sh.kill('SIGTERM');
      // The pid arrives only once the shell has taken the signal: none pending any more (an ignored TERM
      // is dropped as it is sent; a default one ends the shell, and this test with it).
      const pending = () => {
        try {
          const st = fs.readFileSync(`/proc/${sh.pid}/status`, 'utf8');
          // Bit 15 (SIGTERM) of the pending masks, counted from bit 1.
          return [...st.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gm)].some((m) => ((BigInt(`0x${m[1]}`) >> 14n) & 1n) === 1n);
        } catch { return false; }
      };
      while (pending()) await new Promise((r) => setTimeout(r, 10));
      fs.writeSync(fd, '999999\n');
      fs.closeSync(fd);
      expect(await ended).toEqual({ code: 0, signal: null });
      expect(fs.existsSync(dir)).toBe(false);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
