import { GpuDeskError } from '../errors';
import type { ForwardSpec as SavedForward } from '../../shared/profileSchema';

/** A local forward as OpenSSH's -L writes it (a saved forward without its kind); the bind address may only be loopback. */
export type ForwardSpec = Omit<SavedForward, 'kind'>;

export const LOOPBACK = '127.0.0.1';

export function displayToPort(display: number): number {
  if (!Number.isInteger(display) || display < 0 || display > 99) {
    throw new GpuDeskError('DISPLAY_OUT_OF_RANGE', `Display ${display} is out of range`, 'use a display number from 0 to 99 (display :n listens on port 5900+n)');
  }
  return 5900 + display;
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
  if (!m) throw badSpec(spec, 'expected LOCAL_PORT:HOST:REMOTE_PORT');
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
