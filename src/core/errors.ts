/**
 * Errors are values with a stable code, a one-line message a user can act on, and never a secret.
 * `fix` says what to do; the CLI prints `error: <message> — <fix>`.
 */
import type { ErrorCode } from '../shared/errorCodes';

export type { ErrorCode };

export class GpuDeskError extends Error {
  readonly code: ErrorCode;
  readonly fix?: string;
  constructor(code: ErrorCode, message: string, fix?: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'GpuDeskError';
    this.code = code;
    this.fix = fix;
  }
  /** One line for humans: cause, then the fix. */
  toLine(): string {
    return this.fix ? `${this.message} — ${this.fix}` : this.message;
  }
  toJSON(): { code: ErrorCode; message: string; fix?: string } {
    return { code: this.code, message: this.message, ...(this.fix ? { fix: this.fix } : {}) };
  }
}

export function isGpuDeskError(e: unknown): e is GpuDeskError {
  return e instanceof GpuDeskError;
}

/** Turn anything thrown into a serialisable {code, message} without leaking internals. */
export function toErrorValue(e: unknown): { code: ErrorCode; message: string; fix?: string } {
  if (isGpuDeskError(e)) return e.toJSON();
  const msg = e instanceof Error ? e.message : String(e);
  return { code: 'INTERNAL', message: redactSecrets(msg).split('\n')[0].slice(0, 500) };
}

const PRIVATE_KEY_RE = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g;

/**
 * Last-line defence for text leaving the process (logs, IPC errors): strips PEM/OpenSSH private
 * keys and every value registered as secret and not yet released.
 *
 * Values of SHORT_SECRET characters or fewer (PINs, 2FA codes) are never held here: "1234" would
 * mangle every port, count and date in every log line. They are redacted, as whole tokens, only in
 * the strings of the exchange where they were typed (the `scoped` argument).
 */
const SHORT_SECRET = 4;
const knownSecrets = new Map<string, number>();
const noRelease = (): void => {};

/**
 * Registers a secret until the returned release is called. Counted: two users of one value (the
 * same password typed for two servers) each release their own registration, not the other's.
 */
export function registerSecret(value: string | undefined | null): () => void {
  if (!value || value.length <= SHORT_SECRET) return noRelease;
  knownSecrets.set(value, (knownSecrets.get(value) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const n = (knownSecrets.get(value) ?? 1) - 1;
    if (n > 0) knownSecrets.set(value, n);
    else knownSecrets.delete(value);
  };
}

export function redactSecrets(text: string, scoped: readonly (string | null | undefined)[] = []): string {
  let out = text.replace(PRIVATE_KEY_RE, '[redacted private key]');
  for (const s of knownSecrets.keys()) {
    if (out.includes(s)) out = out.split(s).join('[redacted]');
  }
  for (const s of scoped) {
    if (!s) continue;
    if (s.length > SHORT_SECRET) {
      if (out.includes(s)) out = out.split(s).join('[redacted]');
    } else if (out.includes(s)) {
      // Whole tokens only: a PIN "1234" must not take the "1234" out of "port 51234".
      out = out.replace(new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(s)}(?![\\p{L}\\p{N}])`, 'gu'), '[redacted]');
    }
  }
  return out;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
