import { speaksHttp } from '../../tunnels/httpCheck';

export type HttpState = 'checking' | 'yes' | 'no';

/**
 * Whether each forward speaks HTTP, by connection: asked when a forward opens and again after each
 * reconnect (the service behind may have come or gone), and dropped with its connection.
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

  drop(connectionId: string, forwardId: string): void {
    this.byConnection.get(connectionId)?.delete(forwardId);
  }

  /** The connection closed: everything known about its forwards goes. */
  forget(connectionId: string): void {
    this.byConnection.delete(connectionId);
  }

  /** How many forwards are remembered, over all connections (tests: the cache does not outlive them). */
  size(): number {
    let n = 0;
    for (const m of this.byConnection.values()) n += m.size;
    return n;
  }
}
