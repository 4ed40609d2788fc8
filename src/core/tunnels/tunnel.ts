import { EventEmitter } from 'node:events';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { GpuDeskError } from '../errors';
import { adoptAccepted } from '../net/leanSocket';
import { LOOPBACK } from './forwardSpec';
import { joinStreams, type PipeCounters } from './pipe';
import { refuseVncViewer } from './rfbRefusal';

/** What a tunnel needs from a connection (SshConnection provides it). */
export interface ForwardingConnection {
  readonly state: string;
  forwardOut(host: string, port: number): Promise<Duplex>;
  /** OpenSSH's direct-streamlocal@openssh.com: a channel to a Unix socket on the server. */
  forwardOutUnix(path: string): Promise<Duplex>;
  whenReady(timeoutMs?: number): Promise<void>;
}

export interface TunnelSpec {
  kind: 'display' | 'forward';
  display?: number;
  remoteHost: string;
  remotePort: number;
  /** A Unix socket on the server to reach instead of remoteHost:remotePort (a TurboVNC session on -rfbunixpath). */
  remoteSocket?: string;
  /** Port asked for explicitly: taken → error. */
  localPort?: number;
  /** Tried before "any free port" when no port was asked for (5900+n for displays). */
  preferredPort?: number;
}

export interface TunnelInfo {
  id: string;
  kind: 'display' | 'forward';
  display?: number;
  localHost: string;
  localPort: number;
  remoteHost: string;
  remotePort: number;
  /** Set when the far end is a Unix socket on the server. */
  remoteSocket?: string;
}

export interface TunnelStats extends PipeCounters {
  openConnections: number;
  totalConnections: number;
  failedConnections: number;
}

let nextId = 1;

/** One 127.0.0.1 listener whose connections become channels to remoteHost:remotePort (direct-tcpip) or to remoteSocket (streamlocal). */
export class Tunnel extends EventEmitter {
  readonly id = `t${nextId++}`;
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  private readonly counters: TunnelStats = { bytesIn: 0, bytesOut: 0, openConnections: 0, totalConnections: 0, failedConnections: 0 };
  private port = 0;

  constructor(private readonly conn: ForwardingConnection, readonly spec: TunnelSpec) {
    super();
  }

  get info(): TunnelInfo {
    return {
      id: this.id,
      kind: this.spec.kind,
      ...(this.spec.display !== undefined ? { display: this.spec.display } : {}),
      localHost: LOOPBACK,
      localPort: this.port,
      remoteHost: this.spec.remoteHost,
      remotePort: this.spec.remotePort,
      ...(this.spec.remoteSocket ? { remoteSocket: this.spec.remoteSocket } : {}),
    };
  }

  stats(): TunnelStats {
    return { ...this.counters, openConnections: this.sockets.size };
  }

  async listen(): Promise<TunnelInfo> {
    const { localPort, preferredPort } = this.spec;
    if (localPort) {
      this.port = await this.tryListen(localPort).catch((e: NodeJS.ErrnoException) => {
        throw e.code === 'EADDRINUSE'
          ? new GpuDeskError('PORT_TAKEN', `Local port ${localPort} is already in use`, 'choose another with --local-port, or omit it to pick a free one')
          : new GpuDeskError('PORT_TAKEN', `Cannot listen on 127.0.0.1:${localPort} (${e.code ?? e.message})`, 'choose a port above 1024 with --local-port');
      });
    } else {
      let port: number | null = null;
      if (preferredPort) port = await this.tryListen(preferredPort).catch(() => null);
      this.port = port ?? (await this.tryListen(0));
    }
    return this.info;
  }

  private tryListen(port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      // allowHalfOpen: a client that has sent all it will send (EOF) still gets the reply, as with ssh -L.
      // pauseOnConnect: nothing is read before the socket is adopted for lean reads (../net/leanSocket).
      const server = net.createServer({ noDelay: true, allowHalfOpen: true, pauseOnConnect: true }, (s) => this.onSocket(s));
      server.once('error', reject);
      // Loopback only: other machines (and other interfaces) must never reach the VNC port.
      server.listen({ port, host: LOOPBACK, exclusive: true }, () => {
        server.removeListener('error', reject);
        server.on('error', (e) => this.emit('error', e));
        this.server = server;
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  }

  private onSocket(accepted: net.Socket): void {
    const { socket: sock, onData } = adoptAccepted(accepted, { allowHalfOpen: true });
    this.sockets.add(sock);
    this.counters.totalConnections++;
    sock.pause();
    sock.on('error', () => {});
    sock.once('close', () => this.sockets.delete(sock));
    const open = async (): Promise<Duplex> => {
      // A viewer connecting while the link is being re-established waits for it instead of failing.
      if (this.conn.state !== 'ready') await this.conn.whenReady(30_000);
      const { remoteSocket, remoteHost, remotePort } = this.spec;
      return remoteSocket ? this.conn.forwardOutUnix(remoteSocket) : this.conn.forwardOut(remoteHost, remotePort);
    };
    open().then(
      (channel) => {
        if (sock.destroyed) {
          channel.destroy();
          return;
        }
        joinStreams(sock, channel, this.counters, () => this.emit('connection-closed'), onData);
        sock.resume();
        this.emit('connection-opened');
      },
      (e: Error) => {
        this.counters.failedConnections++;
        this.emit('forward-error', e);
        // A VNC viewer on a display tunnel is told why (its error dialog), not left with a bare EOF.
        if (this.spec.kind === 'display' && !sock.destroyed) refuseVncViewer(sock, onData, e);
        else sock.destroy();
      },
    );
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((r) => server.close(() => r()));
  }
}
