import { randomBytes } from 'node:crypto';
import { GpuDeskError } from '../../errors';
import { connectSsh, type SshConnection } from '../../ssh/connection';
import type { ConnectOptions } from '../../ssh/types';
import { makeProfile } from '../../profiles/profileStore';
import type { ParsedInput } from '../../../shared/contract';
import type { ConnectionTestView } from '../../../shared/models';
import { appConnectOptions, type AppConnectDeps } from './appConnectOptions';

export interface ConnectionTestDeps extends AppConnectDeps {
  /** The SSH layer (tests pass a fake one). */
  connect?(options: ConnectOptions): Promise<SshConnection>;
}

/**
 * The Add-server dialog's Test connection: a login with the form's values, not saved, asking what a
 * real connect asks (the host key first, a password or passphrase), then a command, then it closes.
 * Nothing is remembered: no password goes to the keychain, no connection stays in the list. The
 * host key, when accepted and saved, is in known_hosts as after a real connect.
 */
export async function testConnection(deps: ConnectionTestDeps, input: ParsedInput<'connections.test'>['profile']): Promise<ConnectionTestView> {
  const { id: _id, ...fields } = input;
  // The form's values as a profile would be saved (the store's own checks), under a name of its own.
  const profile = makeProfile({ ...fields, auth: fields.auth.kind === 'password' ? { ...fields.auth, remember: false } : fields.auth });
  const asking = { id: `test-${randomBytes(6).toString('hex')}`, typed: [] as string[], accepted: new Set<string>() };
  let conn: SshConnection | null = null;
  try {
    const options = await appConnectOptions(deps, profile, asking, {});
    conn = await (deps.connect ?? connectSsh)({ ...options, reconnect: { enabled: false } });
    const r = await conn.exec('true', { timeoutMs: 20_000 });
    if (r.code !== 0) throw new GpuDeskError('REMOTE_COMMAND_FAILED', `logged in, but the server refused to run a command (exit ${r.code})`, "check the account's shell on the server");
    return { ok: true, label: conn.label, login: conn.lastLogin ?? null };
  } finally {
    // A question still open (the test was given up) goes with it.
    deps.prompts.cancelFor(asking.id);
    await conn?.close().catch(() => {});
  }
}
