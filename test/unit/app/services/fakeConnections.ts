import net from 'node:net';
import type { Duplex } from 'node:stream';
import { GpuDeskError } from '../../../../src/core/errors';
import type { SshConnection } from '../../../../src/core/ssh/connection';
import { TunnelManager } from '../../../../src/core/tunnels/tunnelManager';
import type { LiveConnection } from '../../../../src/core/app/services/connections';
import { ConnectionScope } from '../../../../src/core/app/connectionScope';
import type { Profile } from '../../../../src/shared/models';

/**
 * The connection layer without SSH: each "server" is this machine, a forwardOut a plain TCP
 * connection to 127.0.0.1, and close disposes the connection's scope like Connections does.
 */
export class FakeConnections {
  private readonly live = new Map<string, LiveConnection>();
  private readonly readyHooks: ((c: LiveConnection) => void)[] = [];
  readonly closed: string[] = [];
  readonly commands: string[] = [];

  add(id: string, profile: Partial<Profile> = {}): LiveConnection {
    const conn = {
      state: 'ready',
      label: `me@${id}`,
      rttMs: 1,
      forwardOut: (host: string, port: number) => new Promise<Duplex>((resolve, reject) => {
        const s = net.connect(port, host, () => resolve(s));
        s.once('error', reject);
      }),
      forwardOutUnix: async () => { throw new Error('no unix sockets here'); },
      whenReady: async () => {},
      exec: async (cmd: string) => { this.commands.push(cmd); return { code: 0, stdout: '', stderr: '' }; },
      close: async () => {},
    } as unknown as SshConnection;
    const c: LiveConnection = {
      id,
      profile: { id: `p-${id}`, name: id, kind: 'server', host: '127.0.0.1', port: 22, jumpHosts: [], auth: { kind: 'auto' }, display: {}, forwards: [], ...profile } as Profile,
      label: `me@${id}`,
      conn,
      options: { destination: '127.0.0.1', appKnownHostsFile: '/nonexistent/known_hosts' },
      tunnels: new TunnelManager(conn),
      typed: [],
      accepted: new Set(),
      scope: new ConnectionScope(),
    };
    c.scope.add(() => c.tunnels.closeAll());
    this.live.set(id, c);
    return c;
  }

  ready = (id: string): LiveConnection => {
    const c = this.live.get(id);
    if (!c) throw new GpuDeskError('NOT_CONNECTED', 'Not connected to that server', 'connect from the server list first');
    return c;
  };

  all = (): LiveConnection[] => [...this.live.values()];

  openAndWait = async (profileId: string): Promise<LiveConnection> => this.all().find((c) => c.profile.id === profileId) ?? this.ready(profileId);

  rttMs = (id: string): number | null => this.live.get(id)?.conn.rttMs ?? null;

  /** As Connections.scope: a connection that is gone has one already disposed. */
  scope = (id: string): ConnectionScope => {
    const s = this.live.get(id)?.scope;
    if (s) return s;
    const gone = new ConnectionScope();
    void gone.dispose();
    return gone;
  };

  onReady(h: (c: LiveConnection) => void): void {
    this.readyHooks.push(h);
  }

  /** As after a drop and a reconnect: same connection, same listeners. */
  reconnected(id: string): void {
    for (const h of this.readyHooks) h(this.ready(id));
  }

  async close(id: string): Promise<void> {
    const c = this.live.get(id);
    if (!c) return;
    await c.scope.dispose();
    this.live.delete(id);
    this.closed.push(id);
  }
}
