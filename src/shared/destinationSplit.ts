/**
 * What a pasted SSH destination holds, as its fields: `host`, `user@host`, `user@host:port`,
 * `ssh://[user@]host[:port]`, `[v6]:port`. Pure (the renderer's Add-server form splits a paste into
 * Host, User and Port with it); core's parseDestination (src/core/ssh/destination.ts) is the strict
 * reader for the CLI and adds its one-line errors. A bare `host:port` counts only where `allowPort`.
 */
export interface DestinationParts {
  user?: string;
  host: string;
  /** The port's digits as written; the caller checks the range. */
  port?: string;
}

export function splitDestination(input: string, opts: { allowPort: boolean }): DestinationParts {
  let s = input.trim();
  let allowPort = opts.allowPort;
  if (s.startsWith('ssh://')) {
    s = s.slice(6).replace(/\/$/, '');
    allowPort = true;
  }
  let user: string | undefined;
  // The last '@' separates: OpenSSH allows e-mail-like account names.
  const at = s.lastIndexOf('@');
  if (at >= 0) {
    user = s.slice(0, at);
    s = s.slice(at + 1);
  }
  const bracket = /^\[([^\]]+)\](?::(\d+))?$/.exec(s);
  if (bracket) return { user, host: bracket[1], ...(bracket[2] ? { port: bracket[2] } : {}) };
  if (allowPort && /^[^:]+:\d+$/.test(s)) {
    const i = s.lastIndexOf(':');
    return { user, host: s.slice(0, i), port: s.slice(i + 1) };
  }
  return { user, host: s };
}
