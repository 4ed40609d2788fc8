import { registerSecret } from '../errors';
import { viewOnlyInvite } from '../remote/invite';
import type { SshSession } from '../ssh/types';
import type { ViewOnlyInviteView } from '../../shared/models';

/** How long a view-only password stays out of the app's logs once handed to the person. */
const REDACT_MS = 60 * 60_000;

/**
 * sessions.invite: a view-only one-time password for one of the connected account's TurboVNC
 * desktops, made over that connection, and the command a colleague runs with their own login.
 */
export async function inviteToWatch(live: { conn: SshSession; profile: { host: string; port?: number } }, display: number): Promise<ViewOnlyInviteView> {
  const invite = await viewOnlyInvite(live.conn, display, live.profile);
  // Shown to the person on purpose; kept out of any log line while it can still be used.
  const release = registerSecret(invite.password);
  setTimeout(release, REDACT_MS).unref?.();
  return invite;
}
