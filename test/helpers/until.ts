/**
 * Polls `get` until `ok` holds of what it returns, and returns that; fails naming what it waited for.
 * A condition, not a fixed sleep: the 100 ms between polls only spaces the round trips.
 */
export async function until<T>(get: () => T | Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastSeen(v)}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The last value polled, when it says something (not a bare boolean), for the failure message. */
function lastSeen(v: unknown): string {
  if (typeof v === 'boolean' || v === undefined || v === null) return '';
  try {
    return ` (last: ${JSON.stringify(v).slice(0, 300)})`;
  } catch {
    return '';
  }
}

/** Waits until `cond` holds (a condition, polled; never a fixed sleep). */
export async function waitFor(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000, everyMs = 50): Promise<void> {
  await until(cond, (v) => v, what, timeoutMs, everyMs);
}

/** The first truthy value `get` returns, polled every `everyMs` until `timeoutMs` (named for the message first, as a test step reads). */
export async function eventually<T>(what: string, get: () => T | null | undefined | false | Promise<T | null | undefined | false>, timeoutMs = 90_000, everyMs = 250): Promise<T> {
  return (await until(get, (v) => !!v, what, timeoutMs, everyMs)) as T;
}
