import { createCipheriv } from 'node:crypto';
import net from 'node:net';
import type { Duplex } from 'node:stream';

/**
 * A real RFB 3.8 VNC-authentication handshake, to prove a password works (or does not). VNC auth is
 * DES with the bits of each key byte reversed; 2-key 3DES with both keys equal is single DES, which
 * OpenSSL 3 still provides without the legacy provider.
 */
function vncKey(password: string): Buffer {
  const k = Buffer.alloc(8);
  Buffer.from(password, 'latin1').copy(k, 0, 0, 8);
  for (let i = 0; i < 8; i++) {
    let b = k[i];
    let r = 0;
    for (let j = 0; j < 8; j++) { r = (r << 1) | (b & 1); b >>= 1; }
    k[i] = r;
  }
  return k;
}

/** VNC authentication's answer to the server's 16-byte `challenge`. */
export function vncAuthResponse(password: string, challenge: Buffer): Buffer {
  const key = vncKey(password);
  const des = createCipheriv('des-ede-ecb', Buffer.concat([key, key]), null).setAutoPadding(false);
  return Buffer.concat([des.update(challenge), des.final()]);
}

/** `to`: a TCP port on 127.0.0.1, or an open stream to the server (an SSH channel to its Unix socket). */
export async function vncAuthenticates(to: number | Duplex, password: string): Promise<boolean> {
  const s = typeof to === 'number' ? net.connect({ host: '127.0.0.1', port: to }) : to;
  return (await rfbHandshake(s, password, { init: false })).ok;
}

export interface RfbResult {
  ok: boolean;
  /** From ServerInit (only with init: the desktop's size and name as the server itself reports them). */
  width?: number;
  height?: number;
  name?: string;
}

/**
 * VNC authentication over any stream (a TCP socket, an SSH channel to a Unix socket); with `init`,
 * also ClientInit/ServerInit, so the caller can compare the desktop with what the server says.
 */
export function rfbHandshake(s: Duplex, password: string, opts: { init?: boolean } = {}): Promise<RfbResult> {
  const key = vncKey(password);
  const des = createCipheriv('des-ede-ecb', Buffer.concat([key, key]), null).setAutoPadding(false);
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    let stage = 0;
    const done = (r: RfbResult) => { s.destroy(); resolve(r); };
    s.on('error', reject);
    s.on('close', () => reject(new Error(`the server closed the connection during the handshake (step ${stage})`)));
    s.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (stage === 0 && buf.length >= 12) {
        buf = buf.subarray(12);
        s.write('RFB 003.008\n');
        stage = 1;
      }
      if (stage === 1 && buf.length >= 1 && buf.length >= 1 + buf[0]) {
        const types = [...buf.subarray(1, 1 + buf[0])];
        buf = buf.subarray(1 + buf[0]);
        if (!types.includes(2)) { s.destroy(); reject(new Error(`no VNC auth offered: ${types}`)); return; }
        s.write(Buffer.from([2]));
        stage = 2;
      }
      if (stage === 2 && buf.length >= 16) {
        s.write(Buffer.concat([des.update(buf.subarray(0, 16)), des.final()]));
        buf = buf.subarray(16);
        stage = 3;
      }
      if (stage === 3 && buf.length >= 4) {
        const ok = buf.readUInt32BE(0) === 0;
        buf = buf.subarray(4);
        if (!ok || !opts.init) { done({ ok }); return; }
        s.write(Buffer.from([1])); // shared
        stage = 4;
      }
      if (stage === 4 && buf.length >= 24 && buf.length >= 24 + buf.readUInt32BE(20)) {
        const n = buf.readUInt32BE(20);
        done({ ok: true, width: buf.readUInt16BE(0), height: buf.readUInt16BE(2), name: buf.subarray(24, 24 + n).toString('latin1') });
      }
    });
  });
}
