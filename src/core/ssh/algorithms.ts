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
