import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startSshd, type SshdBed } from './sshd';
import { freePort, killTree, makeTempDir, registerCleanup } from './util';

/**
 * A real one-node Slurm cluster (Debian's slurm-wlm 22.05 + munge) on this machine, private to one
 * test file: its own munged socket and key, its own slurmctld/slurmd ports, state and spool dirs in a
 * temp dir, every daemon stopped by pid. Needs root (slurmd starts jobs as the submitting user).
 *
 * How it stands for a cluster:
 * - the login node is a bed sshd whose sessions get SLURM_CONF (sbatch/squeue/scancel find this
 *   cluster as they would find /etc/slurm/slurm.conf on a real login node);
 * - the compute node is the Slurm node `nodeName` (slurmd -N, NodeAddr 127.0.0.1) plus a second bed
 *   sshd that plays its SSH daemon. A real node is reached as `<nodeName>:22` from the login node; here
 *   `sshConfigPath` holds what a user's ~/.ssh/config holds for a cluster (`Host <nodeName>` with its
 *   HostName/Port and a HostKeyAlias), so ProxyJump through the login sshd lands on the node's sshd,
 *   and `knownHostsPath` holds both hosts' keys under the names the client checks.
 * - jobs really run as the bed user on this machine, so "the shared file system" (the user's home) is
 *   the same for login node, compute node and job, as on a cluster.
 */
export interface SlurmBed {
  dir: string;
  confPath: string;
  clusterName: string;
  nodeName: string;
  partition: string;
  login: SshdBed;
  node: SshdBed;
  sshConfigPath: string;
  knownHostsPath: string;
  /** The login node as a destination string: user@127.0.0.1:port. */
  loginDestination: string;
  /** Run a Slurm command as root against this cluster (bed bookkeeping, not the code under test). */
  admin(cmd: string, args: string[]): string;
  /** Cancel every job of this cluster and wait until none runs. */
  cancelAll(): Promise<void>;
  stop(): Promise<void>;
}

/** The GPU index Slurm allocated to a job, from `scontrol show job -d`'s "GRES=gpu:1(IDX:0)", or undefined. */
export function allocatedGpuIndex(scontrolShowJobDetail: string): string | undefined {
  return /GRES=gpu[^(\s]*\(IDX:(\d+)\)/.exec(scontrolShowJobDetail)?.[1];
}

export const isRootForSlurm = typeof process.getuid === 'function' && process.getuid() === 0;

export interface SlurmOptions {
  /** Extra sshd_config lines for both sshds (e.g. PATH for shims). */
  sshdConfig?: string[];
  /** Environment of both hosts' SSH sessions (e.g. a PATH with a shim). */
  env?: Record<string, string>;
  /** Environment of the compute node's SSH sessions only, over `env` (e.g. what marks the node as the node). */
  nodeEnv?: Record<string, string>;
  /** Extra slurm.conf lines. */
  slurmConfig?: string[];
  /** A command the daemons (munged, slurmctld, slurmd) and both sshds start under: the server side's taskset (placement.ts); default none. */
  wrap?: string[];
  /** Instead of `wrap` for the compute node's own daemons (slurmd and the node's sshd): a node that sees other files than the login node. */
  nodeWrap?: string[];
}

async function waitFor(what: string, ok: () => boolean, timeoutMs: number, why: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what} not ready after ${timeoutMs} ms: ${why()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function tail(file: string, n = 5): string {
  try {
    return fs.readFileSync(file, 'utf8').trim().split('\n').slice(-n).join(' | ');
  } catch {
    return '(no log)';
  }
}

/** Processes whose environment carries our marker: slurmstepd and anything it left behind. */
function markedPids(marker: string): number[] {
  const out: number[] = [];
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (fs.readFileSync(`/proc/${e}/environ`, 'latin1').split('\0').includes(marker)) out.push(Number(e));
    } catch { /* gone or not ours to read */ }
  }
  return out;
}

