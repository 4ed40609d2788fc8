import type { Duplex } from 'node:stream';
import { GpuDeskError } from '../errors';
import { connectSsh, type SshConnection } from '../ssh/connection';
import type { ConnectOptions } from '../ssh/types';
import type { ForwardingConnection } from '../tunnels/tunnel';
import { nodeAddress, readJobFiles, takeOneTimePassword } from './jobs';
import type { NodeAccess } from '../../shared/profileSchema';
import type { JobConnectionInfo } from './types';

/** How the viewer reaches a job's desktop, and the sentence that says why. */
export interface JobDesktopLink {
  mode: NodeAccess;
  why: string;
  info: JobConnectionInfo;
  /** Where the bytes go, for messages: "gdnode1:/home/u/.gpu-desk/jobs/12/vnc.sock" or "node:5901". */
  target: string;
  /** A new RFB stream to the session (one per viewer connection). */
  open(): Promise<Duplex>;
  /** A one-time password for the next connection. */
  oneTimePassword(): Promise<string>;
  /** What a Tunnel needs: each local connection becomes open(). */
  forwarding: ForwardingConnection;
  /** Commands on the node itself (video mode's encoder): only with SSH to the node. */
  node: SshConnection | null;
  close(): Promise<void>;
}

/**
 * Connect to a running job's desktop through the login connection. The job said which access it
 * was started for: `ssh` — SSH to the node through the login node (the login connection carries it,
 * as ProxyJump would) and the session's Unix socket, nothing listening on TCP beyond the node's
 * localhost; `login-forward` — for clusters that refuse SSH to nodes, a TCP forward from the login
 * node to the node's VNC port, which then answers only to one-time passwords.
 */
export async function connectJobDesktop(
  login: SshConnection,
  loginOptions: ConnectOptions,
  jobId: string,
): Promise<JobDesktopLink> {
  const { connection: info, outputPath } = await readJobFiles(login, jobId);
  if (!info) {
    throw new GpuDeskError('JOB_NOT_FOUND', `Job ${jobId} has no desktop up (no ${outputPath.replace(/\.out$/, '/connection')})`, 'Check the job with `gpu-desk jobs <cluster> list`; a pending job gets its desktop when it starts');
  }
  const oneTimePassword = () => takeOneTimePassword(login, jobId);
  if (info.access === 'login-forward') {
    const addr = await nodeAddress(login, info.node);
    const open = () => login.forwardOut(addr, info.port).catch((e: GpuDeskError) => {
      throw new GpuDeskError('FORWARD_FAILED', `The login node could not reach ${addr}:${info.port} on node ${info.node} (${e.message})`, 'Check that the job still runs and that the login node may open TCP connections to the nodes');
    });
    return {
      mode: 'login-forward',
      why: `the job was started for clusters without SSH to nodes: a TCP forward from the login node to ${addr}:${info.port}, where the session accepts only one-time passwords; between the login node and the node the VNC stream, keystrokes included, is not encrypted`,
      info,
      target: `${addr}:${info.port}`,
      open,
      oneTimePassword,
      forwarding: { get state() { return login.state; }, whenReady: (t) => login.whenReady(t), forwardOut: () => open(), forwardOutUnix: () => open() },
      node: null,
      close: async () => {},
    };
  }
  if (!info.socket) throw new GpuDeskError('VNC_SESSION_FAILED', `Job ${jobId} wrote no socket path for its desktop`, 'Cancel the job and start a new one');
  const node = await connectNode(login, loginOptions, info.node);
  const socket = info.socket;
  const open = () => node.forwardOutUnix(socket);
  return {
    mode: 'ssh',
    why: `SSH to node ${info.node} through the login node, then the session's Unix socket (mode 0600; no TCP port for other users)`,
    info,
    target: `${info.node}:${socket}`,
    open,
    oneTimePassword,
    forwarding: { get state() { return node.state; }, whenReady: (t) => node.whenReady(t), forwardOut: () => open(), forwardOutUnix: () => open() },
    node,
    close: () => node.close(),
  };
}

/**
 * SSH to a compute node through the login connection (as ProxyJump would), by the node's name as the
 * login node knows it, with the login's user and keys: for a job's desktop and for the cluster probe.
 */
export async function connectNode(login: SshConnection, loginOptions: ConnectOptions, nodeName: string): Promise<SshConnection> {
  try {
    return await connectSsh({
      ...loginOptions,
      destination: nodeName,
      port: undefined,
      user: login.endpoint.user,
      jump: [],
      via: login,
      password: undefined,
      reconnect: { ...loginOptions.reconnect, enabled: loginOptions.reconnect?.enabled ?? false },
    });
  } catch (e) {
    const err = e as GpuDeskError;
    if (err.code === 'HOST_UNREACHABLE' || err.code === 'AUTH_FAILED') {
      throw new GpuDeskError(err.code, `SSH to node ${nodeName} through the login node failed: ${err.message}`, 'If the cluster blocks SSH to nodes, set the profile\'s node access to login-forward and start a new job');
    }
    throw e;
  }
}
