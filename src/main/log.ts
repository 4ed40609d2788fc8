import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { format } from 'node:util';
import { redactSecrets } from '../core/errors';
import { escapeServerText } from '../core/serverText';

/**
 * The main process's log, in the platform's log folder (app.getPath('logs')): one line per event,
 * every line passed through redactSecrets (registered secrets, private keys) and through the
 * field/pattern filter below, so a password that was never registered still does not land on disk.
 */
export type Level = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(msg: string, ...args: unknown[]): void;
  info(msg: string, ...args: unknown[]): void;
  warn(msg: string, ...args: unknown[]): void;
  error(msg: string, ...args: unknown[]): void;
  readonly file: string;
}

const SENSITIVE_KEY = /pass(word|phrase)?|secret|token|private.?key|credential|otp|sudo/i;
// "password=…", "passphrase: …", "token=…" in free text (URLs, command lines, library messages).
const INLINE_SECRET = /\b(pass(?:word|phrase)?|secret|token|sudoPassword|vncPassword)(["']?\s*[:=]\s*["']?)([^\s"'&,;}]+)/gi;

/** Replace the values of secret-looking fields anywhere in a value before it is formatted. */
export function scrubValue(v: unknown, depth = 0): unknown {
  if (depth > 8 || v === null || typeof v !== 'object') return v;
  if (v instanceof Error) return v;
  if (Array.isArray(v)) return v.map((x) => scrubValue(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    out[k] = SENSITIVE_KEY.test(k) && x !== null && x !== undefined && x !== '' ? '[redacted]' : scrubValue(x, depth + 1);
  }
  return out;
}

export function redactLine(text: string): string {
  return redactSecrets(text).replace(INLINE_SECRET, (_m, k: string, sep: string) => `${k}${sep}[redacted]`);
}

export function formatLine(level: Level, msg: string, args: unknown[], now = new Date()): string {
  const body = format(msg, ...args.map((a) => scrubValue(a)));
  // One event per line: embedded newlines (stack traces) are indented continuation lines.
  // Lines carry server text (disconnect reasons, banners): escaped so `tail -f` or the development
  // echo on stderr cannot be driven by a server's escape sequences.
  return `${now.toISOString()} ${level.toUpperCase().padEnd(5)} ${escapeServerText(redactLine(body)).replace(/\n/g, '\n    ')}\n`;
}

export interface LoggerOptions {
  dir: string;
  name?: string;
  /** Rotate to <name>.old.log past this size. */
  maxBytes?: number;
  /** Also echo to stderr (development). */
  echo?: boolean;
  minLevel?: Level;
}

const ORDER: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export function createLogger(opts: LoggerOptions): Logger {
  const name = opts.name ?? 'main';
  const file = path.join(opts.dir, `${name}.log`);
  const maxBytes = opts.maxBytes ?? 5 * 1024 * 1024;
  const min = ORDER[opts.minLevel ?? 'info'];
  mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  let size = 0;
  try {
    size = statSync(file).size;
  } catch {
    size = 0;
  }
  const write = (level: Level, msg: string, args: unknown[]) => {
    if (ORDER[level] < min) return;
    const line = formatLine(level, msg, args);
    try {
      if (size + line.length > maxBytes) {
        renameSync(file, path.join(opts.dir, `${name}.old.log`));
        size = 0;
      }
    } catch {
      size = 0;
    }
    try {
      // Synchronous on purpose: the last lines before a crash are the ones that matter.
      appendFileSync(file, line, { mode: 0o600 });
      size += Buffer.byteLength(line);
    } catch {
      // A full disk or a read-only log folder must not take the app down.
    }
    if (opts.echo) process.stderr.write(line);
  };
  return {
    file,
    debug: (m, ...a) => write('debug', m, a),
    info: (m, ...a) => write('info', m, a),
    warn: (m, ...a) => write('warn', m, a),
    error: (m, ...a) => write('error', m, a),
  };
}
