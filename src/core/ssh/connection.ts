import { EventEmitter } from 'node:events';
import type { Duplex } from 'node:stream';
import { Client, type ClientChannel, type ConnectConfig, type SFTPWrapper } from 'ssh2';
import { GpuDeskError } from '../errors';
import type { LoginTiming } from '../../shared/models';
import { makeAuthHandler, resolveAgent, type AuthMemory, type AuthReport } from './auth';
import { assembleAlgorithms, DEFAULT_HOST_KEY_ALGORITHMS, DEFAULT_PUBKEY_ALGORITHMS, SUPPORTED_HOST_KEY_ALGORITHMS, SUPPORTED_PUBKEY_ALGORITHMS, sshTransportOptions } from './algorithms';
import { CappedBuffer } from './cappedBuffer';
import { commandOnStdin, shellCommand, type StdinCommand } from '../remote/shellQuote';
import { kexMismatchError, mapConnectError } from './errors';
import { judgeHostKey, otherTypeKnownError } from './hostKeyCheck';
import { keyTypeOfBlob, sha256Fingerprint } from './fingerprint';
import { entryMatchesHost, knownKeysFor, readKnownHostsFiles } from './knownHosts';
import { spawnProxyCommand, type ProxyProcess } from './proxyCommand';
import { resolveTarget, type ResolvedHop, type ResolvedTarget } from './resolve';
import { unappliedConfigNotes } from './sshConfig';
import {
  EXEC_OUTPUT_CAP_BYTES,
  type ConnectOptions,
  type ConnectionState,
  type ConnectionStateEvent,
  type ExecOptions,
  type ExecResult,
  type ReconnectPolicy,
  type SshEndpoint,
  type SshSession,
} from './types';

/**
 * As OpenSSH: a host with keys in known_hosts is offered only those key types, so a server (or
 * someone in between) presenting another type is refused instead of looking like a new host.
 * `allowed`: HostKeyAlgorithms assembled from ssh_config (OpenSSH ≥ 8.8's defaults: no ssh-rsa).
 */
