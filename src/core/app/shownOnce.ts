import { randomBytes } from 'node:crypto';
import { GpuDeskError } from '../errors';

/**
 * What the window was shown for review (a set-up plan, a job script), kept in the core under a random
 * id: root and job operations run only what was shown, never what the window sends back. An id is
 * used once, belongs to one owner (a connection, a profile) and expires.
 */
export class ShownOnce<T> {
  private readonly items = new Map<string, { owner: string; value: T; at: number }>();

  constructor(private readonly what: string, private readonly ttlMs = 3_600_000, private readonly max = 32) {}

  keep(owner: string, value: T): string {
    const id = randomBytes(12).toString('base64url');
    this.items.set(id, { owner, value, at: Date.now() });
    // Old reviews nobody acted on go first.
    while (this.items.size > this.max) this.items.delete(this.items.keys().next().value!);
    return id;
  }

  /** The value shown under `id` for `owner`, taken (a second use is refused). */
  take(id: string, owner: string): T {
    const it = this.items.get(id);
    if (!it || it.owner !== owner || Date.now() - it.at > this.ttlMs) {
      throw new GpuDeskError('BAD_ARGUMENT', `That ${this.what} is not one this window was shown (or it was used or expired)`, `make the ${this.what} again, review it, then run it`);
    }
    this.items.delete(id);
    return it.value;
  }

  forget(owner: string): void {
    for (const [id, it] of this.items) if (it.owner === owner) this.items.delete(id);
  }
}
