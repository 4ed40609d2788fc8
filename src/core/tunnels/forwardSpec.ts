import { GpuDeskError } from '../errors';
import type { ForwardSpec as SavedForward } from '../../shared/profileSchema';

/** A local forward as OpenSSH's -L writes it (a saved forward without its kind); the bind address may only be loopback. */
export type ForwardSpec = Omit<SavedForward, 'kind'>;

export const LOOPBACK = '127.0.0.1';

/**
 * The one display-number check: a number or its text (`1`, `:1`, as typed on a command line or kept
 * in a profile), 0–99, to the port display :n listens on by convention (5900+n). Every caller that
 * takes a display number goes through here, so the error is the same one line everywhere.
 */
export function displayToPort(display: number | string): number {
  const fix = 'give 0–99 (display :N listens on port 5900+N)';
  const text = String(display).trim().replace(/^:/, '');
  if (!/^-?\d+$/.test(text)) {
    // Printable and short: the text may come from anywhere (a profile file, a pasted argument).
    const shown = text.replace(/[^\x20-\x7e]/g, '?').slice(0, 24);
    throw new GpuDeskError('DISPLAY_OUT_OF_RANGE', `Display '${shown}' is not a number`, fix);
  }
  const n = Number(text);
  if (n < 0 || n > 99) throw new GpuDeskError('DISPLAY_OUT_OF_RANGE', `Display ${n} is out of range`, fix);
  return 5900 + n;
}

/** A display number as typed (`1`, `:1`) or given, checked by displayToPort. */
export function displayNumber(display: number | string): number {
  return displayToPort(display) - 5900;
}

function badSpec(spec: string, why: string): GpuDeskError {
  return new GpuDeskError('BAD_FORWARD_SPEC', `Bad -L forward "${spec}": ${why}`, 'write it as LOCAL_PORT:HOST:REMOTE_PORT, e.g. -L 8888:localhost:8888');
}

function port(text: string, spec: string, allowZero: boolean): number {
  if (!/^\d+$/.test(text)) throw badSpec(spec, `"${text}" is not a port number`);
  const n = Number(text);
  if (n > 65535 || (n === 0 && !allowZero)) throw badSpec(spec, `port ${n} is out of range`);
  return n;
}

/** `[bind:]LOCAL:HOST:REMOTE`; HOST may be `[v6]`. A non-loopback bind is refused (listeners stay on 127.0.0.1). */
export function parseForwardSpec(spec: string): ForwardSpec {
  const m = /^(?:(\[[^\]]*\]|[^:[\]]*):)?(\d*):(\[[^\]]+\]|[^:[\]]+):(\d*)$/.exec(spec.trim());
  // The fix names the format; the cause only says what is wrong with this one.
  if (!m) throw badSpec(spec, 'not three parts separated by colons');
  const [, bind, local, host, remote] = m;
  if (bind !== undefined && bind !== '' && !['127.0.0.1', 'localhost', '[::1]', '::1'].includes(bind)) {
    throw badSpec(spec, `gpu-desk only listens on 127.0.0.1, not "${bind}"`);
  }
  if (local === '') throw badSpec(spec, 'the local port is missing');
  if (remote === '') throw badSpec(spec, 'the remote port is missing');
  return {
    localPort: port(local, spec, true),
    remoteHost: host.replace(/^\[|\]$/g, ''),
    remotePort: port(remote, spec, false),
  };
}
