import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { registerCleanup } from './util';

/** The vendor packages (real TurboVNC 3.3 and VirtualGL 3.1.4 for Debian 12 amd64) and their SHA256SUMS. */
export const VENDOR_DIR = path.resolve(__dirname, '../../../shared/vendor');

export interface PackageMirror {
  /** Base URL, e.g. http://127.0.0.1:PORT/pkgs (the plan's --packages-from). */
  url: string;
  /** Serve these bytes for a file name instead of the directory's file (a tampered download); null: back to the real file. */
  override(name: string, bytes: Buffer | null): void;
  /** Send only the first `atBytes` of this file (announcing its whole length), then drop the connection: a cut-off download; null: whole again. */
  cut(name: string, atBytes: number | null): void;
  /** Paths requested so far (without the base). */
  requests: string[];
  stop(): Promise<void>;
}

/**
 * A loopback HTTP server serving a directory's regular files (no listing, no subdirectories), like a
 * site's package mirror. Listens on 127.0.0.1 only; the fresh server shares this machine's network.
 */
export async function startPackageMirror(dir = VENDOR_DIR): Promise<PackageMirror> {
  if (!fs.existsSync(path.join(dir, 'SHA256SUMS'))) {
    throw new Error(`${dir} has no SHA256SUMS: the vendor packages are missing (see ../shared/vendor/README.md)`);
  }
  const overrides = new Map<string, Buffer>();
  const cuts = new Map<string, number>();
  const requests: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent((req.url ?? '').split('?')[0]).replace(/^\/pkgs\//, '');
    requests.push(rel);
    const file = path.join(dir, rel);
    const body = overrides.get(rel) ?? (!rel.includes('/') && fs.existsSync(file) && fs.statSync(file).isFile() ? fs.readFileSync(file) : null);
    if (!body) {
      res.writeHead(404).end('not found\n');
      return;
    }
    const cutAt = cuts.get(rel);
    if (cutAt !== undefined) {
      res.writeHead(200, { 'content-length': body.length, 'content-type': 'application/octet-stream' });
      res.write(body.subarray(0, cutAt), () => res.destroy());
      return;
    }
    res.writeHead(200, { 'content-length': body.length, 'content-type': 'application/octet-stream' }).end(body);
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  registerCleanup(stop);
  return {
    url: `http://127.0.0.1:${port}/pkgs`,
    override: (name, bytes) => (bytes ? overrides.set(name, bytes) : overrides.delete(name)),
    cut: (name, atBytes) => (atBytes === null ? cuts.delete(name) : cuts.set(name, atBytes)),
    requests,
    stop,
  };
}
