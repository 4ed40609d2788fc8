import { connectSsh, type SshConnection } from '../ssh/connection';
import type { ConnectOptions } from '../ssh/types';
import type { CliIo } from './io';
import { connectOptionsFromFlags, type SshOptionValues } from './sshOptions';

/**
 * The CLI's one way to open a connection for a one-shot command. No reconnecting: a drop in the
 * middle ends the command with its error rather than retrying a half-done remote action.
 */
function connectOnce(options: ConnectOptions): Promise<SshConnection> {
  return connectSsh({ ...options, reconnect: { enabled: false } });
}

/** One connection to `destination` as the flags (and a profile of that name) say; the caller closes it. */
export async function connectFor(destination: string, values: SshOptionValues, io: CliIo): Promise<SshConnection> {
  return connectOnce(await connectOptionsFromFlags(destination, values, io));
}

/** One connection for `fn`, closed whatever happens. */
export async function withConnection<T>(options: ConnectOptions, fn: (conn: SshConnection) => Promise<T>): Promise<T> {
  const conn = await connectOnce(options);
  try {
    return await fn(conn);
  } finally {
    await conn.close();
  }
}
