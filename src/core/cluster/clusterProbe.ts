import { randomBytes } from 'node:crypto';
import { GpuDeskError } from '../errors';
import { probeServer } from '../remote/probe';
import { shScript } from '../remote/shellQuote';
import type { ServerReport } from '../remote/types';
import type { SshConnection } from '../ssh/connection';
import type { ConnectOptions } from '../ssh/types';
import { connectNode } from './connect';

/**
 * The probe of a cluster: the login node, and one compute node reached through it (where job desktops
 * run), each with the server probe; and whether the two share the home directory. One install into the
 * home (issue 42) serves every node's job desktops only where they do, so a home that is not shared is
 * said plainly: the check writes a random token into the home on the login node and reads it on the node.
 */
export interface ClusterProbe {
  login: ServerReport;
  node: { name: string; report: ServerReport | null; error: string | null };
  home: {
    /** null: the node could not be reached, so nothing is known. */
    shared: boolean | null;
    loginHome: string;
    nodeHome: string | null;
    message: string;
    fix: string | null;
  };
}

export interface ClusterProbeOptions {
  optRoot?: string;
  /** The node to look at; default the first usable node of `partition` (else of the cluster). */
  node?: string;
  partition?: string;
}

const MARK = '.gpu-desk/home-check';

/** The first node of the partition that can run jobs (not down, drained or failing), as sinfo names it. */
export async function pickNode(login: SshConnection, partition?: string): Promise<string> {
  const r = await login.exec(shScript('export LC_ALL=C; if [ -n "$1" ]; then exec sinfo -h -N -p "$1" -o "%N %t"; else exec sinfo -h -N -o "%N %t"; fi', [partition ?? '']), { timeoutMs: 30_000 });
  const usable = r.stdout.split('\n').map((l) => l.trim().split(/\s+/)).filter((f) => f.length === 2 && !/^(down|drain|drng|fail|failg|maint|unk|futr|inval|npc|powered_down|pow_dn)/.test(f[1].replace(/[*~#!%$@^-]+$/, '')));
  if (r.code !== 0 || usable.length === 0) {
    const why = (r.stderr || r.stdout).trim().split('\n')[0] || 'no node is up';
    throw new GpuDeskError('SLURM_FAILED', `No compute node to probe${partition ? ` in partition ${partition}` : ''} (sinfo: ${why.slice(0, 200)})`, 'Check the partition with `gpu-desk jobs <cluster> defaults`, or name a node with --node');
  }
  return usable[0][0];
}

export async function probeCluster(login: SshConnection, loginOptions: ConnectOptions, opts: ClusterProbeOptions = {}): Promise<ClusterProbe> {
  const token = randomBytes(16).toString('hex');
  const [report, written] = await Promise.all([
    probeServer(login, { optRoot: opts.optRoot }),
    login.exec(shScript(`umask 077; mkdir -p "$HOME/.gpu-desk" && printf '%s\\n' "$1" >"$HOME/${MARK}" && printf '%s\\n' "$HOME"`, [token]), { timeoutMs: 30_000 }),
  ]);
  const loginHome = written.stdout.trim();
  if (written.code !== 0 || !loginHome) {
    throw new GpuDeskError('REMOTE_COMMAND_FAILED', `Cannot write in your home on the login node: ${written.stderr.trim().split('\n')[0] ?? ''}`, 'Check your quota and the home directory\'s permissions on the login node');
  }
  const name = opts.node ?? await pickNode(login, opts.partition);
  let node: SshConnection | null = null;
  try {
    node = await connectNode(login, loginOptions, name);
    const [nodeReport, read] = await Promise.all([
      probeServer(node, { optRoot: opts.optRoot }),
      node.exec(`printf 'token=%s\\nhome=%s\\n' "$(cat "$HOME/${MARK}" 2>/dev/null)" "$HOME"`, { timeoutMs: 30_000 }),
    ]);
    const seen = /^token=(.*)$/m.exec(read.stdout)?.[1]?.trim();
    const nodeHome = /^home=(.*)$/m.exec(read.stdout)?.[1]?.trim();
    const shared = seen === token;
    return {
      login: report,
      node: { name, report: nodeReport, error: null },
      home: shared
        ? { shared, loginHome, nodeHome: nodeHome ?? null, message: `Node ${name} shares your home directory with the login node (${loginHome}): one install into your home serves its job desktops.`, fix: null }
        : {
          shared,
          loginHome,
          nodeHome: nodeHome ?? null,
          message: `Your home directory on node ${name} (${nodeHome || 'unknown'}) is not the one on the login node (${loginHome}): what is installed into your home on the login node is not there for job desktops on that node.`,
          fix: 'Ask the cluster\'s administrators which file system the login and compute nodes share, and install there; or run the set-up on the node itself',
        },
    };
  } catch (e) {
    const err = e as Error;
    return {
      login: report,
      node: { name, report: null, error: err.message },
      home: { shared: null, loginHome, nodeHome: null, message: `Node ${name} could not be probed (${err.message}), so whether it shares your home is not known.`, fix: 'If the cluster blocks SSH to nodes, this cannot be checked from the desk; a job\'s output says where its home is' },
    };
  } finally {
    await node?.close();
    await login.exec(`rm -f "$HOME/${MARK}"`, { timeoutMs: 30_000 }).catch(() => undefined);
  }
}
