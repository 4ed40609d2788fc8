import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BED_USER, isRoot, isPortFree, processTree } from '../../bed';

/**
 * `npm run demo` as a person runs it, then stopped as a terminal stops it (Ctrl+C, which reaches the
 * whole foreground process group, often twice) or killed outright. Afterwards nothing it started may
 * be left: no sshd, no Xvnc, no terminal open to local users, no daemon, no folder, no lock.
 */
const ROOT = path.resolve(__dirname, '../../..');

interface Proc { pid: number; start: string; state: string; comm: string; cmdline: string }

function proc(pid: number): Proc | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    // "pid (comm) state ppid … starttime(22nd)": comm may hold spaces, so count from the last ')'.
    const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, start: after[19], state: after[0], comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), cmdline: fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').replace(/\0/g, ' ').trim() };
  } catch {
    return null;
  }
}

function allPids(): number[] {
  return fs.readdirSync('/proc').map(Number).filter((n) => Number.isInteger(n) && n !== process.pid);
}

function environ(pid: number): string[] {
  try {
    return fs.readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
  } catch {
    return [];
  }
}

/** The same process still running (its pid not handed out again since: same start time; a zombie has ended). */
function stillRunning(p: Proc): boolean {
  const now = proc(p.pid);
  return now !== null && now.start === p.start && now.state !== 'Z';
}

interface Demo {
  npm: ChildProcess;
  out: string;
  root: string;
  sshPort: number;
  display: number;
  appPort: number;
}

async function startDemo(): Promise<Demo> {
  const env: NodeJS.ProcessEnv = { ...process.env, DISPLAY: '' };
  delete env.GPU_DESK_HOME;
  // Its own process group, as a terminal's foreground job has.
  const npm = spawn('npm', ['run', 'demo'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  npm.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  await new Promise<void>((resolve, reject) => {
    npm.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/^ {2}open: .*$/m.test(out)) resolve();
    });
    npm.once('exit', (code) => reject(new Error(`the demo exited (${code}) before it was ready: ${out}`)));
  });
  const home = /app data:\s+(\S+)/.exec(out)![1];
  return {
    npm,
    out,
    root: path.dirname(home),
    sshPort: Number(/port (\d+) \(real OpenSSH\)/.exec(out)![1]),
    display: Number(/desktop :(\d+)/.exec(out)![1]),
    appPort: Number(/open:\s+http:\/\/127\.0\.0\.1:(\d+)\//.exec(out)![1]),
  };
}

/** What the running demo consists of: its process tree, and whatever carries its marker or names its folder. */
async function snapshot(demo: Demo): Promise<{ procs: Proc[]; marker: string }> {
  const xterm = processTree(demo.npm.pid!).map(proc).find((p) => p?.comm === 'xterm');
  expect(xterm, `no xterm in the demo's tree:\n${demo.out}`).toBeTruthy();
  // The terminal starts its shell on its own time.
  await waitUntil(() => processTree(xterm!.pid).some((pid) => proc(pid)?.comm === 'bash'));
  const tree = new Set(processTree(demo.npm.pid!));
  const marker = environ(xterm!.pid).find((v) => v.startsWith('GPU_DESK_DEMO='));
  expect(marker).toBeTruthy();
  for (const pid of allPids()) {
    const p = proc(pid);
    if (p && (p.cmdline.includes(demo.root) || environ(pid).includes(marker!))) for (const q of processTree(pid)) tree.add(q);
  }
  return { procs: [...tree].map(proc).filter((p): p is Proc => p !== null), marker: marker! };
}

async function waitUntil(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((r) => setTimeout(r, 100));
}

/** Everything of the demo's that is still there, by name (empty when the clean-up worked). */
async function leftovers(demo: Demo, snap: { procs: Proc[]; marker: string }): Promise<string[]> {
  const left: string[] = [];
  for (const p of snap.procs) if (stillRunning(p)) left.push(`process ${p.pid} ${p.cmdline}`);
  for (const pid of allPids()) {
    const p = proc(pid);
    if (!p) continue;
    if (p.cmdline.includes(demo.root)) left.push(`process naming its folder: ${pid} ${p.cmdline}`);
    if (environ(pid).includes(snap.marker)) left.push(`process carrying its marker: ${pid} ${p.cmdline}`);
  }
  if (fs.existsSync(demo.root)) left.push(`folder ${demo.root}`);
  for (const f of [`/tmp/.X${demo.display}-lock`, `/tmp/.X11-unix/X${demo.display}`]) if (fs.existsSync(f)) left.push(f);
  for (const port of [demo.sshPort, 5900 + demo.display, demo.appPort]) if (!(await isPortFree(port))) left.push(`listener on 127.0.0.1:${port}`);
  return left;
}

