import { GpuDeskError } from '../errors';
import { keyTypeOfBlob, sha256Fingerprint } from './fingerprint';
import { appendKnownHost, checkHostKey, readKnownHostsFiles } from './knownHosts';
import type { ConnectCallbacks, HostKeyPrompt } from './types';

export interface HostKeyJudgeInput {
  names: string[];
  host: string;
  port: number;
  hop: number;
  userKnownHostsFiles: string[];
  appKnownHostsFile: string;
  callbacks: ConnectCallbacks;
  /** Keys accepted "once" during this connection's life, so a reconnect does not ask again. */
  acceptedOnce: Set<string>;
}

/**
 * Decides a presented host key. Resolves true to continue; otherwise rejects with the error the user
 * must see (ssh2 itself would only say "Host denied (verification failed)").
 */
export async function judgeHostKey(input: HostKeyJudgeInput, keyBlob: Buffer): Promise<true> {
  const keyType = keyTypeOfBlob(keyBlob);
  const fingerprint = sha256Fingerprint(keyBlob);
  const entries = readKnownHostsFiles([...input.userKnownHostsFiles, input.appKnownHostsFile]);
  const verdict = checkHostKey(entries, input.names, keyType, keyBlob);
  const where = input.names[0];
  switch (verdict.status) {
    case 'known':
      return true;
    case 'revoked':
      throw new GpuDeskError(
        'HOST_KEY_CHANGED',
        `The host key of ${where} (${fingerprint}) is marked @revoked in ${verdict.entry.file}:${verdict.entry.line}`,
        'do not connect; ask the server administrator',
      );
    case 'changed': {
      const exp = verdict.expected[0];
      throw new GpuDeskError(
        'HOST_KEY_CHANGED',
        `HOST KEY CHANGED for ${where}: expected ${exp.fingerprint} (${exp.file}:${exp.line}) but the server presented ${fingerprint} (${keyType}) — someone may be intercepting the connection`,
        `if the server was really reinstalled, remove line ${exp.line} of ${exp.file} (ssh-keygen -R '${where}' -f ${exp.file}) and connect again`,
      );
    }
    case 'unknown': {
      const memo = `${where} ${fingerprint}`;
      if (input.acceptedOnce.has(memo)) return true;
      if (!input.callbacks.onUnknownHostKey) {
        throw new GpuDeskError(
          'HOST_KEY_UNKNOWN',
          `The host key of ${where} is not known (${keyType} ${fingerprint})`,
          'verify the fingerprint with the server administrator, then connect interactively or pass --accept-new-host-key',
        );
      }
      const prompt: HostKeyPrompt = { host: where, port: input.port, keyType, fingerprint, hop: input.hop };
      const decision = await input.callbacks.onUnknownHostKey(prompt);
      if (decision === 'accept-save') {
        appendKnownHost(input.appKnownHostsFile, where, keyType, keyBlob);
        return true;
      }
      if (decision === 'accept-once') {
        input.acceptedOnce.add(memo);
        return true;
      }
      throw new GpuDeskError('HOST_KEY_REJECTED', `The host key of ${where} (${fingerprint}) was not accepted`, 'connect again and accept the key once you have checked its fingerprint');
    }
  }
}
