import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { utils } from 'ssh2';
import type { AnyAuthMethod, AuthHandlerMiddleware, AuthenticationType, ParsedKey } from 'ssh2';
import { redactSecrets, registerSecret } from '../errors';
import type { ConnectCallbacks, KeySource, SshEndpoint } from './types';
import { keyTypeAccepted } from './algorithms';
import { AcceptedKeysAgent } from './acceptedKeysAgent';
import { readKeyFile } from './keyFile';
import { certificateProblem, certifiedKey, certifies, describeCertificate, principalHint, readCertificateFile, type UserCertificate } from './certificate';

/** What one hop may authenticate with; secrets learned during the first login are kept in memory for reconnects. */
export interface AuthPlanInput {
  endpoint: SshEndpoint;
  agent: string | undefined;
  keySources: KeySource[];
  identityFiles: string[];
  callbacks: ConnectCallbacks;
  /** Remembered between reconnects of one connection; never written anywhere. */
  memory: AuthMemory;
  /** This hop's place in the chain, told to every question it asks. */
  hop?: number;
  isTarget?: boolean;
  log: (line: string) => void;
  /** PubkeyAcceptedAlgorithms assembled from ssh_config; keys of a type none of them covers are not offered. Default: all. */
  pubkeyAlgorithms?: string[];
}

export interface AuthMemory {
  password?: string;
  passphrases: Map<string, string>;
}

export interface AuthReport {
  tried: string[];
  notes: string[];
  /** Why a certificate found was not offered (expired, another principal): the refusal's message leads with it. */
  certificateProblems: string[];
}

interface LoadedKey {
  data: Buffer;
  passphrase: string | undefined;
  parsed: ParsedKey;
}

type Attempt = () => Promise<AnyAuthMethod | null>;

/** Default identities OpenSSH tries when none is configured. */
export function defaultIdentityFiles(): string[] {
  const dir = path.join(os.homedir(), '.ssh');
  return ['id_ed25519', 'id_ecdsa', 'id_ecdsa_sk', 'id_ed25519_sk', 'id_rsa'].map((n) => path.join(dir, n));
}

/**
 * ssh-agent location: explicit, else IdentityAgent from ~/.ssh/config, else SSH_AUTH_SOCK, else on
 * Windows the OpenSSH agent's pipe when it exists, else Pageant.
 */
export function resolveAgent(
  setting: boolean | string | undefined,
  identityAgent?: string,
  sys: { platform: NodeJS.Platform; env: NodeJS.ProcessEnv; exists: (p: string) => boolean } = {
    platform: process.platform,
    env: process.env,
    exists: fs.existsSync,
  },
): string | undefined {
  if (setting === false) return undefined;
  if (typeof setting === 'string' && setting) return setting;
  if (identityAgent) {
    if (identityAgent.toLowerCase() === 'none') return undefined;
    if (identityAgent !== 'SSH_AUTH_SOCK') return expandHomeDir(identityAgent);
  }
  if (sys.env.SSH_AUTH_SOCK) return sys.env.SSH_AUTH_SOCK;
  if (sys.platform === 'win32') {
    const pipe = '\\\\.\\pipe\\openssh-ssh-agent';
    return sys.exists(pipe) ? pipe : 'pageant';
  }
  return undefined;
}

function expandHomeDir(p: string): string {
  return p.startsWith('~/') ? path.join(os.homedir(), p.slice(2)) : p;
}

function isEncryptedKeyError(e: Error): boolean {
  return /encrypted|passphrase/i.test(e.message);
}

/**
 * Builds ssh2's authHandler: the agent, keychain keys, key files (asking for passphrases),
 * keyboard-interactive (relayed prompts, so 2FA works) and password — in OpenSSH's order, skipping
 * methods the server did not offer.
 */
