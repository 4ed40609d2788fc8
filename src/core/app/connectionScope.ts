import { toErrorValue } from '../errors';

export type Disposer = () => Promise<void> | void;

/**
 * Everything one connection owns, let go of together when it closes (as VS Code's DisposableStore,
 * Tabby's SSH session owning its forwards). Each service adds what it opens at the moment it opens it,
 * so a service that forgets nothing at close time still leaks nothing: there is no list of clean-up
 * hooks to keep in step with the services.
 *
 * Disposers run in reverse order of registration: what was opened over something else (a viewer over
 * the link, a forward over the SSH connection) goes before it, and the SSH connection, added first,
 * goes last.
 */
export class ConnectionScope {
  private readonly disposers = new Set<Disposer>();
  private readonly keys = new Set<string>();
  private disposed = false;

  constructor(private readonly log: (line: string) => void = () => {}, private readonly label = 'connection') {}

  get isDisposed(): boolean {
    return this.disposed;
  }

  /**
   * Adds what to do when the connection closes; the returned function takes it back (the resource was
   * closed before its connection). On a scope already disposed it runs at once: whatever a late reply
   * opened for a connection that is gone is not kept.
   */
  add(dispose: Disposer): () => void {
    if (this.disposed) {
      void this.run(dispose);
      return () => {};
    }
    // A wrapper per add: the same function added twice is two registrations, each removed on its own.
    const entry: Disposer = () => dispose();
    this.disposers.add(entry);
    return () => void this.disposers.delete(entry);
  }

  /**
   * One disposer per key for state a service keeps in its own maps, keyed by connection (plans, runs,
   * passwords): however often the service touches it, it is let go of once.
   */
  once(key: string, dispose: Disposer): void {
    if (this.keys.has(key)) return;
    if (!this.disposed) this.keys.add(key);
    this.add(dispose);
  }

  /** Runs every disposer, newest first, one at a time; one that throws is logged and the rest still run. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const all = [...this.disposers].reverse();
    this.disposers.clear();
    this.keys.clear();
    for (const d of all) await this.run(d);
  }

  private async run(d: Disposer): Promise<void> {
    try {
      await d();
    } catch (e) {
      this.log(`[${this.label}] closing: ${toErrorValue(e).message}`);
    }
  }
}
