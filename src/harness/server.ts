import { randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { createDispatcher, createEventForwarder } from '../core/ipc';
import { ChannelHub } from '../core/vnc/channelHub';
import { createAppCore, type AppCore, type AppCoreDeps } from '../core/app/createAppCore';
import { eventNames, methods, type Emit } from '../shared/contract';
import { buildRenderer, HARNESS_OUT } from './buildRenderer';
import { serveStatic } from './staticFiles';

export interface HarnessOptions {
  port?: number;
  /** Skip the Vite build (the e2e global setup builds once). */
  build?: boolean;
  outDir?: string;
  log?(line: string): void;
  /** Overrides for the app's collaborators (tests point them at the bed). */
  deps?: Partial<AppCoreDeps>;
}

export interface Harness {
  /** Open this in a browser: it carries the session token in the fragment. */
  url: string;
  origin: string;
  port: number;
  core: AppCore;
  close(): Promise<void>;
}

/**
 * The browser harness: the real renderer, and the same IPC contract the Electron main process
 * serves, over a loopback WebSocket that needs this run's token and our page's Origin.
 */
export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const log = opts.log ?? ((l: string) => process.stderr.write(`harness: ${l}\n`));
  const outDir = opts.outDir ?? HARNESS_OUT;
  if (opts.build !== false) await buildRenderer(outDir, { quiet: true });
  const token = randomBytes(24).toString('base64url');
  let origin = '';
  const sockets = new Set<WebSocket>();
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end();
      return;
    }
    serveStatic(outDir, req, res);
  });
  const hub = new ChannelHub({ allowedOrigins: () => [origin], log });
  const forward = createEventForwarder(eventNames, (event, payload) => {
    const msg = JSON.stringify({ event, payload });
    for (const s of sockets) if (s.readyState === s.OPEN) s.send(msg);
  });
  const emit: Emit = (event, payload) => {
    forward(event, payload);
  };
  const core = await createAppCore({ hub, channelBase: () => origin.replace(/^http/, 'ws'), emit, shell: 'harness', log, chooseSaveFolder: harnessSaveFolder, ...opts.deps });
  const dispatch = createDispatcher<WebSocket>({
    inputs: Object.fromEntries(Object.entries(methods).map(([k, v]) => [k, v.input])),
    handlers: core.handlers() as never,
    // Only sockets that presented the token at upgrade are in the set.
    isTrustedSender: (ws) => sockets.has(ws),
    log,
  });
  const ipc = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 8 << 20 });
  const tokenBuf = Buffer.from(token);
  server.on('upgrade', (req, socket: Duplex, head) => {
    if (hub.handleUpgrade(req, socket, head)) return;
    const url = new URL(req.url ?? '/', 'http://x');
    const given = Buffer.from(url.searchParams.get('token') ?? '');
    const okToken = given.length === tokenBuf.length && timingSafeEqual(given, tokenBuf);
    if (url.pathname !== '/ipc' || req.headers.origin !== origin || !okToken) {
      log(`ipc socket refused (${url.pathname !== '/ipc' ? 'path' : req.headers.origin !== origin ? 'origin' : 'token'})`);
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n');
      return;
    }
    ipc.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      ws.on('message', async (data, isBinary) => {
        if (isBinary) return;
        let msg: { id?: unknown; method?: unknown; input?: unknown };
        try {
          msg = JSON.parse(data.toString());
        } catch {
          return;
        }
        if (typeof msg.id !== 'number') return;
        const r = await dispatch(ws, msg.method, msg.input ?? {});
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ id: msg.id, ...r }));
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/#token=${token}`,
    origin,
    port,
    core,
    close: async () => {
      await core.shutdown();
      await hub.close();
      for (const s of sockets) s.terminate();
      ipc.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/**
 * The harness's stand-in for the app's native "save to folder" dialog (a browser page cannot show
 * one for the server's process): downloads go to $GPU_DESK_HARNESS_DOWNLOADS, else ~/Downloads.
 */
export async function harnessSaveFolder(): Promise<string> {
  const dir = process.env.GPU_DESK_HARNESS_DOWNLOADS || path.join(os.homedir(), 'Downloads');
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

async function main(argv: string[]): Promise<void> {
  const portArg = argv.indexOf('--port');
  const h = await startHarness({ port: portArg >= 0 ? Number(argv[portArg + 1]) : 0, build: !argv.includes('--no-build') });
  process.stdout.write(`gpu-desk harness: open ${h.url}\n(loopback only; the #token is this run's key — do not share it)\n`);
  const stop = () => void h.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((e) => {
    process.stderr.write(`gpu-desk harness: ${(e as Error).message}\n`);
    process.exit(1);
  });
}
