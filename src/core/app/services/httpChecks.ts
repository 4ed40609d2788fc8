import { speaksHttp } from '../../tunnels/httpCheck';

export type HttpState = 'checking' | 'yes' | 'no';

/**
 * Whether each forward speaks HTTP, by connection: asked when a forward opens and again after each
 * reconnect (the service behind may have come or gone), and dropped with its forward (which its
 * connection's scope closes).
 */
export class HttpChecks {
  private readonly byConnection = new Map<string, Map<string, HttpState>>();

  constructor(private readonly speaks: (localPort: number) => Promise<boolean> = speaksHttp) {}

  state(connectionId: string, forwardId: string): HttpState | undefined {
    return this.byConnection.get(connectionId)?.get(forwardId);
  }

  /** Asks (again); `changed` runs when the state becomes "checking" and when the answer is in. */
  async check(connectionId: string, forwardId: string, localPort: number, changed: () => void = () => {}): Promise<HttpState> {
    let states = this.byConnection.get(connectionId);
    if (!states) {
      states = new Map();
      this.byConnection.set(connectionId, states);
    }
    states.set(forwardId, 'checking');
    changed();
    const v: HttpState = (await this.speaks(localPort)) ? 'yes' : 'no';
    // The connection may have closed (or the forward gone) meanwhile: nothing is kept for it then.
    if (this.byConnection.get(connectionId) !== states || !states.has(forwardId)) return v;
    states.set(forwardId, v);
    changed();
    return v;
  }

  /** The forward closed (by itself or with its connection's scope): what was known of it goes, and its connection's entry with the last one. */
  drop(connectionId: string, forwardId: string): void {
    const states = this.byConnection.get(connectionId);
    states?.delete(forwardId);
    if (states?.size === 0) this.byConnection.delete(connectionId);
  }

  /** How many forwards are remembered, over all connections (tests: the cache does not outlive them). */
  size(): number {
    let n = 0;
    for (const m of this.byConnection.values()) n += m.size;
    return n;
  }
}
