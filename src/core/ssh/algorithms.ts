/**
 * Transport settings spread into ssh2's `Client.connect()` config by connection.ts.
 *
 * Window: ssh2 alone advertises a fixed 2 MiB channel window, so one channel carries at most
 * ~2 MiB per round trip (≈ 20 MiB/s at 100 ms). patches/ssh2+1.17.0.patch adds `channelWindow`
 * (opening window) and `channelWindowMax` (ceiling the window auto-tunes toward: twice what the
 * application consumed per round trip). Window is only granted for consumed data, so a slow
 * viewer stalls the sender instead of filling memory: per channel at most `channelWindowMax`
 * bytes wait in the app. See docs/ssh2-window-patch.md.
 *
 * Cipher: AES-GCM first: with AES-NI / ARMv8 crypto (every desktop CPU this app targets) it
 * measured at least as fast as chacha20-poly1305 through ssh2 here (bench:tunnel); chacha20
 * stays next for servers that lack GCM.
 *
 * Writer: SSH packets go to the socket through socketWriter (../net/leanSocket), which skips the
 * Writable's per-write bookkeeping; each message of an interactive session pays it on the way out.
 */
import type { Socket } from 'node:net';
import type { CipherAlgorithm } from 'ssh2';
import { GpuDeskError } from '../errors';
import { socketWriter, type SocketWriter } from '../net/leanSocket';

/** Opening window, as OpenSSH: small channels (exec, probes) never need more. */
export const CHANNEL_WINDOW = 2 * 1024 * 1024;
/**
 * Ceiling: 16 MiB keeps ≥ 80 MiB/s possible at 200 ms round trip (a perceptually lossless full-HD
 * stream wants 20–50 MB/s) while bounding what one slow viewer can make the app hold.
 */
export const CHANNEL_WINDOW_MAX = 16 * 1024 * 1024;

export const CIPHERS: CipherAlgorithm[] = [
  'aes128-gcm@openssh.com',
  'aes256-gcm@openssh.com',
  'chacha20-poly1305@openssh.com',
  'aes128-ctr',
  'aes192-ctr',
  'aes256-ctr',
];

export interface SshTransportOptions {
  algorithms: { cipher: CipherAlgorithm[] };
  /** ssh2 option added by our patch: receive window a channel opens with (bytes). */
  channelWindow: number;
  /** ssh2 option added by our patch: auto-tuning ceiling of a channel's receive window (bytes). */
  channelWindowMax: number;
  /** ssh2 option added by our patch: how protocol packets are written to the socket. */
  socketWriter: (sock: Socket) => SocketWriter;
}

export function sshTransportOptions(over: Partial<Pick<SshTransportOptions, 'channelWindow' | 'channelWindowMax'>> = {}): SshTransportOptions {
  const channelWindow = over.channelWindow ?? CHANNEL_WINDOW;
  return {
    algorithms: { cipher: [...CIPHERS] },
    channelWindow,
    channelWindowMax: Math.max(channelWindow, over.channelWindowMax ?? CHANNEL_WINDOW_MAX),
    socketWriter: (sock) => socketWriter(sock),
  };
}

/**
 * Host-key and public-key signature algorithms as OpenSSH ≥ 8.8 defaults them, the subset ssh2 can
 * do: no `ssh-rsa` (RSA with SHA-1 signatures) unless ssh_config adds it (`HostKeyAlgorithms +ssh-rsa`,
 * `PubkeyAcceptedAlgorithms +ssh-rsa`), as for ssh. RSA keys still work through rsa-sha2-512/256.
 */
export const DEFAULT_HOST_KEY_ALGORITHMS = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'rsa-sha2-512', 'rsa-sha2-256'];
/** What a config may add: ssh2 also speaks these, OpenSSH ≥ 8.8 only when asked to. */
export const SUPPORTED_HOST_KEY_ALGORITHMS = [...DEFAULT_HOST_KEY_ALGORITHMS, 'ssh-rsa', 'ssh-dss'];
export const DEFAULT_PUBKEY_ALGORITHMS = DEFAULT_HOST_KEY_ALGORITHMS;
export const SUPPORTED_PUBKEY_ALGORITHMS = SUPPORTED_HOST_KEY_ALGORITHMS;

function wildcard(pattern: string): RegExp {
  return new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
}

/** The supported algorithms a comma list of names or wildcards names, in the list's order. */
function expand(list: string, supported: string[]): string[] {
  const out: string[] = [];
  for (const p of list.split(',').map((s) => s.trim()).filter(Boolean)) {
    const re = wildcard(p);
    for (const a of supported) if (re.test(a) && !out.includes(a)) out.push(a);
  }
  return out;
}

/**
 * OpenSSH's kex_assemble_names for a HostKeyAlgorithms / PubkeyAcceptedAlgorithms value: `+list`
 * appends to the defaults, `-list` removes from them, `^list` puts them first, a plain list replaces
 * them; wildcards allowed. Names ssh2 cannot do (certificates, security keys) are left out; a value
 * that leaves nothing is an error naming the setting. No value: the defaults.
 */
export function assembleAlgorithms(value: string | undefined, defaults: string[], supported: string[], what: string): string[] {
  if (value === undefined || !value.trim()) return [...defaults];
  const v = value.trim();
  let out: string[];
  if (v.startsWith('+')) out = [...defaults, ...expand(v.slice(1), supported).filter((a) => !defaults.includes(a))];
  else if (v.startsWith('-')) {
    const drop = expand(v.slice(1), supported);
    out = defaults.filter((a) => !drop.includes(a));
  } else if (v.startsWith('^')) {
    const head = expand(v.slice(1), supported);
    out = [...head, ...defaults.filter((a) => !head.includes(a))];
  } else out = expand(v, supported);
  if (!out.length) {
    throw new GpuDeskError('BAD_SSH_CONFIG', `${what} "${v}" leaves no algorithm gpu-desk can use`, `list at least one of ${supported.join(', ')}`);
  }
  return out;
}

/** Whether a key of this type (ssh2's parsed `type`) may sign with one of the accepted algorithms. */
export function keyTypeAccepted(keyType: string, accepted: string[]): boolean {
  if (keyType === 'ssh-rsa') return accepted.some((a) => a === 'rsa-sha2-512' || a === 'rsa-sha2-256' || a === 'ssh-rsa');
  return accepted.includes(keyType);
}
