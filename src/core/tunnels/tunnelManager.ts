import { EventEmitter } from 'node:events';
import { GpuDeskError } from '../errors';
import { displayToPort, parseForwardSpec, type ForwardSpec } from './forwardSpec';
import { Tunnel, type ForwardingConnection, type TunnelInfo, type TunnelStats } from './tunnel';

export interface TunnelSnapshot extends TunnelInfo, TunnelStats {
  /** Bytes per second over the last sampling interval. */
  inRate: number;
  outRate: number;
}

/**
 * The tunnels of one connection. Listeners stay open across reconnects, so every tunnel comes back
 * on the same local port; connections arriving meanwhile wait for the link.
 */
export class TunnelManager extends EventEmitter {
  private readonly tunnels = new Map<string, Tunnel>();

  constructor(private readonly conn: ForwardingConnection) {
    super();
  }

  /**
   * Display n → remote 127.0.0.1:5900+n, or the session's Unix socket when given; local port: asked
   * for, else 5900+n when free, else any. A session that says its own port (a Slurm job's, whose
   * TurboVNC on a shared node may be past :99) is taken at its word.
   */
  async openDisplay(display: number, opts: { localPort?: number; remoteHost?: string; remoteSocket?: string; remotePort?: number } = {}): Promise<TunnelInfo> {
    const remotePort = opts.remotePort ?? displayToPort(display);
    return this.add(new Tunnel(this.conn, {
      kind: 'display',
      display,
      remoteHost: opts.remoteHost ?? '127.0.0.1',
      remotePort,
      remoteSocket: opts.remoteSocket,
      localPort: opts.localPort,
      preferredPort: remotePort,
    }));
  }

  async openForward(spec: ForwardSpec | string): Promise<TunnelInfo> {
    const s = typeof spec === 'string' ? parseForwardSpec(spec) : spec;
    return this.add(new Tunnel(this.conn, {
      kind: 'forward',
      remoteHost: s.remoteHost,
      remotePort: s.remotePort,
      localPort: s.localPort || undefined,
    }));
  }

  private async add(t: Tunnel): Promise<TunnelInfo> {
    const info = await t.listen();
    this.tunnels.set(t.id, t);
    t.on('forward-error', (e: Error) => this.emit('forward-error', { id: t.id, error: e }));
    this.emit('opened', info);
    return info;
  }

  list(): TunnelInfo[] {
    return [...this.tunnels.values()].map((t) => t.info);
  }

  get(id: string): Tunnel | undefined {
    return this.tunnels.get(id);
  }

  stats(id: string): TunnelStats {
    const t = this.tunnels.get(id);
    if (!t) throw new GpuDeskError('BAD_ARGUMENT', `No tunnel ${id}`, 'list the open tunnels first');
    return t.stats();
  }

  /** Live counters with rates, every intervalMs, until the returned function is called. */
  watch(intervalMs: number, cb: (snapshots: TunnelSnapshot[]) => void): () => void {
    let prev = new Map<string, { at: number; s: TunnelStats }>();
    const tick = () => {
      const now = Date.now();
      const next = new Map<string, { at: number; s: TunnelStats }>();
      const out: TunnelSnapshot[] = [];
      for (const t of this.tunnels.values()) {
        const s = t.stats();
        const p = prev.get(t.id);
        const dt = p ? (now - p.at) / 1000 : 0;
        out.push({
          ...t.info,
          ...s,
          inRate: p && dt > 0 ? (s.bytesIn - p.s.bytesIn) / dt : 0,
          outRate: p && dt > 0 ? (s.bytesOut - p.s.bytesOut) / dt : 0,
        });
        next.set(t.id, { at: now, s });
      }
      prev = next;
      cb(out);
    };
    tick();
    const timer = setInterval(tick, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  async close(id: string): Promise<void> {
    const t = this.tunnels.get(id);
    if (!t) return;
    this.tunnels.delete(id);
    await t.close();
    this.emit('closed', t.info);
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.tunnels.keys()].map((id) => this.close(id)));
  }
}
