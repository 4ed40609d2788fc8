/**
 * Applying the set-up plan on the real bed through a real `sudo -S`: idempotence, the sudo password's
 * path (stdin only, never in commands, output, events, results or logs), and a connection that drops
 * mid-step. Needs root to give the bed account sudo rights for the duration of the file.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { cleanupAll, freeXDisplay, isRoot, makeTempDir, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import type { ExecOptions, SshSession } from '../../../src/core/ssh/types';
import { probeServer } from '../../../src/core/remote/probe';
import { buildSetupPlan } from '../../../src/core/remote/setupPlan';
import { applyPlan, checkPlan } from '../../../src/core/remote/planRunner';
import { atomicWriteScript } from '../../../src/core/remote/remoteFile';
import type { PlanProgress, SetupPlan } from '../../../src/core/remote/types';

/** Wait until no process on this machine has `needle` in its command line (the test runs as root, so /proc shows all). */
async function waitForNoProcessNaming(needle: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const alive = (): number[] => fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid).filter((d) => {
    try { return fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(needle); } catch { return false; }
  }).map(Number);
  let left = alive();
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((x) => setTimeout(x, 100));
    left = alive();
  }
  if (left.length > 0) throw new Error(`processes naming ${needle} still running after ${timeoutMs} ms: ${left.join(', ')}`);
}

const TIGER_CONF = '/etc/tigervnc/vncserver-config-mandatory';
const SUDOERS = `/etc/sudoers.d/gpu-desk-test-${process.pid}`;
const LOCALHOST_LINE = '$localhost = "yes";';

let bed: SshdBed;
let conn: SshConnection;
const logLines: string[] = [];
let originalConf: string | null = null;

if (!isRoot) {
  console.log('apply.test.ts: not running as root, so the bed account cannot be given sudo rights; these tests cannot run here');
}

/** TigerVNC's mandatory config without our line: Debian ships it all comments, and a run killed before its afterAll must not pass its line on. */
function withoutOurLine(conf: string): string {
  return conf.split('\n').filter((l) => l !== LOCALHOST_LINE).join('\n');
}

// Both blocks below start from TigerVNC's config as the distribution ships it, and a run killed earlier
// (its afterAll never ran) leaves neither its line nor its sudo rights behind for this one.
beforeAll(() => {
  if (!isRoot) return;
  for (const f of fs.readdirSync(path.dirname(SUDOERS))) {
    const pid = /^gpu-desk-test-(\d+)$/.exec(f)?.[1];
    if (pid && Number(pid) !== process.pid && !fs.existsSync(`/proc/${pid}`)) fs.rmSync(path.join(path.dirname(SUDOERS), f), { force: true });
  }
  originalConf = fs.existsSync(TIGER_CONF) ? withoutOurLine(fs.readFileSync(TIGER_CONF, 'utf8')) : null;
  if (originalConf !== null) fs.writeFileSync(TIGER_CONF, originalConf);
});
afterAll(() => {
  if (!isRoot) return;
  if (originalConf === null) fs.rmSync(TIGER_CONF, { force: true });
  else fs.writeFileSync(TIGER_CONF, originalConf);
});

