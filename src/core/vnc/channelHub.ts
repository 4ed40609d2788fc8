import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { pipeStreamToSocket, type ChannelCounters, type ViewerMessage } from './pipe';
import { isGpuDeskError } from '../errors';
import { FORWARD_REFUSED_CLOSE } from '../../shared/viewerClose';

/**
 * The viewer's byte channel: a loopback WebSocket per viewer, reachable only with a one-use token
 * and only from an allowed page Origin. There is never a raw, unauthenticated TCP listener in front
 * of the VNC session (any local user could reach one); the token lives in the renderer's memory.
 */
export interface ChannelTicket {
  id: string;
  /** Path plus query, e.g. "/vnc/abc?token=…"; the host part depends on where the hub is served. */
  path: string;
  counters: ChannelCounters;
}

/** How a ticket's stream is opened (see register). */
export interface ChannelOpenOptions {
  /**
   * Open the stream now, while the page is still being told where to connect, instead of when its
   * WebSocket arrives: the VNC server's greeting (and TurboVNC's own wait, see rfbEarly.ts) overlaps
   * the rest of the ticket's way. A stream nobody claims is closed when the ticket expires or is revoked.
   */
  eager?: boolean;
  /**
   * An eager stream not claimed by then is closed, sooner than the ticket's expiry: a video stream
   * is a server encoder at work, and the page that asked for it connects at once or not at all.
   */
  claimWithinMs?: number;
  /**
   * Bytes the opener already sent to the server on the viewer's behalf: the viewer's first bytes must
   * be exactly these, and are dropped (anything else closes the channel).
   */
  sentForViewer?: Buffer;
}

interface Pending {
  id: string;
  token: Buffer;
  open: () => Promise<Duplex>;
  /** The stream opened at register time (eager tickets). */
  early?: Promise<Duplex>;
  sentForViewer?: Buffer;
  expiryTimer?: ReturnType<typeof setTimeout>;
  counters: ChannelCounters;
  expires: number;
  used: boolean;
  /** Revoked while its stream was still opening: attach closes what arrives. */
  revoked?: boolean;
  close?: () => void;
}

export interface ChannelHubOptions {
  /** Origins whose pages may open a channel (exact match), e.g. "http://127.0.0.1:5173". */
  allowedOrigins: () => string[];
  /** How long a ticket stays valid before its first use. */
  ticketTtlMs?: number;
  log?: (line: string) => void;
}

export class ChannelHub {
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 1 << 20 });
  private readonly pending = new Map<string, Pending>();
  private server: http.Server | null = null;

  constructor(private readonly opts: ChannelHubOptions) {}

  /** Registers a stream opener; the first WebSocket presenting the token gets the stream. */
  register(open: () => Promise<Duplex>, opts: ChannelOpenOptions = {}): ChannelTicket {
    const id = randomBytes(9).toString('base64url');
    const token = randomBytes(24);
    const counters: ChannelCounters = { bytesIn: 0, bytesOut: 0, open: false };
    const ttl = this.opts.ticketTtlMs ?? 60_000;
    const p: Pending = { id, token, open, counters, expires: Date.now() + ttl, used: false, sentForViewer: opts.sentForViewer };
    if (opts.eager) {
      p.early = open();
      // Failures are reported when the page connects; until then nobody is waiting on it.
      p.early.catch(() => {});
      p.expiryTimer = setTimeout(() => { if (!p.used) this.revoke(id); }, Math.min(ttl + 1000, opts.claimWithinMs ?? Infinity));
      p.expiryTimer.unref?.();
    }
    this.pending.set(id, p);
    return { id, path: `/vnc/${id}?token=${token.toString('base64url')}`, counters };
  }

  /** Closes the channel (if open) and forgets the ticket. */
  revoke(id: string): void {
    const p = this.pending.get(id);
    this.pending.delete(id);
    if (!p) return;
    p.revoked = true;
    if (p.expiryTimer) clearTimeout(p.expiryTimer);
    if (p.close) p.close();
    // An eager stream the page never claimed.
    else if (p.early && !p.used) void p.early.then((s) => s.destroy(), () => {});
  }

  /** For an http server that also serves other things: returns false when the request is not ours. */
  handleUpgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(req.url ?? '/', 'http://x');
    const m = /^\/vnc\/([A-Za-z0-9_-]+)$/.exec(url.pathname);
    if (!m) return false;
    const reject = (status: number, why: string) => {
      this.opts.log?.(`vnc channel refused: ${why}`);
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`);
    };
    const origin = req.headers.origin;
    if (!origin || !this.opts.allowedOrigins().includes(origin)) {
      reject(403, `origin ${JSON.stringify(origin ?? null)} not allowed`);
      return true;
    }
    const p = this.pending.get(m[1]);
    const given = Buffer.from(url.searchParams.get('token') ?? '', 'base64url');
    if (!p || p.used || p.expires < Date.now() || given.length !== p.token.length || !timingSafeEqual(given, p.token)) {
      reject(401, 'bad, used or expired token');
      return true;
    }
    p.used = true;
    this.wss.handleUpgrade(req, socket, head, (ws) => void this.attach(p, ws));
    return true;
  }

  private async attach(p: Pending, ws: WebSocket): Promise<void> {
    // What the page sends while its stream is still opening (ws drops a message nobody listens for):
    // handed to the pipe first, in order. A fresh-clone CI run lost a page's first bytes this way.
    const early: ViewerMessage[] = [];
    const hold = (data: ViewerMessage[0], isBinary: boolean) => early.push([data, isBinary]);
    ws.on('message', hold);
    let stream: Duplex;
    try {
      stream = await (p.early ?? p.open());
    } catch (e) {
      this.opts.log?.(`vnc channel ${p.id}: ${(e as Error).message}`);
      // A server that refuses the forward by policy is not a desktop that stopped: the page says which.
      const code = isGpuDeskError(e) ? e.code : null;
      if (code === 'FORWARD_PROHIBITED' || code === 'SOCKET_FORWARD_REFUSED') ws.close(FORWARD_REFUSED_CLOSE, code);
      else ws.close(1011, 'could not reach the VNC session');
      return;
    }
    if (ws.readyState !== ws.OPEN || p.revoked) {
      stream.destroy();
      if (ws.readyState === ws.OPEN) ws.close(1000);
      return;
    }
    ws.off('message', hold);
    p.close = pipeStreamToSocket(stream, ws, p.counters, { sentForViewer: p.sentForViewer, early });
  }

  /** Standalone loopback listener (the Electron main process has no other http server). */
  async listen(port = 0): Promise<number> {
    const server = http.createServer((_req, res) => {
      res.writeHead(404).end();
    });
    server.on('upgrade', (req, socket, head) => {
      if (!this.handleUpgrade(req, socket, head)) (socket as Socket).destroy();
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    this.server = server;
    return (server.address() as { port: number }).port;
  }

  async close(): Promise<void> {
    for (const id of [...this.pending.keys()]) this.revoke(id);
    for (const c of this.wss.clients) c.terminate();
    this.wss.close();
    if (this.server) await new Promise<void>((r) => this.server!.close(() => r()));
  }
}