export function hostKeyAlgorithms(known: string[], allowed: string[] = DEFAULT_HOST_KEY_ALGORITHMS): string[] {
  if (!known.length) return [...allowed];
  const fam = (t: string) => (t === 'ssh-rsa' ? ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'] : [t]);
  return [...new Set(known.flatMap(fam))].filter((t) => allowed.includes(t));
}

const OFFER_PREFIX = 'Handshake: (remote) Host key format: ';
const KEX_OFFER_PREFIX = 'Handshake: (remote) KEX method: ';

/** The server signs its host key only with ssh-rsa (SHA-1), which OpenSSH ≥ 8.8 refuses unless HostKeyAlgorithms adds it. */
function sha1OnlyError(where: string, host: string): GpuDeskError {
  return new GpuDeskError(
    'HOST_KEY_REJECTED',
    `${where} offers only ssh-rsa host-key signatures (RSA with SHA-1), which gpu-desk refuses by default as OpenSSH 8.8 and later do`,
    `update the server's OpenSSH; or, if you accept SHA-1 for this server, add "HostKeyAlgorithms +ssh-rsa" under "Host ${host}" in ~/.ssh/config, as ssh needs too`,
  );
}

interface InternalClient {
  _callbacks?: ((hadErr?: unknown) => void)[];
  _protocol?: { ping?: () => void };
}

/**
 * One SSH connection to a server, through any ProxyJump hops, that stays up: keepalive probes also
 * measure the round trip, and a lost connection is re-established with capped exponential backoff.
 * Consumers (tunnels, probe, sessions) only see SshSession and the 'state' events.
 */
export class SshConnection extends EventEmitter implements SshSession {
  private _state: ConnectionState = 'idle';
  private clients: Client[] = [];
  private target: ResolvedTarget;
  private readonly memories: AuthMemory[];
  private readonly acceptedOnce = new Set<string>();
  private readonly policy: ReconnectPolicy;
  private closing = false;
  private keepaliveTimer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private _rttMs: number | null = null;
  private _lastLogin: LoginTiming | null = null;
  private readyWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private readonly log: (line: string) => void;
  private readonly endedByServer = new WeakSet<Client>();

  constructor(private readonly opts: ConnectOptions) {
    super();
    this.target = resolveTarget(opts);
    this.memories = this.target.hops.map(() => ({ passphrases: new Map<string, string>() }));
    if (opts.password !== undefined) this.memories[this.memories.length - 1].password = opts.password;
    this.policy = { enabled: true, initialDelayMs: 500, maxDelayMs: 15_000, maxAttempts: Infinity, ...opts.reconnect };
    this.log = opts.log ?? (() => {});
  }

  get state(): ConnectionState {
    return this._state;
  }
  get endpoint(): SshEndpoint {
    return this.target.hops[this.target.hops.length - 1].endpoint;
  }
  get hops(): SshEndpoint[] {
    return this.target.hops.map((h) => h.endpoint);
  }
  get rttMs(): number | null {
    return this._rttMs;
  }
  /** "user@host:port" for messages. */
  get label(): string {
    const e = this.endpoint;
    return `${e.user}@${e.host}${e.port === 22 ? '' : `:${e.port}`}`;
  }

  private setState(ev: ConnectionStateEvent): void {
    this._state = ev.state;
    this.emit('state', ev);
  }

  /** First connection: errors are thrown to the caller; no automatic retry. */
  async connect(): Promise<void> {
    if (this._state !== 'idle') throw new GpuDeskError('INTERNAL', 'connect() was already called', 'create a new connection');
    this.setState({ state: 'connecting' });
    const target = this.target.hops[this.target.hops.length - 1];
    if (target.hostConfig.localForwards?.length) {
      this.opts.callbacks?.notice?.(`${target.endpoint.host}: the LocalForward lines of your ssh config are not used by gpu-desk; give such forwards to "gpu-desk tunnel" with -L`);
    }
    try {
      await this.dialChain();
    } catch (err) {
      const e = withConfigNotes(err, this.target);
      this.setState({ state: 'closed', reason: (e as Error).message, code: (e as GpuDeskError).code });
      throw e;
    }
    this.setState({ state: 'ready' });
  }

  /** The last (re)connect's login by phase, null before one finished. */
  get lastLogin(): LoginTiming | null {
    return this._lastLogin;
  }

  private async dialChain(): Promise<void> {
    const clients: Client[] = [];
    const startedAt = performance.now();
    // The target hop's own phases: where its dial began, its key exchange ended, and it was authenticated.
    const marks = { dial: startedAt, handshake: startedAt, ready: startedAt };
    try {
      let sock: Duplex | undefined;
      for (let i = 0; i < this.target.hops.length; i++) {
        const hop = this.target.hops[i];
        if (i === 0 && this.opts.via) {
          const via = this.opts.via;
          sock = await via.forwardOut(hop.endpoint.hostName, hop.endpoint.port).catch((e: Error) => {
            throw new GpuDeskError(
              'HOST_UNREACHABLE',
              `${via.endpoint.host} could not reach ${hop.endpoint.hostName}:${hop.endpoint.port} (${e.message})`,
              'check that SSH to this host is allowed from there',
            );
          });
        } else if (i > 0) {
          sock = await forwardOutOn(clients[i - 1], hop.endpoint.hostName, hop.endpoint.port).catch((e: Error) => {
            throw new GpuDeskError(
              'HOST_UNREACHABLE',
              `Jump host ${this.target.hops[i - 1].endpoint.host} could not reach ${hop.endpoint.hostName}:${hop.endpoint.port} (${e.message})`,
              'check the ProxyJump chain and the target address as seen from the jump host',
            );
          });
        }
        // A new ProxyCommand process for every dial: the old one died with the old connection.
        const proxy = i === 0 && hop.proxyCommand ? spawnProxyCommand(hop.proxyCommand, this.log) : undefined;
        if (i === this.target.hops.length - 1) marks.dial = performance.now();
        clients.push(await this.dialHop(hop, i, proxy?.sock ?? sock, proxy, i === this.target.hops.length - 1 ? marks : undefined));
      }
    } catch (e) {
      for (const c of clients.reverse()) c.end();
      throw e;
    }
    this.clients = clients;
    this._lastLogin = { handshakeMs: marks.handshake - marks.dial, authMs: marks.ready - marks.handshake, totalMs: marks.ready - startedAt };
    const last = clients[clients.length - 1];
    // Any hop closing takes the whole chain down.
    for (const c of clients) c.once('close', () => this.onLost(c));
    last.on('error', (e) => this.log(`ssh error: ${e.message}`));
    // The server ending the connection itself (not a reset, not a keepalive timeout): see commandRefused.
    last.once('end', () => this.endedByServer.add(last));
    this.startKeepalive(last);
  }

  private dialHop(hop: ResolvedHop, index: number, sock?: Duplex, proxy?: ProxyProcess, marks?: { handshake: number; ready: number }): Promise<Client> {
    const ep = hop.endpoint;
    const where = `${ep.user}@${ep.host}${ep.port === 22 ? '' : `:${ep.port}`}`;
    const readOnlyFiles = [...hop.knownHostsFiles.user, ...hop.knownHostsFiles.global];
    const report: AuthReport = { tried: [], notes: [], certificateProblems: [] };
    const isTarget = index === this.target.hops.length - 1;
    const callbacks = this.opts.callbacks ?? {};
    const agent = resolveAgent(this.opts.agent, isTarget ? this.target.identityAgent : hop.hostConfig.identityAgent);
    let pubkeyAlgorithms: string[];
    try {
      pubkeyAlgorithms = assembleAlgorithms(hop.hostConfig.pubkeyAcceptedAlgorithms, DEFAULT_PUBKEY_ALGORITHMS, SUPPORTED_PUBKEY_ALGORITHMS, `PubkeyAcceptedAlgorithms for ${ep.host}`);
    } catch (e) {
      return Promise.reject(e);
    }
    const authHandler = makeAuthHandler(
      {
        pubkeyAlgorithms,
        endpoint: ep,
        agent,
        keySources: this.opts.keySources ?? [],
        identityFiles: ep.identityFiles,
        callbacks,
        memory: this.memories[index],
        log: this.log,
        hop: index,
        isTarget,
      },
      report,
    );
    const entries = readKnownHostsFiles([...readOnlyFiles, this.opts.appKnownHostsFile]);
    // OpenSSH also trusts port-less lines for a host on another port ("found matching key w/out port").
    const portless = !hop.hostConfig.hostKeyAlias && ep.port !== 22 ? [ep.hostName] : [];
    const knownKeys = knownKeysFor(entries, hop.knownHostsNames);
    let allowedHostKeys: string[];
    try {
      allowedHostKeys = assembleAlgorithms(hop.hostConfig.hostKeyAlgorithms, DEFAULT_HOST_KEY_ALGORITHMS, SUPPORTED_HOST_KEY_ALGORITHMS, `HostKeyAlgorithms for ${ep.host}`);
    } catch (e) {
      return Promise.reject(e);
    }
    const plainHostKeys = hostKeyAlgorithms(knownKeys.map((k) => k.keyType), allowedHostKeys);
    // A @cert-authority line for this host: its certificate is asked for first (as ssh does), in the
    // certificate forms of the algorithms allowed (ssh-rsa's SHA-1 form never).
    const hasCa = entries.some((e) => e.marker === '@cert-authority' && [...hop.knownHostsNames, ...portless].some((n) => entryMatchesHost(e, n)));
    const serverHostKey = [
      ...(hasCa ? allowedHostKeys.filter((a) => a !== 'ssh-rsa' && a !== 'ssh-dss').map((a) => `${a}-cert-v01@openssh.com`) : []),
      ...plainHostKeys,
    ];
    // Only an ssh-rsa key is pinned and ssh-rsa (SHA-1) is not allowed: rsa-sha2-* still check that key.
    if (!serverHostKey.length) {
      return Promise.reject(new GpuDeskError(
        'HOST_KEY_UNKNOWN',
        `known_hosts pins only ${[...new Set(knownKeys.map((k) => k.keyType))].join(', ')} keys for ${hop.knownHostsNames[0]} (${knownKeys[0].file}:${knownKeys[0].line}), a type gpu-desk cannot check`,
        'connect with OpenSSH, or also pin the server\'s ed25519, ecdsa or RSA key after checking its fingerprint',
      ));
    }
    const transport = sshTransportOptions() as Partial<ConnectConfig>;
    return new Promise<Client>((resolve, reject) => {
      const client = new Client();
      let hostKeyError: Error | null = null;
      let settled = false;
      // What the server offers, from ssh2's handshake debug line: only to explain a failed negotiation.
      let offered: string[] | null = null;
      let handshakeDone = false;
      let offeredKex: string[] | null = null;
      const debug = (line: string) => {
        if (handshakeDone) return;
        if (line.startsWith(OFFER_PREFIX)) offered = line.slice(OFFER_PREFIX.length).split(',');
        else if (line.startsWith(KEX_OFFER_PREFIX)) offeredKex = line.slice(KEX_OFFER_PREFIX.length).split(',');
      };
      const fail = (e: unknown) => {
        if (settled) return;
        settled = true;
        client.end();
        const noCommonHostKey = /no matching host key/i.test((e as Error)?.message ?? '');
        // Only when SHA-1 is really all the server has: a server that also offers a type HostKeyAlgorithms allows is another case.
        if (!hostKeyError && noCommonHostKey && offered?.includes('ssh-rsa') && !offered.some((a) => serverHostKey.includes(a) || allowedHostKeys.includes(a))) {
          hostKeyError = sha1OnlyError(where, ep.host);
        }
        if (!hostKeyError && offeredKex && /no matching key exchange/i.test((e as Error)?.message ?? '')) hostKeyError = kexMismatchError(where, offeredKex);
        if (!hostKeyError && knownKeys.length && noCommonHostKey) {
          const otherTypes = (offered ?? []).filter((a) => allowedHostKeys.includes(a));
          if (otherTypes.length && !sock && !proxy) {
            // The key type changed: fetch the key it has now (a second handshake that is always refused)
            // so the error shows both fingerprints, as OpenSSH does.
            void presentedHostKey(ep.hostName, ep.port, otherTypes, this.target.readyTimeoutMs).then((key) =>
              reject(otherTypeKnownError(hop.knownHostsNames[0], knownKeys, key ? { keyType: keyTypeOfBlob(key), fingerprint: sha256Fingerprint(key) } : undefined, otherTypes)),
            );
            return;
          }
          hostKeyError = otherTypeKnownError(hop.knownHostsNames[0], knownKeys, undefined, otherTypes);
        }
        if (!proxy || hostKeyError) {
          reject(hostKeyError ?? mapConnectError(e, where, report));
          return;
        }
        // The transport closing is usually the proxy dying: wait (briefly) for its exit to say why.
        void proxyExit(proxy).then((exit) => {
          proxy.kill();
          reject(exit ? proxyFailed(where, exit, proxy.lastStderrLine) : mapConnectError(e, where, report));
        });
      };
      client.once('handshake', () => {
        handshakeDone = true;
        if (marks) marks.handshake = performance.now();
        // Stop ssh2's per-packet debug calls once the offer is known (its Protocol reads _debug at each call).
        const proto = (client as unknown as { _protocol?: { _debug?: unknown } })._protocol;
        if (proto && '_debug' in proto) proto._debug = undefined;
      });
      client.once('ready', () => {
        settled = true;
        if (marks) marks.ready = performance.now();
        client.removeListener('error', fail);
        client.on('error', () => { /* after ready, loss is handled by 'close' */ });
        resolve(client);
      });
      client.on('error', fail);
      client.on('banner', (text: string) => callbacks.banner?.(text, index));
      client.once('close', () => {
        proxy?.kill();
        fail(new Error('Connection lost before handshake'));
      });
      const config: ConnectConfig = {
        ...transport,
        host: sock ? undefined : ep.hostName,
        port: ep.port,
        sock: sock as ConnectConfig['sock'],
        username: ep.user,
        readyTimeout: this.target.readyTimeoutMs,
        keepaliveInterval: 0,
        algorithms: {
          ...((transport.algorithms as object) ?? {}),
          serverHostKey: serverHostKey as never,
        },
        authHandler,
        // OpenSSH >= 8.8: no SHA-1 RSA signature unless PubkeyAcceptedAlgorithms allows ssh-rsa (ssh2 patch).
        rsaSha1: pubkeyAlgorithms.includes('ssh-rsa'),
        debug,
        tryKeyboard: !!callbacks.keyboardInteractive,
        hostVerifier: (key: Buffer, verify: (ok: boolean) => void) => {
          judgeHostKey(
            {
              names: hop.knownHostsNames,
              host: ep.hostName,
              port: ep.port,
              hop: index,
              readOnlyFiles,
              appKnownHostsFile: this.opts.appKnownHostsFile,
              strictHostKeyChecking: hop.strictHostKeyChecking,
              callbacks,
              acceptedOnce: this.acceptedOnce,
              ...(hop.hostConfig.hostKeyAlias ? { hostKeyAlias: hop.hostConfig.hostKeyAlias } : {}),
              ...(hop.revokedHostKeys.length ? { revokedHostKeys: hop.revokedHostKeys } : {}),
            },
            key,
          ).then(
            () => verify(true),
            (e: Error) => {
              hostKeyError = e;
              verify(false);
            },
          );
        },
      } as ConnectConfig;
      try {
        client.connect(config);
        // VNC input and small updates are latency-bound: no Nagle delay on the SSH socket (OpenSSH does the same for interactive use).
        client.setNoDelay(true);
      } catch (e) {
        fail(e);
      }
    });
  }

  /** Keepalive with our own probe so the round trip is measured (ssh2's own keepalive does not expose it). */
  private startKeepalive(client: Client): void {
    this.stopKeepalive();
    const internal = client as unknown as InternalClient;
    const interval = this.target.keepaliveIntervalMs;
    if (!(interval > 0)) return;
    if (!Array.isArray(internal._callbacks) || typeof internal._protocol?.ping !== 'function') {
      this.log('keepalive: ssh2 internals changed, round trip will not be measured');
      return;
    }
    let outstanding = 0;
    const probe = () => {
      if (outstanding >= this.target.keepaliveCountMax) {
        this.log(`keepalive: ${outstanding} probes unanswered, dropping the connection`);
        this.stopKeepalive();
        for (const c of this.clients) c.destroy();
        return;
      }
      const t0 = process.hrtime.bigint();
      outstanding++;
      // Same mechanism ssh2 uses: a keepalive@openssh.com global request; any reply (even failure) answers it.
      internal._callbacks!.push(() => {
        outstanding = 0;
        this._rttMs = Number(process.hrtime.bigint() - t0) / 1e6;
        this.emit('rtt', this._rttMs);
      });
      try {
        internal._protocol!.ping!();
      } catch {
        internal._callbacks!.pop();
      }
    };
    // A first probe straight away gives the HUD a round trip before the first interval passes.
    setImmediate(probe);
    this.keepaliveTimer = setInterval(probe, Math.min(interval, 60_000));
    this.keepaliveTimer.unref();
  }

  private stopKeepalive(): void {
    if (this.keepaliveTimer) clearInterval(this.keepaliveTimer);
    this.keepaliveTimer = null;
  }

  /** Ask the server for a round trip now (used by the HUD and tests). */
  measureRtt(timeoutMs = 5000): Promise<number> {
    const client = this.clients[this.clients.length - 1] as unknown as InternalClient | undefined;
    if (this._state !== 'ready' || !client?._callbacks || !client._protocol?.ping) {
      return Promise.reject(new GpuDeskError('NOT_CONNECTED', 'Not connected', 'connect first'));
    }
    return new Promise((resolve, reject) => {
      const t0 = process.hrtime.bigint();
      const timer = setTimeout(() => reject(new GpuDeskError('CONNECT_TIMEOUT', 'No answer to a round-trip probe', 'the link may be down')), timeoutMs);
      client._callbacks!.push(() => {
        clearTimeout(timer);
        this._rttMs = Number(process.hrtime.bigint() - t0) / 1e6;
        resolve(this._rttMs);
      });
      client._protocol!.ping!();
    });
  }

  private onLost(from: Client): void {
    if (!this.clients.includes(from)) return;
    this.stopKeepalive();
    const old = this.clients;
    this.clients = [];
    for (const c of old) if (c !== from) c.end();
    if (this.closing) return;
    if (!this.policy.enabled) {
      this.setState({ state: 'closed', reason: `Connection to ${this.label} was lost`, code: 'CONNECTION_LOST' });
      return;
    }
    this.scheduleReconnect(1);
  }

  private scheduleReconnect(attempt: number): void {
    if (this.closing) return;
    if (attempt > this.policy.maxAttempts) {
      this.failWaiters(new GpuDeskError('CONNECTION_LOST', `Connection to ${this.label} was lost`, 'check the network and reconnect'));
      this.setState({ state: 'closed', reason: `Gave up reconnecting to ${this.label} after ${attempt - 1} attempts`, code: 'CONNECTION_LOST' });
      return;
    }
    const base = Math.min(this.policy.maxDelayMs, this.policy.initialDelayMs * 2 ** (attempt - 1));
    // Jitter keeps many clients from hammering a restarted server in lockstep.
    const delayMs = Math.round(base * (0.8 + Math.random() * 0.4));
    this.setState({ state: 'reconnecting', attempt, delayMs });
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      this.dialChain().then(
        () => {
          if (this.closing) {
            for (const c of this.clients) c.end();
            return;
          }
          this.setState({ state: 'ready' });
          const w = this.readyWaiters;
          this.readyWaiters = [];
          for (const x of w) x.resolve();
        },
        (e: GpuDeskError) => {
          this.log(`reconnect attempt ${attempt} failed: ${e.message}`);
          // A changed host key or refused credentials will not fix themselves: stop and say why.
          if (['AUTH_FAILED', 'HOST_KEY_CHANGED', 'HOST_KEY_REJECTED', 'HOST_KEY_UNKNOWN'].includes(e.code)) {
            this.failWaiters(e);
            this.setState({ state: 'closed', reason: e.message, code: e.code });
            return;
          }
          this.scheduleReconnect(attempt + 1);
        },
      );
    }, delayMs);
  }

  private failWaiters(e: Error): void {
    const w = this.readyWaiters;
    this.readyWaiters = [];
    for (const x of w) x.reject(e);
  }

  /** Resolves once the connection is ready (waits through a reconnect), or rejects if it closes. */
  whenReady(timeoutMs = 30_000): Promise<void> {
    if (this._state === 'ready') return Promise.resolve();
    if (this._state === 'closed' || this._state === 'idle') {
      return Promise.reject(new GpuDeskError('NOT_CONNECTED', `Not connected to ${this.label}`, 'connect first'));
    }
    return new Promise((resolve, reject) => {
      const entry = {
        resolve: () => { clearTimeout(timer); resolve(); },
        reject: (e: Error) => { clearTimeout(timer); reject(e); },
      };
      const timer = setTimeout(() => {
        this.readyWaiters = this.readyWaiters.filter((x) => x !== entry);
        reject(new GpuDeskError('CONNECTION_LOST', `Still reconnecting to ${this.label}`, 'wait for the connection to come back'));
      }, timeoutMs);
      this.readyWaiters.push(entry);
    });
  }

  private client(): Client {
    const c = this.clients[this.clients.length - 1];
    if (this._state !== 'ready' || !c) {
      throw new GpuDeskError('NOT_CONNECTED', `Not connected to ${this.label} (${this._state})`, 'wait for the connection to come back or reconnect');
    }
    return c;
  }

  /**
   * A channel request that failed because the link went down is a lost connection, not a refusal:
   * the user should reconnect, not go looking at the server's configuration.
   */
  private lostDuring(err: Error, what: string): GpuDeskError | null {
    if (this._state === 'ready' && !/^(No response from server|Not connected)$/.test(err.message)) return null;
    return this.droppedWhile(what);
  }

  /**
   * Why an exec request failed. Dropbear ends the whole connection in answer to a request it will not
   * take ("String too long" in its log): that is no lost link, and a reconnect would run into the same,
   * so it is said as it is. From OpenSSH (and anything else) a close at this point looks exactly like a
   * link that went down, so that stays CONNECTION_LOST, whose fix says what a repeat would mean.
   */
  private commandRefused(c: Client, err: Error): GpuDeskError {
    const lost = this.lostDuring(err, 'starting a command');
    if (!lost) {
      return new GpuDeskError('REMOTE_COMMAND_FAILED', `The server refused to run a command (${err.message})`, 'check that the account may run commands (no ForceCommand/restricted shell)');
    }
    const software = (c as unknown as { _remoteVer?: string })._remoteVer ?? '';
    if (this.closing || !this.endedByServer.has(c) || !/dropbear/i.test(software)) {
      return new GpuDeskError(lost.code, lost.message, "reconnect and run it again; if it drops at the same point again, the server is ending the session over this command: its log says why");
    }
    return new GpuDeskError(
      'REMOTE_COMMAND_FAILED',
      `${this.label} (Dropbear) closed the connection when given a command: Dropbear does so over a request it will not take, such as a command longer than its limit (9000 bytes by default)`,
      "a reconnect would run into the same: Dropbear's log says which request it refused",
    );
  }

  private droppedWhile(what: string): GpuDeskError {
    return new GpuDeskError('CONNECTION_LOST', `The connection to ${this.label} dropped while ${what}`, 'reconnect and run it again');
  }

  async forwardOut(host: string, port: number): Promise<Duplex> {
    const c = this.client();
    try {
      return await forwardOutOn(c, host, port);
    } catch (e) {
      const lost = this.lostDuring(e as Error, `opening ${host}:${port}`);
      if (lost) throw lost;
      if (openFailureReason(e) === OPEN_ADMINISTRATIVELY_PROHIBITED) throw this.tcpProhibited(`${host}:${port}`);
      const reason = (e as Error).message.replace(/^\(SSH\)\s*/, '');
      throw new GpuDeskError(
        'FORWARD_FAILED',
        `The server could not open ${host}:${port} (${reason})`,
        port >= 5900 && port <= 5999
          ? `is a VNC session running on display :${port - 5900}? List them with "gpu-desk sessions <destination> list"`
          : 'check that a program listens on that address on the server, and that sshd allows TCP forwarding',
      );
    }
  }

  /** What `ssh -L` says ("open failed: administratively prohibited"), with who can change it and where. */
  private tcpProhibited(what: string, options = 'AllowTcpForwarding, PermitOpen, DisableForwarding'): GpuDeskError {
    return new GpuDeskError(
      'FORWARD_PROHIBITED',
      `${this.label} refused to forward to ${what}: administratively prohibited (the server's administrator has disabled this kind of forwarding)`,
      `ask them to allow it (sshd_config: ${options}); ssh -L is refused the same way`,
    );
  }

  async forwardOutUnix(socketPath: string): Promise<Duplex> {
    const c = this.client();
    try {
      return await new Promise<Duplex>((resolve, reject) => c.openssh_forwardOutStreamLocal(socketPath, (err, stream) => (err ? reject(err) : resolve(stream))));
    } catch (e) {
      const lost = this.lostDuring(e as Error, `opening ${socketPath}`);
      if (lost) throw lost;
      throw await this.socketRefused(c, socketPath, e as Error);
    }
  }

  /**
   * Why the server would not open a Unix socket. Dropbear has no stream-local forwarding at all (unknown
   * channel type); OpenSSH answers the same "open failed" whether it refuses (AllowStreamLocalForwarding
   * no, DisableForwarding yes) or nothing is there, so the socket's presence tells those apart. A TurboVNC
   * desktop can listen on TCP instead, which helps wherever the server still forwards TCP: checked by
   * asking for a port nothing listens on (refused: allowed; prohibited: not).
   */
  private async socketRefused(c: Client, socketPath: string, err: Error): Promise<GpuDeskError> {
    const reason = openFailureReason(err);
    const present = reason === OPEN_ADMINISTRATIVELY_PROHIBITED || reason === OPEN_UNKNOWN_CHANNEL_TYPE
      ? true
      : await this.exec(shellCommand(['test', '-S', socketPath]), { timeoutMs: 15_000 }).then((r) => (r.code === 0 ? true : r.code === 1 ? false : null), () => null);
    if (present === false) {
      return new GpuDeskError('FORWARD_FAILED', `The desktop's socket ${socketPath} is gone from ${this.label}: its session has ended`, 'start it again with "gpu-desk sessions <destination> start", or list the running ones with "gpu-desk sessions <destination> list"');
    }
    const tcpAllowed = await forwardOutOn(c, '127.0.0.1', 9).then(
      (s) => { s.destroy(); return true; },
      (e: unknown) => openFailureReason(e) !== OPEN_ADMINISTRATIVELY_PROHIBITED,
    );
    if (!tcpAllowed) return this.tcpProhibited(`the desktop's socket ${socketPath} and to TCP ports`, 'AllowStreamLocalForwarding, AllowTcpForwarding, PermitOpen, DisableForwarding');
    const software = (c as unknown as { _remoteVer?: string })._remoteVer ?? '';
    const why = reason === OPEN_UNKNOWN_CHANNEL_TYPE
      ? `does not forward to Unix sockets at all (${/dropbear/i.test(software) ? 'Dropbear has' : 'its SSH server has'} no stream-local forwarding)`
      : reason === OPEN_ADMINISTRATIVELY_PROHIBITED
        ? "refused it: administratively prohibited (the server's administrator has disabled forwarding to Unix sockets)"
        : 'would not open it, though it is there: sshd refuses forwarding to Unix sockets (AllowStreamLocalForwarding no or DisableForwarding yes), unless the desktop behind it has stopped';
    return new GpuDeskError(
      'SOCKET_FORWARD_REFUSED',
      `The desktop listens on the Unix socket ${socketPath}, and ${this.label} ${why}`,
      'restart the desktop on TCP, which this server does forward: end it, then "gpu-desk sessions <destination> start --tcp"',
    );
  }

  /**
   * A command whose output is a stream (video mode's encoder): the channel itself, stdout as its data
   * and stderr beside it. Closing it ends the command's stdin, which the caller's script waits on.
   */
  execStream(command: string): Promise<ClientChannel> {
    return new Promise((resolve, reject) => {
      try {
        // The command goes first on stdin; what the caller writes after it is the command's own stdin.
        const { line, stdinPrefix } = commandOnStdin(command, true);
        const c = this.client();
        c.exec(line, (err, stream) => {
          if (err) reject(this.commandRefused(c, err));
          else {
            stream.write(stdinPrefix);
            resolve(stream);
          }
        });
      } catch (e) {
        reject(e as Error);
      }
    });
  }

  /** An SFTP session on this connection (one more channel: no second login, no second 2FA prompt). */
  sftp(): Promise<SFTPWrapper> {
    return new Promise((resolve, reject) => {
      const fail = (err: Error) =>
        reject(this.lostDuring(err, 'starting SFTP') ?? new GpuDeskError('SFTP_FAILED', `The server refused SFTP (${err.message})`, 'check that sshd has an sftp Subsystem line (e.g. "Subsystem sftp internal-sftp")'));
      try {
        this.client().sftp((err, s) => (err ? fail(err) : resolve(s)));
      } catch (e) {
        fail(e as Error);
      }
    });
  }

  exec(command: string, opts: ExecOptions = {}): Promise<ExecResult> {
    return new Promise((resolve, reject) => {
      // Inside the promise: callers may chain .catch() straight onto exec(), so it must never throw.
      const c = this.client();
      const refused = (err: Error) => reject(this.commandRefused(c, err));
      let sent: StdinCommand;
      try {
        sent = commandOnStdin(command, opts.stdin !== undefined);
      } catch (e) {
        reject(e as Error);
        return;
      }
      const onChannel = (err: Error | undefined, stream: ClientChannel): void => {
        if (err) {
          refused(err);
          return;
        }
        const out = new CappedBuffer(EXEC_OUTPUT_CAP_BYTES);
        const errOut = new CappedBuffer(EXEC_OUTPUT_CAP_BYTES);
        let timer: NodeJS.Timeout | null = null;
        let timedOut = false;
        if (opts.timeoutMs) {
          timer = setTimeout(() => {
            timedOut = true;
            stream.close();
          }, opts.timeoutMs);
        }
        stream.on('data', (d: Buffer) => {
          out.push(d);
          opts.onStdout?.(d.toString('utf8'));
        });
        stream.stderr.on('data', (d: Buffer) => {
          errOut.push(d);
          opts.onStderr?.(d.toString('utf8'));
        });
        let code: number | null = null;
        let signal: string | null = null;
        stream.on('exit', (c: number | null, s?: string) => {
          code = c;
          signal = s ?? null;
        });
        stream.on('close', () => {
          if (timer) clearTimeout(timer);
          if (timedOut) {
            reject(new GpuDeskError('REMOTE_COMMAND_FAILED', `A remote command did not finish within ${opts.timeoutMs} ms`, 'check the server load, or retry'));
            return;
          }
          if (code === null && signal === null && this._state !== 'ready') {
            reject(this.droppedWhile('a command was running'));
            return;
          }
          const result: ExecResult = { code, signal, stdout: out.text(), stderr: errOut.text() };
          if (out.dropped || errOut.dropped) {
            result.truncated = { capBytes: EXEC_OUTPUT_CAP_BYTES, stdoutDroppedBytes: out.dropped, stderrDroppedBytes: errOut.dropped };
          }
          resolve(result);
        });
        // The command itself first (commandOnStdin): the exec request carries only a short fixed line.
        stream.write(sent.stdinPrefix);
        if (opts.stdin !== undefined) stream.end(opts.stdin);
        else stream.end();
      };
      // ssh2 throws "Not connected" (rather than calling back) once its socket is no longer writable.
      try {
        c.exec(sent.line, onChannel);
      } catch (e) {
        refused(e as Error);
      }
    });
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.stopKeepalive();
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const clients = this.clients;
    this.clients = [];
    await Promise.all(
      clients.reverse().map(
        (c) =>
          new Promise<void>((resolve) => {
            const t = setTimeout(() => { c.destroy(); resolve(); }, 2000);
            c.once('close', () => { clearTimeout(t); resolve(); });
            c.end();
          }),
      ),
    );
    this.failWaiters(new GpuDeskError('NOT_CONNECTED', 'The connection was closed', 'connect again'));
    this.setState({ state: 'closed', reason: 'closed by the user' });
  }
}

