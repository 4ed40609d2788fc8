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

/** `to`: a TCP port on 127.0.0.1, or an open stream to the server (an SSH channel to its Unix socket). */
export async function vncAuthenticates(to: number | Duplex, password: string): Promise<boolean> {
  const key = vncKey(password);
  const des = createCipheriv('des-ede-ecb', Buffer.concat([key, key]), null).setAutoPadding(false);
  return new Promise((resolve, reject) => {
    const s = typeof to === 'number' ? net.connect({ host: '127.0.0.1', port: to }) : to;
    let buf = Buffer.alloc(0);
    let stage = 0;
    s.on('error', reject);
    s.on('close', () => reject(new Error(`the server closed the connection during the handshake (step ${stage})`)));
    s.on('data', (d) => {
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
        s.destroy();
        resolve(buf.readUInt32BE(0) === 0);
      }
    });
  });
}