// Here rather than in bed.test.ts: the plan below forces TigerVNC onto localhost system-wide for a while,
// and tests inside one file run in order.
describe('a VNC session started by hand on all interfaces (real bed)', () => {
  it('is reported with its display, port and address', async () => {
    const b = await startSshd();
    const c = await connectSsh(bedOptions(b));
    // Another test file may take the same free display between freeXDisplay() and our Xvnc binding it
    // (their Xvnc on 127.0.0.1:5900+n would then be the one listed). The display is ours when its X lock
    // holds the pid in our vncserver's pid file: the server's own record of who owns :n.
    let n = -1;
    let ownPid = 0;
    const tried: string[] = [];
    for (let attempt = 0; attempt < 5 && !ownPid; attempt++) {
      n = await freeXDisplay();
      const r = await c.exec(`vncserver :${n} -localhost no -SecurityTypes None --I-KNOW-THIS-IS-INSECURE -xstartup /usr/bin/xterm`);
      const pids = await c.exec(`cat ~/.vnc/*:${n}.pid 2>/dev/null || echo -; cat /tmp/.X${n}-lock 2>/dev/null || echo -`);
      const [ours, lock] = pids.stdout.trim().split(/\s+/).map((w) => Number.parseInt(w, 10));
      if (r.code === 0 && ours > 0 && ours === lock) ownPid = ours;
      else {
        // Nothing is killed here: :n belongs to whoever holds its X lock (another test file's desktop, on
        // this same account), and our own Xvnc lost the race and is gone.
        tried.push(`:${n} (exit ${r.code}, pid file ${ours}, X lock ${lock}): ${r.stderr.trim().split('\n').pop() ?? ''}`);
      }
    }
    try {
      expect(ownPid, `no display of our own after 5 tries: ${tried.join('; ')}`).toBeGreaterThan(0);
      const report = await probeServer(c);
      expect(report.sessions.find((s) => s.display === n)).toMatchObject({ port: 5900 + n, pid: ownPid, localhostOnly: false });
      const f = report.findings.find((x) => x.code === 'SESSION_LISTENS_ON_ALL_INTERFACES' && x.message.includes(`:${n} `));
      expect(f?.severity).toBe('error');
      expect(f?.message).toContain(String(5900 + n));
      expect(f?.message).toMatch(/0\.0\.0\.0|::/);
    } finally {
      if (ownPid) await c.exec(`vncserver -kill :${n}`);
      await c.close();
    }
  });
});

/**
 * These steps edit TigerVNC's mandatory config: the plan is made as for a server without TurboVNC (an
 * install prefix where it is absent), since with TurboVNC present vnc-localhost would edit its
 * machine-wide security file instead, which every other test run on this machine shares.
 */
const NO_TURBOVNC = '/nonexistent-opt';

