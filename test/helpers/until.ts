/**
 * Polls `get` until `ok` holds of what it returns, and returns that; fails naming what it waited for.
 * A condition, not a fixed sleep: the 100 ms between polls only spaces the round trips.
 */
export async function until<T>(get: () => T | Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
