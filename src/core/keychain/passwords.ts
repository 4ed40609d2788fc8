import { registerSecret } from '../errors';
import { account, type SecretStore } from './secretStore';

/** A server password the user asked gpu-desk to remember: keychain only, keyed by profile id. */
export async function savedPassword(secrets: SecretStore, profileId: string): Promise<string | null> {
  const pw = await secrets.get(account.password(profileId));
  if (pw !== null) registerSecret(pw);
  return pw;
}

export async function savePassword(secrets: SecretStore, profileId: string, password: string): Promise<void> {
  registerSecret(password);
  await secrets.set(account.password(profileId), password);
}

export async function forgetPassword(secrets: SecretStore, profileId: string): Promise<boolean> {
  return secrets.delete(account.password(profileId));
}