describe.runIf(isRoot)('apply the plan on the real bed (real sudo -S)', () => {
  beforeAll(async () => {
    fs.writeFileSync(SUDOERS, 'gdtest ALL=(ALL:ALL) ALL\n', { mode: 0o440 });
    bed = await startSshd();
    conn = await connectSsh(bedOptions(bed, { log: (l) => logLines.push(l) }));
  });
  afterAll(async () => {
    fs.rmSync(SUDOERS, { force: true });
    await conn?.close();
    await cleanupAll();
  });

  it('idempotence: the steps that can run here apply once through sudo; a second apply runs no apply at all', async () => {
    const plan = buildSetupPlan(await probeServer(conn, { optRoot: NO_TURBOVNC }), { optRoot: NO_TURBOVNC });
    const only = ['vnc-server', 'vnc-localhost'];
    const before = await checkPlan(conn, plan);
    expect(before['vnc-server']).toBe('done');
    expect(before['vnc-localhost']).toBe('pending');

    const events: PlanProgress[] = [];
    const first = await applyPlan(conn, plan, { sudoPassword: bed.password!, only, onProgress: (e) => events.push(e) });
    expect(first.error).toBeUndefined();
    expect(first.ok).toBe(true);
    expect(first.steps.map((s) => [s.id, s.status])).toEqual([['vnc-server', 'skipped'], ['vnc-localhost', 'applied']]);
    expect(events.filter((e) => e.type === 'step-start').map((e) => e.stepId)).toEqual(['vnc-localhost']);
    expect(events.find((e) => e.type === 'step-done')?.stepId).toBe('vnc-localhost');

    // Written as root (sudo ran), atomically, with the line before the final "1;".
    const conf = fs.readFileSync(TIGER_CONF, 'utf8').split('\n').filter(Boolean);
    expect(conf.filter((l) => l === LOCALHOST_LINE)).toHaveLength(1);
    if (originalConf !== null) expect(fs.readFileSync(TIGER_CONF, 'utf8').startsWith(originalConf.replace(/\n*$/, ''))).toBe(true);
    expect(fs.statSync(TIGER_CONF).uid).toBe(0);
    expect(fs.readdirSync('/etc/tigervnc').filter((n) => n.startsWith('.gpu-desk'))).toEqual([]);

    // The setting takes effect: a session started by hand asking for all interfaces stays on localhost.
    // Other test files start Xvnc on random displays at the same time: retry past a display just taken.
    let n = 0;
    let hand = { code: null as number | null, stderr: '' };
    for (let attempt = 0; attempt < 8; attempt++) {
      n = 60 + Math.floor(Math.random() * 30);
      if (fs.existsSync(`/tmp/.X${n}-lock`) || fs.existsSync(`/tmp/.X11-unix/X${n}`)) continue;
      hand = await conn.exec(`vncserver :${n} -localhost no -SecurityTypes None --I-KNOW-THIS-IS-INSECURE -xstartup /usr/bin/xterm`);
      if (hand.code === 0 || !/already running/.test(hand.stderr)) break;
    }
    expect(hand.code, hand.stderr).toBe(0);
    const s = (await probeServer(conn)).sessions.find((x) => x.display === n);
    await conn.exec(`vncserver -kill :${n}`);
    expect(s?.localhostOnly).toBe(true);

    const again: PlanProgress[] = [];
    const second = await applyPlan(conn, plan, { sudoPassword: bed.password!, only, onProgress: (e) => again.push(e) });
    expect(second.ok).toBe(true);
    expect(second.steps.every((s) => s.status === 'skipped')).toBe(true);
    expect(again.some((e) => e.type === 'step-start')).toBe(false);
    // Without a password too: nothing needs root when nothing runs.
    expect((await applyPlan(conn, plan, { only })).ok).toBe(true);
  });

  it('the sudo password goes only to sudo on stdin: never in commands, output, events, results or logs', async () => {
    const password = bed.password!;
    const commands: string[] = [];
    const stdins: string[] = [];
    const recording: SshSession = {
      get state() { return conn.state; },
      get endpoint() { return conn.endpoint; },
      get rttMs() { return conn.rttMs; },
      exec: (cmd: string, o?: ExecOptions) => {
        commands.push(cmd);
        if (o?.stdin !== undefined) stdins.push(String(o.stdin));
        return conn.exec(cmd, o);
      },
      forwardOut: (h, p) => conn.forwardOut(h, p),
      forwardOutUnix: (p) => conn.forwardOutUnix(p),
    };
    const marker = `${bed.home}/gd-root-step-${process.pid}`;
    const plan: SetupPlan = {
      distro: 'debian-12',
      backend: 'none',
      notes: [],
      steps: [{
        id: 'as-root',
        title: 'A step that needs root and talks a lot',
        why: 'test',
        check: `[ -e ${marker} ]`,
        // Tries to read stdin (where the password came from) and prints what it got.
        apply: `id -u; echo "stdin: $(cat 2>&1)"; env | sort; touch ${marker}`,
        needsRoot: true,
      }],
    };
    const events: PlanProgress[] = [];
    const res = await applyPlan(recording, plan, { sudoPassword: password, onProgress: (e) => events.push(e) });
    expect(res.ok).toBe(true);
    expect(res.steps[0].output).toMatch(/^0\n/);
    expect(res.steps[0].output).toContain('stdin: \n');
    expect(fs.statSync(marker).uid).toBe(0);
    fs.rmSync(marker);

    // Twice, both times to sudo: once on its own (sudo -v, before anything runs as root), then for the step.
    expect(stdins).toEqual([`${password}\n`, `${password}\n`]);
    const everything = [
      ...commands,
      JSON.stringify(res),
      JSON.stringify(events),
      ...logLines,
      fs.readFileSync(bed.logPath, 'utf8'),
    ].join('\n');
    expect(everything).not.toContain(password);

    const wrong = await applyPlan(conn, plan, { sudoPassword: 'not-the-password' });
    expect(wrong.ok).toBe(false);
    expect(wrong.error?.code).toBe('SUDO_FAILED');
    expect(wrong.error?.message).toContain('refused the password');
    // Said once, plainly: not sudo's second prompt finding no input ("no password was provided"), which read as if none was sent.
    expect(JSON.stringify(wrong)).not.toMatch(/no password was provided|Sorry, try again/);
    expect(wrong.steps[0].output).toBe('');
    expect(JSON.stringify(wrong)).not.toContain('not-the-password');
    expect(fs.existsSync(marker)).toBe(false);

    const none = await applyPlan(conn, plan, {});
    expect(none.error?.code).toBe('SUDO_FAILED');
    expect(none.error?.fix).toMatch(/sudo password/);
  });

  it('NOPASSWD sudo: root steps run with no password at all', async () => {
    fs.writeFileSync(SUDOERS, 'gdtest ALL=(ALL:ALL) NOPASSWD: ALL\n', { mode: 0o440 });
    const marker = `${bed.home}/gd-nopasswd-${process.pid}`;
    try {
      const plan: SetupPlan = {
        distro: 'debian-12', backend: 'none', notes: [],
        steps: [{ id: 'np', title: 'Root without a password', why: 't', check: `[ -e ${marker} ]`, apply: `touch ${marker}`, needsRoot: true }],
      };
      const r = await applyPlan(conn, plan);
      expect(r.error).toBeUndefined();
      expect(fs.statSync(marker).uid).toBe(0);
    } finally {
      fs.writeFileSync(SUDOERS, 'gdtest ALL=(ALL:ALL) ALL\n', { mode: 0o440 });
      fs.rmSync(marker, { force: true });
    }
  });

  it('a failing step stops the run with its output and the fix; later steps do not run', async () => {
    const plan: SetupPlan = {
      distro: 'debian-12',
      backend: 'none',
      notes: [],
      steps: [
        { id: 'breaks', title: 'A step that fails', why: 't', check: 'false', apply: 'echo "E: Unable to locate package nope" >&2; exit 100', needsRoot: false },
        { id: 'after', title: 'Never reached', why: 't', check: 'false', apply: 'true', needsRoot: false },
      ],
    };
    const res = await applyPlan(conn, plan);
    expect(res.ok).toBe(false);
    expect(res.error).toMatchObject({ code: 'PLAN_STEP_FAILED', stepId: 'breaks' });
    expect(res.error?.message).toContain('exit status 100');
    expect(res.error?.message).toContain('Unable to locate package nope');
    expect(res.steps.map((s) => s.status)).toEqual(['failed', 'not-run']);

    const lying: SetupPlan = { ...plan, steps: [{ id: 'noop', title: 'Does nothing', why: 't', check: 'false', apply: 'true', needsRoot: false }] };
    const r2 = await applyPlan(conn, lying);
    expect(r2.error?.message).toMatch(/its check still fails/);
  });

  it('a connection that drops mid-step: a clear error and no half-written config file', async () => {
    const bed2 = await startSshd();
    const c2 = await connectSsh(bedOptions(bed2));
    const target = `${bed2.home}/gd-drop-${process.pid}.conf`;
    fs.writeFileSync(target, 'old = 1\n');
    fs.chownSync(target, fs.statSync(bed2.home).uid, fs.statSync(bed2.home).gid);
    // The bed account's home outlives this run: leave neither the target nor a temp file beside it, pass or fail.
    onTestFinished(() => {
      for (const n of fs.readdirSync(bed2.home)) if (n === path.basename(target) || n.startsWith(`.${path.basename(target)}.gpu-desk.`)) fs.rmSync(path.join(bed2.home, n), { force: true });
    });
    const content = Array.from({ length: 2000 }, (_, i) => `key${i} = value ${i}`).join('\n') + '\n';
    const plan: SetupPlan = {
      distro: 'debian-12',
      backend: 'none',
      notes: [],
      steps: [{
        id: 'slow-config',
        title: 'Write a config file slowly',
        why: 't',
        check: `grep -qx 'key1999 = value 1999' ${target}`,
        apply: atomicWriteScript(target, content, { beforeCommit: 'sleep 2' }),
        needsRoot: false,
      }],
    };
    // The kill is awaited before the restart below: its last pkill would otherwise take the new sshd too.
    let killed: Promise<void> | null = null;
    const res = applyPlan(c2, plan, {
      onProgress: (e) => {
        if (e.type === 'step-start') setTimeout(() => { killed = bed2.kill(); }, 500);
      },
    });
    const r = await res;
    expect(r.ok).toBe(false);
    expect(r.error?.code).toBe('CONNECTION_LOST');
    expect(r.error?.message).toContain('Write a config file slowly');
    expect(r.error?.message).not.toContain('\n');
    expect(r.error?.fix).toMatch(/atomically/);
    // Whatever happens to the orphaned remote shell, the file is the old one or the whole new one. Wait for
    // that shell to finish first (its command line names the target): under load it may still be before its
    // mktemp, and a temp file it made after the rerun's clean-up would be left beside the target.
    await waitForNoProcessNaming(target, 30_000);
    expect([`old = 1\n`, content]).toContain(fs.readFileSync(target, 'utf8'));
    // Running the plan again after reconnecting finishes the job and clears any temp file left behind.
    await c2.close();
    await killed;
    await bed2.restart();
    const c3 = await connectSsh(bedOptions(bed2));
    const again = await applyPlan(c3, plan);
    expect(again.ok).toBe(true);
    expect(fs.readFileSync(target, 'utf8')).toBe(content);
    expect(fs.readdirSync(bed2.home).filter((n) => n.startsWith(`.${path.basename(target)}.gpu-desk.`))).toEqual([]);
    await c3.close();
  });

  // --system-install: the bed's account has sudo through sudoers.d, in no admin group, which the probe
  // reports as sudo 'unknown', for which setup plans the install in the home by itself.
  it('CLI: setup --apply --yes --sudo-password-stdin applies through sudo, then finds nothing to do; the password is never printed', async () => {
    if (originalConf !== null) fs.writeFileSync(TIGER_CONF, originalConf);
    const home = makeTempDir('gd-applycli-');
    const run = (args: string[], stdin: string) => new Promise<{ code: number; out: string }>((resolve) => {
      const p = spawn(process.execPath, [path.resolve(__dirname, '../../../bin/gpu-desk.cjs'), 'setup',
        `${bed.user}@127.0.0.1`, '-p', String(bed.port), '-i', bed.userKeyPath, '-F', 'none', '--no-agent',
        '--known-hosts', path.join(home, 'kh'), '--accept-new-host-key', ...args], { env: { ...process.env, HOME: home, GPU_DESK_HOME: home, SSH_AUTH_SOCK: '', GPU_DESK_REMOTE_OPT_ROOT: NO_TURBOVNC } });
      let out = '';
      p.stdout.on('data', (d) => (out += d));
      p.stderr.on('data', (d) => (out += d));
      p.stdin.end(stdin);
      p.on('exit', (code) => resolve({ code: code ?? -1, out }));
    });
    const first = await run(['--apply', '--yes', '--system-install', '--only', 'vnc-localhost', '--sudo-password-stdin'], `${bed.password}\n`);
    expect(first.code, first.out).toBe(0);
    expect(first.out).toMatch(/Keep VNC sessions on localhost: running…/);
    expect(first.out).toMatch(/Keep VNC sessions on localhost: done/);
    expect(fs.readFileSync(TIGER_CONF, 'utf8')).toContain(LOCALHOST_LINE);
    const second = await run(['--apply', '--yes', '--system-install', '--only', 'vnc-localhost', '--sudo-password-stdin'], `${bed.password}\n`);
    expect(second.code, second.out).toBe(0);
    expect(second.out).toContain('Nothing to do: every step is already done.');
    expect(first.out + second.out).not.toContain(bed.password!);
  });
});
