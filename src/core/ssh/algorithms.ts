// Transport settings spread into ssh2's Client.connect() config (owned by the long-link work, issue 7).
export function sshTransportOptions(): Record<string, unknown> {
  return {};
}
