/**
 * The demo's clean-up, in a process of its own (started by cleanupClient.ts). It sits in a session of
 * its own, so the terminal's Ctrl+C (however many) never reaches it, and it acts when the demo says
 * "stop" or when the demo's pipe closes: the demo exited, was killed or crashed mid-way.
 *
 * It ends every process whose environment carries the demo's marker (each process the demo started
 * inherits it, sshd passes it to the sessions it opens with SetEnv, and daemons that fork away from
 * their parent keep it) or whose command line names a file in the demo's folder, with their
 * descendants, then removes the demo's folders and the X lock files its displays left.
 *
 * Orders arrive on stdin, one JSON object a line: {marker}, {dir}, {display}, {stop: true}.
 */
import fs from 'node:fs';

interface Orders {
  markers: Set<string>;
  dirs: Set<string>;
  displays: Set<number>;
}

function read(file: string): string | null {
  try {
    return fs.readFileSync(file, 'latin1');
  } catch {
    // Another user's process (as non-root) or one that has just gone: not ours to end.
    return null;
  }
}

/**
 * Every process of the demo's, ours excepted: those whose environment holds one of the markers
 * ("NAME=value", whole), those whose command line names a file in one of the demo's folders (sshd
 * rewrites its environment and command line into its process title, which keeps its config's path),
 * and every descendant of either (sshd's per-connection processes).
 */
function demoProcesses(orders: Orders): number[] {
  const found = new Set<number>();
  const children = new Map<number, number[]>();
  const prefixes = [...orders.dirs].map((d) => d.replace(/\/*$/, '/'));
  for (const name of fs.readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const stat = read(`/proc/${pid}/stat`);
    if (stat) {
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so count from the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    }
    const env = read(`/proc/${pid}/environ`);
    if (env && env.split('\0').some((v) => orders.markers.has(v))) found.add(pid);
    const cmdline = read(`/proc/${pid}/cmdline`);
    if (cmdline && prefixes.some((p) => cmdline.includes(p))) found.add(pid);
  }
  const out = [...found];
  for (let i = 0; i < out.length; i++) {
    for (const c of children.get(out[i]) ?? []) if (!found.has(c) && c !== process.pid) { found.add(c); out.push(c); }
  }
  return out;
}

function signal(pids: number[], sig: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, sig);
    } catch {
      /* gone meanwhile */
    }
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function cleanUp(orders: Orders): Promise<void> {
  if (orders.markers.size || orders.dirs.size) {
    // SIGTERM first, so Xvnc and sshd remove their own locks and sockets; then SIGKILL whatever is
    // left (an interactive shell ignores SIGTERM), again and again, until no marked process remains,
    // catching any child forked meanwhile.
    signal(demoProcesses(orders), 'SIGTERM');
    for (let i = 0; i < 30 && demoProcesses(orders).length; i++) await pause(100);
    // Bounded: a process stuck in the kernel cannot hold the folders' removal back for ever.
    for (let i = 0, left = demoProcesses(orders); left.length && i < 200; i++, left = demoProcesses(orders)) {
      signal(left, 'SIGKILL');
      await pause(50);
    }
  }
  for (const n of orders.displays) {
    const lock = `/tmp/.X${n}-lock`;
    let holder = NaN;
    try {
      holder = Number(fs.readFileSync(lock, 'latin1').trim());
    } catch {
      /* no lock */
    }
    // Only a lock whose server is gone: the display may be someone else's again by now.
    if (Number.isInteger(holder) && holder > 0 && alive(holder)) continue;
    fs.rmSync(lock, { force: true });
    fs.rmSync(`/tmp/.X11-unix/X${n}`, { force: true });
  }
  for (const dir of orders.dirs) fs.rmSync(dir, { recursive: true, force: true });
}

function main(): void {
  const orders: Orders = { markers: new Set(), dirs: new Set(), displays: new Set() };
  // Ctrl+C and a closing terminal are the demo's business; we finish the clean-up regardless.
  process.on('SIGINT', () => {});
  process.on('SIGHUP', () => {});
  let finishing: Promise<void> | null = null;
  const finish = (reply: boolean) => {
    finishing ??= cleanUp(orders).then(() => {
      if (!reply) process.exit(0);
      // The demo waits for this line before it exits; a demo gone by then is no error.
      process.stdout.on('error', () => process.exit(0));
      process.stdout.write('done\n', () => process.exit(0));
    });
  };
  process.on('SIGTERM', () => finish(false));
  process.stdout.on('error', () => {});
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      let o: { marker?: string; dir?: string; display?: number; stop?: boolean };
      try {
        o = JSON.parse(line) as typeof o;
      } catch {
        continue;
      }
      if (typeof o.marker === 'string' && /^[A-Z_]+=[0-9a-f]{32,}$/.test(o.marker)) orders.markers.add(o.marker);
      if (typeof o.dir === 'string' && o.dir.startsWith('/') && o.dir.length > 5) orders.dirs.add(o.dir);
      if (Number.isInteger(o.display)) orders.displays.add(o.display!);
      if (o.stop) finish(true);
    }
  });
  // The demo's end, whichever way it came: its end of the pipe is closed.
  process.stdin.on('end', () => finish(false));
  process.stdin.on('error', () => finish(false));
  process.stdout.write('ready\n');
}

main();
