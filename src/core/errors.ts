/**
 * Errors are values with a stable code, a one-line message a user can act on, and never a secret.
 * `fix` says what to do; the CLI prints `error: <message> — <fix>`.
 */
export type ErrorCode =
  | 'HOST_UNREACHABLE'
  | 'PROXY_COMMAND_FAILED'
  | 'DNS_FAILED'
  | 'CONNECT_TIMEOUT'
  | 'AUTH_FAILED'
  | 'HOST_KEY_CHANGED'
  | 'HOST_KEY_UNKNOWN'
  | 'HOST_KEY_REJECTED'
  | 'PORT_TAKEN'
  | 'DISPLAY_OUT_OF_RANGE'
  | 'BAD_FORWARD_SPEC'
  | 'BAD_ARGUMENT'
  | 'BAD_SSH_CONFIG'
  | 'KEY_FILE'
  | 'KEY_PASSPHRASE'
  | 'FORWARD_FAILED'
  | 'CONNECTION_LOST'
  | 'NOT_CONNECTED'
  | 'REMOTE_COMMAND_FAILED'
  | 'KEYCHAIN_UNAVAILABLE'
  | 'KEYCHAIN_LOCKED'
  | 'PROFILE_INVALID'
  | 'PROFILE_NOT_FOUND'
  | 'PROFILES_CORRUPT'
  | 'PROFILES_TOO_NEW'
  | 'PROFILES_LOCKED'
  | 'DATA_DIR_UNSAFE'
  | 'PROFILE_EXISTS'
  | 'KEY_NOT_FOUND'
  | 'KEY_EXISTS'
  | 'IPC_BAD_SENDER'
  | 'IPC_BAD_INPUT'
  | 'IPC_UNKNOWN_METHOD'
  | 'UNSUPPORTED_OS'
  | 'SUDO_FAILED'
  | 'PLAN_STEP_FAILED'
  | 'VNC_SESSION_FAILED'
  | 'CANCELLED'
  | 'SLURM_FAILED'
  | 'JOB_NOT_FOUND'
  | 'JOB_ENDED'
  | 'INTERNAL';

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
 * keys and any value registered as secret during this process's life.
 */
const knownSecrets = new Set<string>();
export function registerSecret(value: string | undefined | null): void {
  if (value && value.length >= 4) knownSecrets.add(value);
}
export function redactSecrets(text: string): string {
  let out = text.replace(PRIVATE_KEY_RE, '[redacted private key]');
  for (const s of knownSecrets) {
    if (out.includes(s)) out = out.split(s).join('[redacted]');
  }
  return out;
}
