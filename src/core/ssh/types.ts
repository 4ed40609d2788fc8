import type { Duplex } from 'node:stream';
import type { ConnectionState, HostKeyDecision } from '../../shared/models';

// Defined once in src/shared, where the window reads them too.
export type { ConnectionState, HostKeyDecision } from '../../shared/models';

/** Where to connect, after ~/.ssh/config has been applied. */
export interface SshEndpoint {
  /** What the user typed (alias, host or user@host). Used for known_hosts look-ups when no HostKeyAlias. */
  host: string;
  /** The address actually dialled (HostName from ~/.ssh/config, or host). */
  hostName: string;
  port: number;
  user: string;
  identityFiles: string[];
  /** CertificateFile entries (tokens and ~ expanded): certificates offered with the key each certifies. */
  certificateFiles?: string[];
}

export interface HostKeyPrompt {
  /** Host as written in known_hosts terms ("host" or "[host]:port"). */
  host: string;
  port: number;
  keyType: string;
  /** OpenSSH-style fingerprint, e.g. "SHA256:abc…" (base64 without padding). */
  fingerprint: string;
  /** 0 for the first jump host … n for the final target. */
  hop: number;
}

/** Which server asks: a jump host's questions are its own, never the target's. */
export interface AskingHop {
  user: string;
  host: string;
  /** 0 = the first jump host (or the target when there is none). */
  hop: number;
  /** The destination itself, the hop a profile's password belongs to. */
  isTarget: boolean;
}

export interface KeyboardInteractivePrompt extends Partial<AskingHop> {
  name: string;
  instructions: string;
  prompts: { prompt: string; echo: boolean }[];
}

/** How the connection asks a person (TTY, a dialog, a test) for decisions and secrets. */
export interface ConnectCallbacks {
  /** Unknown host key: never accepted without an answer from here. Absent → refused. */
  onUnknownHostKey?(p: HostKeyPrompt): Promise<HostKeyDecision>;
  /** Passphrase for an encrypted private key; null cancels that key. */
  askPassphrase?(p: { keyLabel: string }): Promise<string | null>;
  /** Password for user@host; null skips password auth. */
  askPassword?(p: { user: string; host: string } & Partial<AskingHop>): Promise<string | null>;
  /** Keyboard-interactive (2FA): one answer per prompt; null cancels. */
  keyboardInteractive?(p: KeyboardInteractivePrompt): Promise<string[] | null>;
  /** What OpenSSH would print as a warning (a host key saved by accept-new, a setting overridden). */
  notice?(line: string): void;
  /** The server's pre-authentication banner (sshd's Banner), as sent: escape it before showing it. */
  banner?(text: string, hop: number): void;
}

/** Seam for private keys that do not live in files (the OS keychain). */
export interface KeySource {
  /** A human label ("keychain:work-ed25519") and the key material (OpenSSH or PEM, unencrypted or with passphrase). */
  loadKeys(endpoint: SshEndpoint): Promise<{ label: string; privateKey: string | Buffer; passphrase?: string; certificateFile?: string }[]>;
}

export interface ReconnectPolicy {
  enabled: boolean;
  initialDelayMs: number;
  maxDelayMs: number;
  /** Give up after this many failed attempts in a row (Infinity = never). */
  maxAttempts: number;
}

export interface ConnectOptions {
  /** "host", "user@host", "user@host:port" or a ~/.ssh/config alias. */
  destination: string;
  port?: number;
  user?: string;
  identityFiles?: string[];
  /** Offer only keySources and explicit identityFiles on the target: no default ~/.ssh/id_* and no ssh-config IdentityFile (proving one key works). */
  onlyGivenKeys?: boolean;
  /**
   * An open connection to dial the first hop through (as ProxyJump would, but reusing its login:
   * one 2FA prompt for a cluster's login node, then its compute nodes). Its drop drops this one.
   */
  via?: SshSession;
  /** ProxyJump hops in order, each "user@host:port" or alias; overrides ~/.ssh/config's ProxyJump. */
  jump?: string[];
  /** ProxyCommand for the target (a saved profile's); overrides ~/.ssh/config's; ignored when jump is given, as ssh -J does. */
  proxyCommand?: string;
  /** Path of an ssh config file; default ~/.ssh/config; null = read none. */
  sshConfigPath?: string | null;
  /** Read-only known_hosts files; default UserKnownHostsFile from the config, else ~/.ssh/known_hosts, ~/.ssh/known_hosts2. */
  userKnownHostsFiles?: string[];
  /** Read-only system files; default GlobalKnownHostsFile from the config, else /etc/ssh/ssh_known_hosts and ssh_known_hosts2. */
  globalKnownHostsFiles?: string[];
  /** Overrides StrictHostKeyChecking from the config (`--accept-new-host-key` sets accept-new). */
  strictHostKeyChecking?: 'yes' | 'ask' | 'accept-new';
  /** The app's own known-hosts file, where accepted keys are saved. */
  appKnownHostsFile: string;
  /** ssh-agent: true = SSH_AUTH_SOCK (or the Windows pipe), string = explicit socket/'pageant', false = off. Default true. */
  agent?: boolean | string;
  /** Password known up front (e.g. from the keychain); otherwise askPassword is used. */
  password?: string;
  keySources?: KeySource[];
  keepaliveIntervalMs?: number;
  keepaliveCountMax?: number;
  readyTimeoutMs?: number;
  reconnect?: Partial<ReconnectPolicy>;
  callbacks?: ConnectCallbacks;
  /** Optional logger; receives no secrets. */
  log?: (line: string) => void;
}

export interface ConnectionStateEvent {
  state: ConnectionState;
  /** For reconnecting: attempt number and delay before it; for closed: why. */
  attempt?: number;
  delayMs?: number;
  reason?: string;
  code?: string;
}

/**
 * How much of each stream of one command is kept in memory. A hostile server or a runaway step
 * could otherwise grow the main process until it dies; what goes past the cap is counted, not kept.
 */
export const EXEC_OUTPUT_CAP_BYTES = 8 * 1024 * 1024;

export interface ExecResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  /** Present when a stream went past the cap: only its first capBytes were kept. */
  truncated?: { capBytes: number; stdoutDroppedBytes: number; stderrDroppedBytes: number };
}

export interface ExecOptions {
  /** Written to the command's stdin, then stdin is closed (sudo -S reads the password here). */
  stdin?: string | Buffer;
  timeoutMs?: number;
  /** Streamed output, for progress display. */
  onStdout?(chunk: string): void;
  onStderr?(chunk: string): void;
}

/** What every consumer of a live connection (tunnels, probe, sessions, keys) relies on. */
export interface SshSession {
  readonly state: ConnectionState;
  readonly endpoint: SshEndpoint;
  /** Run a command; the string must already be quoted with shellQuote(). */
  exec(command: string, opts?: ExecOptions): Promise<ExecResult>;
  /** A command whose stdout is a stream (stderr on `.stderr`); the string must already be quoted. */
  execStream?(command: string): Promise<import('ssh2').ClientChannel>;
  /** A TCP stream to host:port as seen from the server (direct-tcpip). */
  forwardOut(host: string, port: number): Promise<Duplex>;
  /** A stream to a Unix socket on the server (TurboVNC -rfbunixpath). */
  forwardOutUnix(path: string): Promise<Duplex>;
  /** Latest SSH round trip in ms (keepalive probe), or null before the first measurement. */
  readonly rttMs: number | null;
}
