import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Protocol } from 'electron';
import { APP_HOST, APP_SCHEME, securityHeaders } from './windowOptions';

/**
 * Serves the built renderer on app://gpu-desk/ instead of file:// (Electron checklist #18): a
 * real origin for the CSP, the viewer channel's Origin check and the IPC sender check, and no
 * way for the page to read arbitrary files by URL.
 */

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.wasm': 'application/wasm',
  '.map': 'application/json',
};

export function mimeType(file: string): string {
  return MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/** Maps app://gpu-desk/<path> to a file under rootDir, or null (wrong host, traversal, odd bytes). */
export function resolveAppFile(rootDir: string, url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== `${APP_SCHEME}:` || u.host !== APP_HOST) return null;
  let rel: string;
  try {
    rel = decodeURIComponent(u.pathname);
  } catch {
    return null;
  }
  if (rel.includes('\0') || rel.includes('\\')) return null;
  if (rel === '/' || rel === '') rel = '/index.html';
  const root = path.resolve(rootDir);
  const file = path.resolve(root, `.${rel}`);
  if (file !== root && !file.startsWith(root + path.sep)) return null;
  return file;
}

/** Must run before app 'ready': a standard, secure scheme gets an origin and a secure context (noVNC needs one). */
export function appSchemePrivileges() {
  return [{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, codeCache: true } }];
}

export function registerAppProtocol(protocol: Pick<Protocol, 'handle'>, rootDir: string, csp: string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const file = request.method === 'GET' ? resolveAppFile(rootDir, request.url) : null;
    if (!file) return new Response('Not found', { status: 404 });
    try {
      const body = await readFile(file);
      return new Response(body, { status: 200, headers: { 'Content-Type': mimeType(file), ...securityHeaders(csp) } });
    } catch {
      return new Response('Not found', { status: 404 });
    }
  });
}
