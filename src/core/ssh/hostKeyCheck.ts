import { GpuDeskError } from '../errors';
import { keyTypeOfBlob, sha256Fingerprint } from './fingerprint';
import { appendKnownHost, checkHostKey, entryMatchesHost, readKnownHostsFiles, type KnownHostEntry, type KnownKeyRef } from './knownHosts';
import { caSignatureValid, certificateTimeProblem, isCertificateType, parseCertificateBlob } from './certificate';
import { revokedBy, type RevocationSubject } from './revokedKeys';
import type { StrictHostKeyChecking } from './sshConfig';
import type { ConnectCallbacks, HostKeyPrompt } from './types';

export interface HostKeyJudgeInput {
  names: string[];
  host: string;
  port: number;
  hop: number;
  /** Read-only files (UserKnownHostsFile, then GlobalKnownHostsFile), as OpenSSH reads them. */
  readOnlyFiles: string[];
  appKnownHostsFile: string;
  /** undefined behaves as `ask`. */
  strictHostKeyChecking?: StrictHostKeyChecking;
  callbacks: ConnectCallbacks;
  /** Keys accepted "once" during this connection's life, so a reconnect does not ask again. */
  acceptedOnce: Set<string>;
  /** HostKeyAlias: the name a host certificate must be for, instead of `host`. */
  hostKeyAlias?: string;
  /** RevokedHostKeys files (KRL or public-key lines), checked before known_hosts as ssh does. */
  revokedHostKeys?: string[];
}

/**
 * OpenSSH falls back to the port-less name when `[host]:port` finds nothing (sshconnect.c "checking
 * without port identifier"): a `host KEY` or `@cert-authority host CA` line also covers other ports.
 * Never with HostKeyAlias (the alias is the whole name) and never for port 22 (already port-less).
 */
function portlessNames(input: HostKeyJudgeInput): string[] {
  if (input.hostKeyAlias !== undefined || input.port === 22) return [];
  return [input.host];
}

/** RevokedHostKeys: throws when a file revokes the key (or cannot be read), as ssh refuses before known_hosts. */
function checkRevokedFiles(input: HostKeyJudgeInput, subject: RevocationSubject, keyType: string, fingerprint: string): void {
  for (const file of input.revokedHostKeys ?? []) {
    const how = revokedBy(file, subject);
    if (how) {
      throw new GpuDeskError(
        'HOST_KEY_REJECTED',
        `The host key of ${input.names[0]} (${keyType} ${fingerprint}) is revoked by ${file} (${how})`,
        'do not connect; ask the server administrator',
      );
    }
  }
}

function list(keys: KnownKeyRef[]): string {
  return keys.map((k) => `${k.keyType} ${k.fingerprint} (${k.file}:${k.line})`).join(', ');
}

/**
 * A host with known keys of other types is not new: the key type changed (OpenSSH: "WARNING: <type>
 * key found for host … The authenticity of host … can't be established but keys of different type are
 * already known"). Also used when the handshake finds no common host key type: `offeredTypes` are the
 * types the server offers instead, `presented` the key it has now where it could be fetched.
 */
export function otherTypeKnownError(where: string, known: KnownKeyRef[], presented?: { keyType: string; fingerprint: string }, offeredTypes: string[] = []): GpuDeskError {
  const what = presented
    ? `presented a ${presented.keyType} key (${presented.fingerprint})`
    : offeredTypes.length
      ? `offers only ${offeredTypes.join(', ')} host keys`
      : 'offers none of the host key types known for it';
  const first = known[0];
  return new GpuDeskError(
    'HOST_KEY_CHANGED',
    `The host key type of ${where} changed: it ${what}, but known_hosts holds ${list(known)} for it — someone may be intercepting the connection`,
    `if the server's keys really changed, remove the old entries (ssh-keygen -R '${where}' -f ${first.file}) and connect again`,
  );
}

/**
 * Decides a presented host key. Resolves true to continue; otherwise rejects with the error the user
 * must see (ssh2 itself would only say "Host denied (verification failed)").
 */
