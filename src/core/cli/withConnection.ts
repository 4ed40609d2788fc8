import { connectSsh, type SshConnection } from '../ssh/connection';
import type { ConnectOptions } from '../ssh/types';

/**
 * One SSH connection for a one-shot command, closed whatever happens. No reconnecting: a drop in the
 * middle ends the command with its error rather than retrying a half-done remote action.
 */
export async function withConnection<T>(options: ConnectOptions, fn: (conn: SshConnection) => Promise<T>): Promise<T> {
  const conn = await connectSsh({ ...options, reconnect: { enabled: false } });
  try {
    return await fn(conn);
  } finally {
    await conn.close();
  }
}