export async function startSlurm(opts: SlurmOptions = {}): Promise<SlurmBed> {
  if (!isRootForSlurm) throw new Error('the Slurm bed needs root: slurmd starts jobs as the submitting user');
  const dir = makeTempDir('gd-slurm-');
  fs.chmodSync(dir, 0o755);
  const suffix = randomBytes(3).toString('hex');
  const clusterName = `gdbed${suffix}`;
  const nodeName = `gdnode-${suffix}`;
  const partition = 'gpu';
  const marker = `GD_SLURM_BED=${dir}`;

  // munge: its own key (mungekey -c) and socket; munged refuses root and key dirs others can write.
  const mungeDir = path.join(dir, 'munge');
  const sockDir = path.join(dir, 'msock');
  for (const d of [mungeDir, sockDir]) {
    fs.mkdirSync(d, { mode: 0o755 });
    execFileSync('chown', ['munge:munge', d]);
  }
  fs.chmodSync(mungeDir, 0o700);
  const keyPath = path.join(mungeDir, 'munge.key');
  execFileSync('runuser', ['-u', 'munge', '--', 'mungekey', '-c', '-k', keyPath], { stdio: 'ignore' });
  const mungeSocket = path.join(sockDir, 'munge.sock');
  const mungeLog = path.join(mungeDir, 'munged.log');

  const procs: ChildProcess[] = [];
  const spawnDaemon = (cmd: string, args: string[], log: string, wrapWith = opts.wrap): ChildProcess => {
    const fd = fs.openSync(log, 'a');
    const wrap = wrapWith ?? [];
    const p = spawn(wrap[0] ?? cmd, [...wrap.slice(1), ...(wrap.length ? [cmd] : []), ...args], { stdio: ['ignore', fd, fd], detached: true, env: { ...process.env, GD_SLURM_BED: dir, SLURM_CONF: confPath } });
    fs.closeSync(fd);
    procs.push(p);
    return p;
  };
  const confPath = path.join(dir, 'slurm.conf');

  const stopDaemons = async () => {
    for (const p of procs.reverse()) {
      if (p.pid && p.exitCode === null && p.signalCode === null) {
        const gone = new Promise((r) => p.once('exit', r));
        killTree(p.pid, 'SIGTERM');
        const t = setTimeout(() => p.pid && killTree(p.pid, 'SIGKILL'), 5000);
        await gone;
        clearTimeout(t);
      }
    }
    procs.length = 0;
    for (const pid of markedPids(marker)) {
      try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    }
  };

  let login: SshdBed | undefined;
  let node: SshdBed | undefined;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await cancelAll().catch(() => {});
    await stopDaemons();
    await node?.stop();
    await login?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  registerCleanup(stop, () => {
    for (const p of procs) if (p.pid) killTree(p.pid);
    for (const pid of markedPids(marker)) {
      try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const admin = (cmd: string, args: string[]) =>
    execFileSync(cmd, args, { encoding: 'utf8', env: { ...process.env, SLURM_CONF: confPath }, stdio: ['ignore', 'pipe', 'pipe'] });
  const cancelAll = async () => {
    if (!fs.existsSync(confPath)) return;
    try { admin('scancel', ['--user', login?.user ?? 'gdtest']); } catch { /* none */ }
    try {
      await waitFor('jobs ending', () => admin('squeue', ['-h', '-t', 'PD,R,CG,S', '-o', '%i']).trim() === '', 60_000, () => admin('squeue', []));
    } catch { /* the daemons are killed next anyway */ }
  };

  try {
    const munged = spawnDaemon('runuser', ['-u', 'munge', '--', 'munged', '-F', `--socket=${mungeSocket}`, `--key-file=${keyPath}`,
      `--log-file=${mungeLog}`, `--pid-file=${path.join(mungeDir, 'munged.pid')}`, `--seed-file=${path.join(mungeDir, 'munged.seed')}`],
    path.join(dir, 'munged.out'));
    await waitFor('munged', () => fs.existsSync(mungeSocket) || munged.exitCode !== null, 15_000, () => tail(path.join(dir, 'munged.out')));
    if (munged.exitCode !== null) throw new Error(`munged exited: ${tail(path.join(dir, 'munged.out'))}`);

    const [ctldPort, slurmdPort] = [await freePort(), await freePort()];
    const state = path.join(dir, 'state');
    const spool = path.join(dir, 'spool');
    fs.mkdirSync(state);
    fs.mkdirSync(spool);
    fs.writeFileSync(confPath, [
      `ClusterName=${clusterName}`,
      'SlurmctldHost=localhost(127.0.0.1)',
      `SlurmctldPort=${ctldPort}`,
      `SlurmdPort=${slurmdPort}`,
      'SlurmUser=root',
      'SlurmdUser=root',
      'AuthType=auth/munge',
      'CredType=cred/munge',
      `AuthInfo=socket=${mungeSocket}`,
      `StateSaveLocation=${state}`,
      `SlurmdSpoolDir=${spool}`,
      `SlurmctldPidFile=${path.join(dir, 'slurmctld.pid')}`,
      `SlurmdPidFile=${path.join(dir, 'slurmd.pid')}`,
      `SlurmctldLogFile=${path.join(dir, 'slurmctld.log')}`,
      `SlurmdLogFile=${path.join(dir, 'slurmd.log')}`,
      'ProctrackType=proctrack/linuxproc',
      'TaskPlugin=task/none',
      'SelectType=select/cons_tres',
      'SelectTypeParameters=CR_Core',
      'GresTypes=gpu',
      'MpiDefault=none',
      'SchedulerType=sched/backfill',
      // A pending job's estimated start (squeue --start) comes from the backfill pass: run it often.
      'SchedulerParameters=bf_interval=1',
      'AccountingStorageType=accounting_storage/none',
      'JobCompType=jobcomp/none',
      'JobAcctGatherType=jobacct_gather/none',
      'ReturnToService=2',
      // Ended jobs stay visible to scontrol for 10 minutes (the bed has no accounting for sacct).
      'MinJobAge=600',
      'KillWait=10',
      ...(opts.slurmConfig ?? []),
      `NodeName=${nodeName} NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 Gres=gpu:1 State=UNKNOWN`,
      `PartitionName=${partition} Nodes=${nodeName} Default=YES MaxTime=INFINITE State=UP`,
    ].join('\n') + '\n');
    fs.writeFileSync(path.join(dir, 'gres.conf'), `NodeName=${nodeName} Name=gpu File=/dev/null\n`);
    spawnDaemon('slurmctld', ['-D', '-i', '-f', confPath], path.join(dir, 'slurmctld.out'));
    spawnDaemon('slurmd', ['-D', '-N', nodeName, '-f', confPath], path.join(dir, 'slurmd.out'), opts.nodeWrap ?? opts.wrap);
    await waitFor('the Slurm node', () => {
      try { return admin('sinfo', ['-h', '-N', '-o', '%T']).trim() === 'idle'; } catch { return false; }
    }, 60_000, () => `${tail(path.join(dir, 'slurmctld.log'))} / ${tail(path.join(dir, 'slurmd.log'))}`);

    // One SetEnv line per sshd: sshd takes the first of a keyword's lines.
    const setEnv = (env: Record<string, string>) => `SetEnv ${Object.entries({ SLURM_CONF: confPath, ...env }).map(([k, v]) => `${k}=${v}`).join(' ')}`;
    login = await startSshd({ extraConfig: [setEnv(opts.env ?? {}), ...(opts.sshdConfig ?? [])], wrap: opts.wrap });
    node = await startSshd({ extraConfig: [setEnv({ ...opts.env, ...opts.nodeEnv }), ...(opts.sshdConfig ?? [])], wrap: opts.nodeWrap ?? opts.wrap });
    // The user's one key opens both, as one authorized_keys in a shared home does on a cluster.
    fs.appendFileSync(node.authorizedKeysPath, fs.readFileSync(login.userKeyPath + '.pub'));

    const sshConfigPath = path.join(dir, 'ssh_config');
    fs.writeFileSync(sshConfigPath, [
      `Host ${nodeName}`,
      '  HostName 127.0.0.1',
      `  Port ${node.port}`,
      `  User ${node.user}`,
      `  HostKeyAlias ${nodeName}`,
      '',
    ].join('\n'));
    const knownHostsPath = path.join(dir, 'known_hosts');
    const nodeKey = node.knownHostsLine.split(' ').slice(1).join(' ');
    fs.writeFileSync(knownHostsPath, `${login.knownHostsLine}\n${nodeName} ${nodeKey}\n`);

    const bed: SlurmBed = {
      dir,
      confPath,
      clusterName,
      nodeName,
      partition,
      login,
      node,
      sshConfigPath,
      knownHostsPath,
      loginDestination: `${login.user}@127.0.0.1:${login.port}`,
      admin,
      cancelAll,
      stop,
    };
    return bed;
  } catch (e) {
    await stop();
    throw e;
  }
}
