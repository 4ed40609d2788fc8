import { GpuDeskError } from '../../errors';
import type { Emit, HandlersOf } from '../../../shared/contract';
import type { ForwardOpenFailure, ForwardSpec, ForwardView } from '../../../shared/models';
import type { Tunnel } from '../../tunnels/tunnel';
import type { LiveConnection } from './connections';
import type { HttpChecks } from './httpChecks';

interface Forward {
  connectionId: string;
  /** Takes the forward out of its connection's scope once it closed on its own. */
  unscope: () => void;
}

export interface ForwardsDeps {
  emit: Emit;
  connections: { ready(connectionId: string): LiveConnection; all(): LiveConnection[] };
  /** Whether each forward speaks HTTP (one cache for the app, cleared with its connection). */
  http: HttpChecks;
}

/** forwards.*: local forwards opened on their own or beside the viewer, each with whether it speaks HTTP. */
export class Forwards {
  /** Forward (tunnel) id → its connection. */
  private readonly forwards = new Map<string, Forward>();
  /** A forward's last connection the server would not open, until one opens (gone with the forward). */
  private readonly refused = new WeakMap<Tunnel, ForwardOpenFailure>();

  constructor(private readonly deps: ForwardsDeps) {}

  handlers(): HandlersOf<'forwards'> {
    return {
      'forwards.list': async () => this.views(),
      'forwards.open': ({ connectionId, forwards }) => this.open(connectionId, forwards),
      'forwards.check': async ({ forwardId }) => {
        const f = this.byId(forwardId);
        await this.check(this.connection(f.connectionId)!, forwardId);
        return this.views().find((v) => v.id === forwardId)!;
      },
      'forwards.close': async ({ forwardId }) => {
        const f = this.byId(forwardId);
        await this.close(this.connection(f.connectionId), forwardId);
        this.deps.emit('forwards.changed', this.views());
      },
    };
  }

  /** Same local ports after a reconnect; whether the services still answer is asked again. */
  recheck(c: LiveConnection): void {
    for (const [id, f] of this.forwards) if (f.connectionId === c.id) void this.check(c, id);
  }

  /** The forward's listener, its HTTP answer and its place in the connection's scope. */
  private async close(c: LiveConnection | undefined, id: string): Promise<void> {
    const f = this.forwards.get(id);
    if (!f) return;
    this.forwards.delete(id);
    f.unscope();
    this.deps.http.drop(f.connectionId, id);
    await c?.tunnels.close(id);
  }

  announce(): void {
    this.deps.emit('forwards.changed', this.views());
  }

  async open(connectionId: string, specs?: ForwardSpec[]): Promise<ForwardView[]> {
    const c = this.deps.connections.ready(connectionId);
    const wanted = specs ?? c.profile.forwards;
    const ids: string[] = [];
    const opened: string[] = [];
    try {
      for (const spec of wanted) {
        const same = [...this.forwards].find(([id, f]) => {
          const i = f.connectionId === connectionId ? c.tunnels.get(id)?.info : undefined;
          return i && i.remoteHost === spec.remoteHost && i.remotePort === spec.remotePort && (spec.localPort === 0 || i.localPort === spec.localPort);
        })?.[0];
        if (same) {
          ids.push(same);
          continue;
        }
        const info = await c.tunnels.openForward({ localPort: spec.localPort, remoteHost: spec.remoteHost, remotePort: spec.remotePort });
        this.watchRefusals(c.tunnels.get(info.id));
        const f: Forward = { connectionId, unscope: () => {} };
        this.forwards.set(info.id, f);
        f.unscope = c.scope.add(() => this.close(c, info.id));
        ids.push(info.id);
        opened.push(info.id);
      }
    } catch (e) {
      for (const id of opened) await this.close(c, id);
      throw e;
    }
    this.deps.emit('forwards.changed', this.views());
    await Promise.all(ids.map((id) => this.check(c, id)));
    return this.views().filter((v) => ids.includes(v.id));
  }

  /** A program on a forward whose far end refuses is closed at once: the panel says why, as `ssh -L` prints "open failed: …". */
  private watchRefusals(t: Tunnel | undefined): void {
    t?.on('forward-error', (e: Error) => {
      const x = e as Error & { code?: string; fix?: string };
      this.refused.set(t, { code: x.code ?? 'FORWARD_FAILED', message: e.message, ...(x.fix ? { fix: x.fix } : {}) });
      this.announce();
    });
    t?.on('connection-opened', () => {
      if (this.refused.delete(t)) this.announce();
    });
  }

  private connection(connectionId: string): LiveConnection | undefined {
    return this.deps.connections.all().find((c) => c.id === connectionId);
  }

  private byId(forwardId: string): Forward {
    const f = this.forwards.get(forwardId);
    if (!f || !this.connection(f.connectionId)) throw new GpuDeskError('BAD_ARGUMENT', 'That forward is closed', 'open the server\'s forwards again');
    return f;
  }

  private views(): ForwardView[] {
    const out: ForwardView[] = [];
    for (const c of this.deps.connections.all()) {
      for (const [id, f] of this.forwards) {
        if (f.connectionId !== c.id) continue;
        const t = c.tunnels.get(id);
        const info = t?.info;
        if (!t || !info) continue;
        const http = this.deps.http.state(c.id, id) ?? 'checking';
        const openFailed = this.refused.get(t);
        out.push({
          id,
          connectionId: c.id,
          localHost: info.localHost,
          localPort: info.localPort,
          remoteHost: info.remoteHost,
          remotePort: info.remotePort,
          http,
          url: http === 'yes' ? `http://127.0.0.1:${info.localPort}/` : null,
          ...(openFailed ? { openFailed } : {}),
        });
      }
    }
    return out;
  }

  private async check(c: LiveConnection, id: string): Promise<void> {
    const info = c.tunnels.get(id)?.info;
    if (!info) return;
    await this.deps.http.check(c.id, id, info.localPort, () => this.deps.emit('forwards.changed', this.views()));
  }
}