export function makeAuthHandler(input: AuthPlanInput, report: AuthReport): AuthHandlerMiddleware {
  const { endpoint, callbacks, memory, log } = input;
  const username = endpoint.user;
  const asking = { user: username, host: endpoint.host, hop: input.hop ?? 0, isTarget: input.isTarget ?? true };
  const queue: { method: AuthenticationType; attempt: Attempt }[] = [];
  const accepted = (keyType: string, label: string): boolean => {
    // A certificate is offered where the key it certifies is.
    if (!input.pubkeyAlgorithms || keyTypeAccepted(keyType.replace(/-cert-v01@openssh\.com$/, ''), input.pubkeyAlgorithms)) return true;
    report.notes.push(`${label}: a ${keyType} key, not offered (not in PubkeyAcceptedAlgorithms)`);
    return false;
  };

  if (input.agent) {
    const agent = new AcceptedKeysAgent(input.agent, accepted);
    queue.push({ method: 'publickey', attempt: async () => ({ type: 'agent', username, agent }) as AnyAuthMethod });
  }
  for (const src of input.keySources) {
    let keys: Awaited<ReturnType<KeySource['loadKeys']>> | null = null;
    let idx = 0;
    // A key with a certificate is offered twice: the certificate first, then (next slot) the key.
    let plainNext: AnyAuthMethod | null = null;
    const next: Attempt = async () => {
      if (plainNext) {
        const p = plainNext;
        plainNext = null;
        return p;
      }
      keys ??= await src.loadKeys(endpoint).catch((e: Error) => {
        report.notes.push(e.message);
        return [];
      });
      while (idx < keys.length) {
        const k = keys[idx++];
        const parsed = utils.parseKey(k.privateKey, k.passphrase);
        if (parsed instanceof Error) {
          report.notes.push(`${k.label}: unusable key (${parsed.message})`);
          continue;
        }
        if (!accepted(parsed.type, k.label)) continue;
        if (k.passphrase) registerSecret(k.passphrase);
        const plain = { type: 'publickey', username, key: k.privateKey, passphrase: k.passphrase } as AnyAuthMethod;
        const cert = k.certificateFile ? usableCertificate([k.certificateFile], parsed, k.label) : null;
        report.tried.push(`publickey (${k.label})`);
        if (!cert) return plain;
        plainNext = plain;
        return { type: 'publickey', username, key: certifiedKey(parsed, cert) as unknown as Buffer } as AnyAuthMethod;
      }
      return null;
    };
    // Two queue slots per possible key (certificate, key): the attempt itself skips ahead when a key is unusable.
    for (let i = 0; i < 32; i++) queue.push({ method: 'publickey', attempt: next });
  }
  for (const file of input.identityFiles) {
    // As ssh: the key's certificate first (a site's CA vouches for it where authorized_keys has no
    // line), then the key itself.
    queue.push({ method: 'publickey', attempt: () => certificateAttempt(file) });
    queue.push({ method: 'publickey', attempt: () => keyFileAttempt(file) });
  }
  if (callbacks.keyboardInteractive) {
    const ask = callbacks.keyboardInteractive;
    // Short answers (a PIN, a 2FA code) are not held globally; a server that echoes one in its next
    // round's prompt or instructions still must not show it.
    const typed: string[] = [];
    const clean = (t: string) => redactSecrets(t, typed);
    queue.push({
      method: 'keyboard-interactive',
      attempt: async () => {
        report.tried.push('keyboard-interactive');
        return {
          type: 'keyboard-interactive',
          username,
          prompt: (name: string, instructions: string, _lang: string, prompts: { prompt: string; echo?: boolean }[], finish: (answers: string[]) => void) => {
            if (!prompts.length) return finish([]);
            ask({ ...asking, name: clean(name), instructions: clean(instructions), prompts: prompts.map((p) => ({ prompt: clean(p.prompt), echo: !!p.echo })) }).then(
              (answers) => {
                for (const a of answers ?? []) {
                  registerSecret(a);
                  typed.push(a);
                }
                finish(answers ?? prompts.map(() => ''));
              },
              () => finish(prompts.map(() => '')),
            );
          },
        } as AnyAuthMethod;
      },
    });
  }
  queue.push({
    method: 'password',
    attempt: async () => {
      let pw = memory.password;
      if (pw === undefined && callbacks.askPassword) {
        pw = (await callbacks.askPassword(asking)) ?? undefined;
      }
      if (pw === undefined) return null;
      registerSecret(pw);
      memory.password = pw;
      report.tried.push('password');
      return { type: 'password', username, password: pw } as AnyAuthMethod;
    },
  });

  const loaded = new Map<string, Promise<LoadedKey | null>>();
  /** A key file read and decrypted once for both of its attempts (certificate and plain). */
  function loadKeyFile(file: string): Promise<LoadedKey | null> {
    let p = loaded.get(file);
    if (!p) {
      p = readAndDecrypt(file);
      loaded.set(file, p);
    }
    return p;
  }

  /** Certificate files read (a missing one is no certificate); null when none certifies `key` and is valid now. */
  function usableCertificate(files: string[], key: ParsedKey, label: string): UserCertificate | null {
    const pub = key.getPublicSSH();
    for (const cf of new Set(files)) {
      let c: UserCertificate | null;
      try {
        c = readCertificateFile(cf);
      } catch (e) {
        report.notes.push((e as Error).message);
        continue;
      }
      if (!c) continue;
      if (!certifies(c, pub)) {
        if (c.file.endsWith('-cert.pub')) report.notes.push(`${c.file} certifies another key than ${label}`);
        continue;
      }
      const problem = certificateProblem(c);
      if (problem) {
        report.notes.push(problem);
        report.certificateProblems.push(problem);
        continue;
      }
      const hint = principalHint(c, username);
      if (hint) report.certificateProblems.push(hint);
      report.tried.push(`publickey (${label} with its certificate ${c.file})`);
      log(`offering ${describeCertificate(c)} from ${c.file}`);
      return c;
    }
    return null;
  }

  async function certificateAttempt(file: string): Promise<AnyAuthMethod | null> {
    const candidates = [...(endpoint.certificateFiles ?? []), `${file}-cert.pub`];
    // Only a key that exists and has a certificate file is loaded here (no passphrase asked for nothing).
    if (!candidates.some((f) => fs.existsSync(f)) || !fs.existsSync(file)) return null;
    const k = await loadKeyFile(file);
    if (!k) return null;
    const c = usableCertificate(candidates, k.parsed, file);
    return c ? ({ type: 'publickey', username, key: certifiedKey(k.parsed, c) as unknown as Buffer } as AnyAuthMethod) : null;
  }

  async function keyFileAttempt(file: string): Promise<AnyAuthMethod | null> {
    const k = await loadKeyFile(file);
    if (!k) return null;
    if (!accepted(k.parsed.type, file)) return null;
    report.tried.push(`publickey (${file})`);
    return { type: 'publickey', username, key: k.data, passphrase: k.passphrase } as AnyAuthMethod;
  }

  async function readAndDecrypt(file: string): Promise<LoadedKey | null> {
    let data: Buffer;
    try {
      data = readKeyFile(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' || !isDefaultIdentity(file)) report.notes.push(`identity file ${file}: ${code === 'ENOENT' ? 'not found' : (e as Error).message}`);
      return null;
    }
    let parsed = utils.parseKey(data);
    let passphrase: string | undefined;
    if (parsed instanceof Error && isEncryptedKeyError(parsed)) {
      passphrase = memory.passphrases.get(file);
      for (let tries = 0; tries < 3; tries++) {
        if (passphrase === undefined) {
          if (!callbacks.askPassphrase) break;
          passphrase = (await callbacks.askPassphrase({ keyLabel: file })) ?? undefined;
          if (passphrase === undefined) break;
        }
        parsed = utils.parseKey(data, passphrase);
        if (!(parsed instanceof Error)) break;
        report.notes.push(`wrong passphrase for ${file}`);
        passphrase = undefined;
      }
      if (passphrase === undefined || parsed instanceof Error) {
        report.notes.push(`identity file ${file}: encrypted and no passphrase was given`);
        return null;
      }
      registerSecret(passphrase);
      memory.passphrases.set(file, passphrase);
    }
    if (parsed instanceof Error) {
      report.notes.push(`identity file ${file}: not a private key ssh2 can read (${parsed.message})`);
      return null;
    }
    return { data, passphrase, parsed };
  }

  let pos = 0;
  return (methodsLeft, _partial, callback) => {
    void (async () => {
      while (pos < queue.length) {
        const { method, attempt } = queue[pos++];
        if (methodsLeft && !methodsLeft.includes(method)) continue;
        try {
          const next = await attempt();
          if (next) return callback(next);
        } catch (e) {
          log(`auth attempt skipped: ${(e as Error).message}`);
        }
      }
      callback(false as unknown as AnyAuthMethod);
    })();
  };
}

function isDefaultIdentity(file: string): boolean {
  return defaultIdentityFiles().includes(file);
}