export async function judgeHostKey(input: HostKeyJudgeInput, keyBlob: Buffer): Promise<true> {
  const keyType = keyTypeOfBlob(keyBlob);
  const fingerprint = sha256Fingerprint(keyBlob);
  const entries = readKnownHostsFiles([...input.readOnlyFiles, input.appKnownHostsFile]);
  if (isCertificateType(keyType)) return judgeHostCertificate(input, keyBlob, entries);
  checkRevokedFiles(input, { publicKey: keyBlob }, keyType, fingerprint);
  let verdict = checkHostKey(entries, input.names, keyType, keyBlob);
  if (verdict.status === 'unknown') {
    // OpenSSH's retry without the port: only a match counts; a different key there is not a change.
    const portless = portlessNames(input);
    const retry = portless.length ? checkHostKey(entries, portless, keyType, keyBlob) : null;
    if (retry?.status === 'known' || retry?.status === 'revoked') verdict = retry;
  }
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
      // Neither a prompt nor accept-new may turn a known host into a "new" one.
      if (verdict.otherKeys.length) throw otherTypeKnownError(where, verdict.otherKeys, { keyType, fingerprint });
      if (verdict.certAuthorities.length) {
        // Certificates were asked for first: a server that presents a plain key instead has none
        // (or none gpu-desk can take); asking about that key would bypass the CA the user trusts.
        const ca = verdict.certAuthorities[0];
        throw new GpuDeskError(
          'HOST_KEY_UNKNOWN',
          `${where} is trusted through a host certificate authority (@cert-authority in ${ca.file}:${ca.line}), but it presented a plain ${keyType} key, not a host certificate`,
          `pin the server's plain key instead: check that "ssh-keyscan -t ${keyType} ${scanTarget(input.host, input.port)}" shows ${fingerprint} (ssh-keygen -lf), then add that line to ${input.appKnownHostsFile}`,
        );
      }
      const memo = `${where} ${fingerprint}`;
      if (input.acceptedOnce.has(memo)) return true;
      const prompt: HostKeyPrompt = { host: where, port: input.port, keyType, fingerprint, hop: input.hop };
      const strict = input.strictHostKeyChecking ?? 'ask';
      if (strict === 'yes') {
        throw new GpuDeskError(
          'HOST_KEY_UNKNOWN',
          `The host key of ${where} is not known (${keyType} ${fingerprint}) and StrictHostKeyChecking is yes`,
          `add the key to ${input.readOnlyFiles[0] ?? input.appKnownHostsFile} after checking its fingerprint with the server administrator`,
        );
      }
      if (strict === 'accept-new') {
        appendKnownHost(input.appKnownHostsFile, where, keyType, keyBlob);
        input.callbacks.notice?.(`Warning: saved the new ${keyType} host key of ${where}${hopLabel(input.hop)} in ${input.appKnownHostsFile}: ${fingerprint}`);
        return true;
      }
      if (strict === 'no') {
        input.callbacks.notice?.(`StrictHostKeyChecking no is treated as ask: gpu-desk never connects to a host whose key nobody has checked`);
      }
      if (!input.callbacks.onUnknownHostKey) {
        throw new GpuDeskError(
          'HOST_KEY_UNKNOWN',
          `The host key of ${where} is not known (${keyType} ${fingerprint})`,
          'verify the fingerprint with the server administrator, then connect interactively or pass --accept-new-host-key',
        );
      }
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

/**
 * A host certificate (OpenSSH's check_host_cert): accepted, without a question or a known_hosts
 * line, only when a @cert-authority line for this host holds the CA that signed it, the signature
 * verifies, it is a host certificate for this name (or HostKeyAlias) and valid now, and neither the
 * CA nor the host's key is @revoked. Anything else is refused, naming why.
 */
function judgeHostCertificate(input: HostKeyJudgeInput, blob: Buffer, entries: KnownHostEntry[]): true {
  const where = input.names[0];
  const refuse = (why: string, fix = 'do not connect; ask the server administrator') =>
    new GpuDeskError('HOST_KEY_REJECTED', `The host certificate of ${where} was refused: ${why}`, fix);
  let c;
  try {
    c = parseCertificateBlob(blob, `presented by ${where}`);
  } catch (e) {
    throw refuse(`the certificate ${(e as Error).message}`);
  }
  const caFp = sha256Fingerprint(c.caKey);
  checkRevokedFiles(input, { publicKey: c.publicKey, cert: { caKey: c.caKey, serial: c.serial, keyId: c.keyId } }, c.type, sha256Fingerprint(blob));
  const revoked = entries.find((e) => e.marker === '@revoked' && (e.keyBlob.equals(c.caKey) || e.keyBlob.equals(c.publicKey)));
  if (revoked) throw refuse(`${revoked.keyBlob.equals(c.caKey) ? `its CA (${caFp})` : 'its key'} is marked @revoked in ${revoked.file}:${revoked.line}`);
  const forNames = (names: string[]) => entries.filter((e) => e.marker === '@cert-authority' && names.some((n) => entryMatchesHost(e, n)));
  let trusted = forNames(input.names);
  // As for plain keys, OpenSSH retries without the port when no CA line names [host]:port.
  if (!trusted.some((e) => e.keyBlob.equals(c.caKey))) trusted = [...trusted, ...forNames(portlessNames(input))];
  if (!trusted.some((e) => e.keyBlob.equals(c.caKey))) {
    throw refuse(
      `it is signed by a CA (${c.caType} ${caFp}) that no @cert-authority line for it trusts${trusted.length ? ` (trusted: ${trusted.map((e) => `${e.file}:${e.line}`).join(', ')})` : ''}`,
      'ask the administrator for the site\'s host CA key and add it as a @cert-authority line, after checking its fingerprint',
    );
  }
  if (c.kind !== 'host') throw refuse('it is a user certificate, not a host certificate');
  // sshconnect.c check_host_cert: no critical option is defined for host certificates, so any is unsupported.
  if (c.criticalOptions.length) throw refuse(`it has unsupported critical options (${c.criticalOptions.map((o) => o.slice(0, 64)).join(', ')}), which OpenSSH refuses too`);
  if (!caSignatureValid(c)) throw refuse(`its CA signature does not verify (${c.signature.subarray(4, 4 + c.signature.readUInt32BE(0)).toString()})`);
  const name = (input.hostKeyAlias ?? input.host).toLowerCase();
  if (c.principals.length && !c.principals.includes(name)) throw refuse(`it is for ${c.principals.join(', ')}, not for ${name}`);
  const time = certificateTimeProblem(c);
  if (time) throw refuse(time);
  return true;
}

function hopLabel(hop: number): string {
  return hop > 0 ? ` (hop ${hop + 1})` : '';
}

function scanTarget(host: string, port: number): string {
  return port === 22 ? host : `-p ${port} ${host}`;
}
