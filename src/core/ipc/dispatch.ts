import type { ZodType } from 'zod';
import { GpuDeskError, redactSecrets, toErrorValue, type ErrorCode } from '../errors';
import { checkInputShape, DEFAULT_LIMITS, findDroppedKey, type InputLimits } from './inputShape';
import type { IpcError, IpcResult } from '../../shared/bridge';

/** Method name → input schema. Derived from src/shared/contract.ts by whoever builds the router. */
export type InputSchemas = Record<string, ZodType>;

export interface CallContext<S> {
  method: string;
  sender: S;
}

// Handlers receive the parsed input (typed by the caller's handler map) and their call context.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Handler<S> = (input: any, ctx: CallContext<S>) => unknown;

export interface DispatcherOptions<S> {
  inputs: InputSchemas;
  handlers: Record<string, Handler<S>>;
  /** The router's first question: is this request from our own window (or harness session)? */
  isTrustedSender(sender: S): boolean;
  /** Receives one redacted line per refused or failed call. */
  log?(line: string): void;
  limits?: Partial<InputLimits>;
}

export type Dispatch<S> = (sender: S, method: unknown, input: unknown) => Promise<IpcResult>;

const MAX_MESSAGE = 400;
const METHOD_NAME_RE = /^[A-Za-z][A-Za-z0-9_.:-]{0,99}$/;

/**
 * The one router shared by Electron main (over ipcMain.handle) and the browser harness (over its
 * authenticated WebSocket): sender check → structural limits → strict zod parse → handler →
 * {ok, value} or a clean {code, message} with no secret and no internals inside.
 */
export function createDispatcher<S>(opts: DispatcherOptions<S>): Dispatch<S> {
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const missing = Object.keys(opts.inputs).filter((m) => typeof opts.handlers[m] !== 'function');
  if (missing.length > 0) throw new Error(`IPC router: no handler for ${missing.join(', ')}`);
  const extra = Object.keys(opts.handlers).filter((m) => !Object.hasOwn(opts.inputs, m));
  if (extra.length > 0) throw new Error(`IPC router: handler without contract entry: ${extra.join(', ')}`);
  const log = opts.log ?? (() => {});

  return async (sender, method, input) => {
    const name = typeof method === 'string' && METHOD_NAME_RE.test(method) ? method : '<invalid>';
    const refuse = (code: ErrorCode, message: string, fix?: string): IpcResult => {
      log(`ipc ${name}: refused ${code}: ${message}`);
      return { ok: false, error: clean({ code, message, ...(fix ? { fix } : {}) }) };
    };

    let trusted = false;
    try {
      trusted = opts.isTrustedSender(sender);
    } catch {
      trusted = false;
    }
    if (!trusted) return refuse('IPC_BAD_SENDER', 'Request from a frame that is not a gpu-desk window was refused.');

    if (name === '<invalid>' || !Object.hasOwn(opts.inputs, name)) {
      return refuse('IPC_UNKNOWN_METHOD', name === '<invalid>' ? 'Unknown IPC method.' : `Unknown IPC method "${name}".`,
        'Update the app: the window and the main process are from different versions.');
    }

    const shapeProblem = checkInputShape(input, limits);
    if (shapeProblem) return refuse('IPC_BAD_INPUT', `Invalid input for ${name}: ${shapeProblem}.`);

    const parsed = await opts.inputs[name].safeParseAsync(input);
    if (!parsed.success) {
      const issues = parsed.error.issues;
      const first = issues[0];
      const where = first && first.path.length > 0 ? `input.${first.path.map((p) => (typeof p === 'number' ? p : String(p))).join('.')}: ` : '';
      const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
      return refuse('IPC_BAD_INPUT', `Invalid input for ${name}: ${where}${first?.message ?? 'rejected'}${more}.`);
    }
    const dropped = findDroppedKey(input, parsed.data);
    if (dropped) return refuse('IPC_BAD_INPUT', `Invalid input for ${name}: unknown field ${dropped}.`);

    try {
      const value = await opts.handlers[name](parsed.data, { method: name, sender });
      return { ok: true, value };
    } catch (e) {
      const error = clean(toErrorValue(e));
      // Unexpected failures are logged with their stack (redacted) for diagnosis; the window sees one line.
      const detail = e instanceof GpuDeskError || !(e instanceof Error) ? '' : ` :: ${e.stack ?? ''}`;
      log(`ipc ${name}: failed ${error.code}: ${error.message}${redactSecrets(detail)}`);
      return { ok: false, error };
    }
  };
}

/** Redacted, single line, bounded: what may leave the process as an error value. */
export function clean(err: IpcError): IpcError {
  const line = (s: string) => {
    const one = redactSecrets(s).replace(/\s*[\r\n]+\s*/g, ' ').trim();
    return one.length > MAX_MESSAGE ? `${one.slice(0, MAX_MESSAGE - 1)}…` : one;
  };
  return { code: err.code, message: line(err.message), ...(err.fix ? { fix: line(err.fix) } : {}) };
}

/**
 * Events flow the other way (core → window). Only contract events are forwarded, so a core module
 * cannot turn into a side channel by emitting arbitrary names.
 */
export function createEventForwarder(
  eventNames: Iterable<string>,
  send: (event: string, payload: unknown) => void,
): (event: string, payload: unknown) => boolean {
  const known = new Set(eventNames);
  return (event, payload) => {
    if (!known.has(event)) return false;
    send(event, payload);
    return true;
  };
}
