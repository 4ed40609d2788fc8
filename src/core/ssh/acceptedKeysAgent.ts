import { BaseAgent, createAgent, type ParsedKey } from 'ssh2';

type Identities = Parameters<BaseAgent['getIdentities']>[0];
type StreamCallback = Parameters<NonNullable<BaseAgent['getStream']>>[0];

/**
 * ssh-agent as ssh uses it: only the identities PubkeyAcceptedAlgorithms allows are offered (ssh2
 * offers every key the agent holds, each one counting against the server's MaxAuthTries). The
 * certificates the agent holds are among the identities (ssh2 patch, agent.js).
 */
export class AcceptedKeysAgent extends BaseAgent {
  private readonly inner: BaseAgent;

  constructor(socket: string, private readonly accept: (keyType: string, label: string) => boolean) {
    super();
    this.inner = createAgent(socket);
  }

  getIdentities(cb: Identities): void {
    this.inner.getIdentities((err, keys) => {
      if (err || !keys) return cb(err ?? null, keys);
      cb(null, keys.filter((k) => typeof k === 'string' || Buffer.isBuffer(k) || this.accept((k as ParsedKey).type, `agent key ${(k as ParsedKey).comment || (k as ParsedKey).type}`)));
    });
  }

  // ssh2 calls sign(pubKey, data, options, cb) or sign(pubKey, data, cb): passed on as given.
  sign(...args: unknown[]): void {
    (this.inner.sign as (...a: unknown[]) => void)(...args);
  }

  override getStream(cb: StreamCallback): void {
    if (this.inner.getStream) this.inner.getStream(cb);
    else cb(new Error('this agent cannot be forwarded'));
  }
}