function checkRunningDemo(demo: Demo, snap: { procs: Proc[] }): void {
  const names = new Set(snap.procs.map((p) => p.comm));
  // The test would pass vacuously if these were missed: they are what a leak leaves.
  for (const n of ['sshd', 'Xvnc', 'xterm', 'bash', 'openbox', 'dbus-daemon', 'gnome-keyring-d']) expect(names, `${n} not found in the running demo`).toContain(n);
  const xvnc = snap.procs.find((p) => p.comm === 'Xvnc')!;
  // A desktop like any other: VNC authentication, and X clients need its cookie.
  expect(xvnc.cmdline).toMatch(/-SecurityTypes VncAuth/);
  expect(xvnc.cmdline).not.toMatch(/ -ac( |$)/);
  expect(demo.out).toMatch(/desktop password: \S{8}/);
  // The terminal's shell is the sandbox account's, in its home (not root's, not the checkout).
  const xterm = snap.procs.find((p) => p.comm === 'xterm')!;
  const shell = snap.procs.find((p) => p.comm === 'bash' && processTree(xterm.pid).includes(p.pid))!;
  const user = isRoot ? BED_USER : os.userInfo().username;
  const uid = Number(/^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${shell.pid}/status`, 'utf8'))![1]);
  expect(uid).toBe(Number(execFileSync('id', ['-u', user], { encoding: 'utf8' })));
  expect(fs.readlinkSync(`/proc/${shell.pid}/cwd`)).not.toBe(ROOT);
  expect(environ(shell.pid)).toContain(`USER=${user}`);
}

/** The desktop's window manager gives the terminal the keyboard, even with the test pattern mapped after it. */
async function checkFocus(demo: Demo, snap: { procs: Proc[] }): Promise<void> {
  const xvnc = snap.procs.find((p) => p.comm === 'Xvnc')!;
  const env = { ...process.env, DISPLAY: `:${demo.display}`, XAUTHORITY: / -auth (\S+)/.exec(xvnc.cmdline)![1] };
  const root = (prop: string) => execFileSync('xprop', ['-root', prop], { env, encoding: 'utf8' });
  const windows = () => root('_NET_CLIENT_LIST').match(/0x[0-9a-f]+/g) ?? [];
  const pattern = snap.procs.some((p) => p.comm === 'ffplay');
  await waitUntil(() => windows().length >= (pattern ? 2 : 1));
  const xterm = snap.procs.find((p) => p.comm === 'xterm')!;
  const own = Number(environ(snap.procs.find((p) => p.comm === 'bash' && processTree(xterm.pid).includes(p.pid))!.pid).find((v) => v.startsWith('WINDOWID='))!.split('=')[1]);
  expect(Number(/0x[0-9a-f]+/.exec(root('_NET_ACTIVE_WINDOW'))![0])).toBe(own);
}

describe('npm run demo leaves nothing behind', () => {
  it('after Ctrl+C twice to its process group', async () => {
    const demo = await startDemo();
    const snap = await snapshot(demo);
    checkRunningDemo(demo, snap);
    await checkFocus(demo, snap);
    const supervisor = snap.procs.find((p) => p.cmdline.includes('cleanupSupervisor'))!;
    expect(supervisor).toBeTruthy();
    const exited = new Promise((r) => demo.npm.once('exit', r));
    process.kill(-demo.npm.pid!, 'SIGINT');
    process.kill(-demo.npm.pid!, 'SIGINT');
    await exited;
    // Done when the supervisor, the last of the demo's processes, has finished.
    await waitUntil(() => !stillRunning(supervisor));
    expect(await leftovers(demo, snap)).toEqual([]);
  });

  it('after the demo is killed outright (SIGKILL to its process group)', async () => {
    const demo = await startDemo();
    const snap = await snapshot(demo);
    checkRunningDemo(demo, snap);
    const supervisor = snap.procs.find((p) => p.cmdline.includes('cleanupSupervisor'))!;
    const exited = new Promise((r) => demo.npm.once('exit', r));
    process.kill(-demo.npm.pid!, 'SIGKILL');
    await exited;
    await waitUntil(() => !stillRunning(supervisor));
    expect(await leftovers(demo, snap)).toEqual([]);
  });
});
