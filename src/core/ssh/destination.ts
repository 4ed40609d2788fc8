import { GpuDeskError } from '../errors';
import { splitDestination } from '../../shared/destinationSplit';

export interface ParsedDestination {
  user?: string;
  host: string;
  port?: number;
}

const HOST_RE = /^[A-Za-z0-9_.%:-]+$/;

/**
 * OpenSSH destinations: `host`, `user@host`, `ssh://[user@]host[:port]`, and for jump hosts
 * `[user@]host[:port]`; IPv6 in brackets (`[::1]:2222`). The user part may contain '@' (the last
 * '@' separates), as OpenSSH allows for e-mail-like account names.
 */
export function parseDestination(input: string, opts: { allowPort: boolean } = { allowPort: false }): ParsedDestination {
  const s = input.trim();
  if (!s) throw new GpuDeskError('BAD_ARGUMENT', 'The destination is empty', 'give user@host, host or a ~/.ssh/config alias');
  // The split is shared with the Add-server form; the checks and their errors are the CLI's.
  const parts = splitDestination(s, opts);
  if (parts.user === '') throw badDest(input);
  const { user, host } = parts;
  const port = parts.port === undefined ? undefined : parsePort(parts.port, input);
  const allowPort = opts.allowPort || s.startsWith('ssh://');
  const rest = s.replace(/^ssh:\/\//, '');
  // `[v6]:port` carries its port even where a bare `host:port` is not allowed.
  const bracket = rest.slice(rest.lastIndexOf('@') + 1).startsWith('[');
  if (!host || !HOST_RE.test(host) || host.startsWith('-')) throw badDest(input);
  if (port !== undefined && !allowPort && !bracket) throw badDest(input);
  return { user, host, port };
}

export function parsePort(text: string, context: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > 65535) {
    throw new GpuDeskError('BAD_ARGUMENT', `Port "${text}" in "${context}" is not a number between 1 and 65535`, 'use a port such as 22');
  }
  return n;
}

function badDest(input: string): GpuDeskError {
  return new GpuDeskError(
    'BAD_ARGUMENT',
    `"${input}" is not a valid SSH destination`,
    'write it as user@host, host, ssh://user@host:port or a Host alias from ~/.ssh/config',
  );
}