const PROXY_EXIT_GRACE_MS = 3000;

function proxyExit(proxy: ProxyProcess): Promise<{ code: number | null; signal: string | null } | null> {
  if (proxy.hasExited) return proxy.exited;
  return Promise.race([proxy.exited, new Promise<null>((r) => setTimeout(() => r(null), PROXY_EXIT_GRACE_MS).unref())]);
}

function proxyFailed(where: string, exit: { code: number | null; signal: string | null }, lastLine: string): GpuDeskError {
  // The command's words are its own, not a server's; still, no control character reaches a terminal.
  const said = [...lastLine.slice(0, 300)].map((c) => (c < ' ' || c === '\x7f' ? '?' : c)).join('');
  return new GpuDeskError(
    'PROXY_COMMAND_FAILED',
    `ProxyCommand for ${where} exited (${exit.signal ?? `status ${exit.code}`}) before the SSH handshake${said ? `: ${said}` : ''}`,
    'run the ProxyCommand by hand to see why, or fix it in your ssh config',
  );
}

/**
 * The host key a server presents for one of `algorithms`, or null: a handshake whose host-key check
 * always answers no, so nothing is authenticated or sent. Only to name a changed key's fingerprint.
 */
function presentedHostKey(host: string, port: number, algorithms: string[], timeoutMs: number): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const client = new Client();
    let key: Buffer | null = null;
    const done = () => {
      client.removeAllListeners();
      client.on('error', () => {});
      client.end();
      resolve(key);
    };
    client.on('error', done);
    client.on('close', done);
    try {
      client.connect({
        ...(sshTransportOptions() as Partial<ConnectConfig>),
        host,
        port,
        username: 'gpu-desk-host-key-check',
        readyTimeout: timeoutMs,
        algorithms: { ...((sshTransportOptions() as Partial<ConnectConfig>).algorithms ?? {}), serverHostKey: algorithms as never },
        hostVerifier: (k: Buffer, verify: (ok: boolean) => void) => {
          key = Buffer.from(k);
          verify(false);
        },
      } as ConnectConfig);
    } catch {
      done();
    }
  });
}

