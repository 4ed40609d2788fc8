import { redactSecrets, registerSecret } from '../../errors';
import type { ConnectCallbacks, ConnectOptions, KeySource } from '../../ssh/types';
import { profileConnectOptions } from '../../profiles/connectOptions';
import { escapeServerText } from '../../serverText';
import type { Profile } from '../../../shared/models';
import type { PromptBroker } from '../prompts';

export interface AppConnectDeps {
  prompts: PromptBroker;
  /** The app's own known-hosts file (accepted keys are saved there, never in ~/.ssh). */
  knownHostsFile: string;
  sshConfigPath?: string | null;
  userKnownHostsFiles?: string[];
  keychainKeySource?(keyName: string): KeySource;
  log(line: string): void;
}

/** A profile's password for one connection: the remembered one (tried first) and what the person typed. */
export interface PasswordState {
  saved?: string;
  typed?: string;
}

/** What a connection's questions are asked for: its prompt id, the answers typed so far, the host keys accepted. */
export interface AskingFor {
  id: string;
  typed: string[];
  accepted: Set<string>;
}

export function remember(v: string | null): string | null {
  registerSecret(v);
  return v;
}

/** The app's connect options for a profile, its questions going to the window as prompts. */
export async function appConnectOptions(deps: AppConnectDeps, p: Profile, l: AskingFor, pw: PasswordState): Promise<ConnectOptions> {
  const ask = deps.prompts;
  const { id: connectionId, typed } = l;
  // Each question names the server that asks; only the target's password is the profile's (a jump
  // host's is neither filled in from it nor remembered as it).
  const askPassword = async (user: string, host: string, isTarget: boolean): Promise<string | null> => {
    const a = await ask.ask(connectionId, { kind: 'password', user, host });
    const v = a.kind === 'secret' ? remember(a.value) : null;
    if (v !== null && isTarget) pw.typed = v;
    return v;
  };
  const callbacks: ConnectCallbacks = {
    onUnknownHostKey: async (h) => {
      const a = await ask.ask(connectionId, { kind: 'hostKey', host: h.host, port: h.port, keyType: h.keyType, fingerprint: h.fingerprint, hop: h.hop });
      const decision = a.kind === 'hostKey' ? a.decision : 'reject';
      if (decision !== 'reject') l.accepted.add(`${h.hop} ${h.fingerprint}`);
      return decision;
    },
    askPassphrase: async ({ keyLabel }) => {
      const a = await ask.ask(connectionId, { kind: 'passphrase', keyLabel });
      return a.kind === 'secret' ? remember(a.value) : null;
    },
    askPassword: ({ user, host, isTarget }) => askPassword(user, host, isTarget !== false),
    notice: (line) => deps.log(redactSecrets(`[${p.name}] ${line}`, typed)),
    banner: (text) => deps.log(redactSecrets(`[${p.name}] banner: ${escapeServerText(text.trimEnd())}`, typed)),
    keyboardInteractive: async (kb) => {
      // PAM servers ask for the password as one hidden keyboard-interactive prompt, before the
      // password method: for a password profile it is the same password, remembered or asked
      // (and remembered) as such — on the target only. A jump host asking "Password:" is asked
      // about in its own name, and what is typed for it stays its own.
      const q = kb.prompts;
      const isTarget = kb.isTarget !== false;
      const user = kb.user ?? p.user ?? '';
      const host = kb.host ?? p.host;
      if (p.auth.kind === 'password' && q.length === 1 && !q[0].echo && /password/i.test(q[0].prompt)) {
        const known = isTarget ? (pw.typed ?? pw.saved) : undefined;
        const v = known ?? (await askPassword(user, host, isTarget));
        return v === null ? null : [v];
      }
      const who = `${user}@${host}`;
      const a = await ask.ask(connectionId, { kind: 'keyboardInteractive', name: kb.name ? `${who}: ${kb.name}` : who, instructions: kb.instructions, prompts: kb.prompts });
      if (a.kind !== 'answers' || !a.values) return null;
      for (const v of a.values) {
        registerSecret(v);
        typed.push(v);
      }
      return a.values;
    },
  };
  const known = pw.typed ?? pw.saved;
  return {
    ...profileConnectOptions(p, { keychainKey: deps.keychainKeySource, callbacks, ...(known !== undefined ? { password: known } : {}) }),
    sshConfigPath: deps.sshConfigPath,
    ...(deps.userKnownHostsFiles ? { userKnownHostsFiles: deps.userKnownHostsFiles } : {}),
    appKnownHostsFile: deps.knownHostsFile,
    // A person may take a while to compare a fingerprint; the handshake must wait for them.
    readyTimeoutMs: 120_000,
    reconnect: { enabled: true },
    log: (line) => deps.log(redactSecrets(`[${p.name}] ${line}`, typed)),
  };
}
