import { GpuDeskError } from '../errors';

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
  let s = input.trim();
  if (!s) throw new GpuDeskError('BAD_ARGUMENT', 'The destination is empty', 'give user@host, host or a ~/.ssh/config alias');
  let allowPort = opts.allowPort;
  if (s.startsWith('ssh://')) {
    s = s.slice(6).replace(/\/$/, '');
    allowPort = true;
  }
  let user: string | undefined;
  const at = s.lastIndexOf('@');
  if (at >= 0) {
    user = s.slice(0, at);
    s = s.slice(at + 1);
    if (!user) throw badDest(input);
  }
  let host = s;
  let port: number | undefined;
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(s);
  if (bracket) {
    host = bracket[1];
    if (bracket[2]) port = parsePort(bracket[2], input);
  } else if (allowPort && /^[^:]+:\d+$/.test(s)) {
    const i = s.lastIndexOf(':');
    host = s.slice(0, i);
    port = parsePort(s.slice(i + 1), input);
  }
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