/** A failed connection's error, with what the ssh config asked for and gpu-desk did not apply. */
function withConfigNotes(e: unknown, target: ResolvedTarget): unknown {
  if (!(e instanceof GpuDeskError)) return e;
  const notes = [...new Set(target.hops.flatMap((h) => unappliedConfigNotes(h.hostConfig, h.endpoint.host)))];
  return notes.length ? new GpuDeskError(e.code, `${e.message} (note: ${notes.join('; ')})`, e.fix, { cause: e }) : e;
}

/** RFC 4254 §5.1 reason codes in a channel-open failure (ssh2 puts the code on the error as `reason`). */
const OPEN_ADMINISTRATIVELY_PROHIBITED = 1;
const OPEN_UNKNOWN_CHANNEL_TYPE = 3;

function openFailureReason(e: unknown): number | null {
  const r = (e as { reason?: unknown } | null)?.reason;
  return typeof r === 'number' ? r : null;
}

function forwardOutOn(client: Client, host: string, port: number): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    client.forwardOut('127.0.0.1', 0, host, port, (err, stream) => (err ? reject(err) : resolve(stream)));
  });
}

/** Resolve, connect (through every jump host) and return a live connection. */
export async function connectSsh(opts: ConnectOptions): Promise<SshConnection> {
  const conn = new SshConnection(opts);
  await conn.connect();
  return conn;
}
