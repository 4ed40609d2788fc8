import net from 'node:net';
import { vncAuthResponse } from '../integration/remote/rfb';
import type { Rect } from './screen';

/**
 * A minimal RFB 3.8 viewer for tests and benches that have no browser: VNC authentication, then a
 * 32-bit true-colour pixel format and the Raw encoding only (so what it holds is exactly the server's
 * framebuffer, with no codec between), incremental updates asked for again as soon as one is applied.
 * It keeps the whole framebuffer, so a caller can compare it with the server's own screenshot.
 */
export interface RfbViewer {
  width: number;
  height: number;
  name: string;
  /** Framebuffer updates applied so far. */
  readonly updates: number;
  /** Bytes read from the server so far. */
  readonly bytesIn: number;
  /** The framebuffer in `rect` as packed RGB (3 bytes a pixel, rows top to bottom), as screen.ts gives the server's. */
  rgb(rect: Rect): Buffer;
  /** Resolves at the next applied update (an update the server sends after this call). */
  nextUpdate(): Promise<void>;
  close(): void;
}

const RAW = 0;
/**
 * The Cursor pseudo-encoding: the server sends the pointer's shape apart and keeps it out of the
 * framebuffer, as noVNC asks (without it TurboVNC paints the pointer into the pixels, which the server's
 * own screenshot leaves out).
 */
const CURSOR = -239;

export function connectRfbViewer(port: number, password: string): Promise<RfbViewer> {
  const s = net.connect({ host: '127.0.0.1', port, noDelay: true });
  return new Promise((resolve, reject) => {
    let buf: Buffer = Buffer.alloc(0);
    let stage = 0;
    let fb = Buffer.alloc(0);
    let width = 0;
    let height = 0;
    let updates = 0;
    let bytesIn = 0;
    let rectsLeft = -1;
    let waiters: (() => void)[] = [];
    let settled = false;
    const fail = (e: Error) => {
      s.destroy();
      if (!settled) { settled = true; reject(e); }
    };
    const request = (incremental: boolean) => {
      const m = Buffer.alloc(10);
      m[0] = 3;
      m[1] = incremental ? 1 : 0;
      m.writeUInt16BE(width, 6);
      m.writeUInt16BE(height, 8);
      s.write(m);
    };
    const viewer: RfbViewer = {
      width: 0,
      height: 0,
      name: '',
      get updates() { return updates; },
      get bytesIn() { return bytesIn; },
      rgb: (r) => {
        const out = Buffer.alloc(r.w * r.h * 3);
        for (let y = 0; y < r.h; y++) {
          for (let x = 0; x < r.w; x++) {
            const i = ((r.y + y) * width + r.x + x) * 4;
            const o = (y * r.w + x) * 3;
            // Pixel format below: little-endian, red at bit 16, green 8, blue 0, so bytes are B G R x.
            out[o] = fb[i + 2];
            out[o + 1] = fb[i + 1];
            out[o + 2] = fb[i];
          }
        }
        return out;
      },
      nextUpdate: () => new Promise<void>((r) => waiters.push(r)),
      close: () => s.destroy(),
    };
    s.on('error', (e) => fail(e));
    s.on('close', () => fail(new Error(`the VNC server closed the connection (stage ${stage})`)));
    s.on('data', (d: Buffer) => {
      bytesIn += d.length;
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      for (;;) {
        if (stage === 0) {
          if (buf.length < 12) return;
          buf = buf.subarray(12);
          s.write('RFB 003.008\n');
          stage = 1;
        } else if (stage === 1) {
          if (buf.length < 1 || buf.length < 1 + buf[0]) return;
          const types = [...buf.subarray(1, 1 + buf[0])];
          buf = buf.subarray(1 + buf[0]);
          if (!types.includes(2)) { fail(new Error(`the VNC server offers no VNC authentication (types ${types.join(',')})`)); return; }
          s.write(Buffer.from([2]));
          stage = 2;
        } else if (stage === 2) {
          if (buf.length < 16) return;
          s.write(vncAuthResponse(password, buf.subarray(0, 16)));
          buf = buf.subarray(16);
          stage = 3;
        } else if (stage === 3) {
          if (buf.length < 4) return;
          if (buf.readUInt32BE(0) !== 0) { fail(new Error('the VNC server refused the password')); return; }
          buf = buf.subarray(4);
          s.write(Buffer.from([1])); // shared
          stage = 4;
        } else if (stage === 4) {
          if (buf.length < 24 || buf.length < 24 + buf.readUInt32BE(20)) return;
          width = buf.readUInt16BE(0);
          height = buf.readUInt16BE(2);
          const n = buf.readUInt32BE(20);
          Object.assign(viewer, { width, height, name: buf.subarray(24, 24 + n).toString('latin1') });
          buf = buf.subarray(24 + n);
          fb = Buffer.alloc(width * height * 4);
          // SetPixelFormat: 32 bpp, depth 24, little-endian, true colour, max 255, shifts 16/8/0.
          const pf = Buffer.alloc(20);
          pf[0] = 0;
          pf[4] = 32; pf[5] = 24; pf[6] = 0; pf[7] = 1;
          pf.writeUInt16BE(255, 8); pf.writeUInt16BE(255, 10); pf.writeUInt16BE(255, 12);
          pf[14] = 16; pf[15] = 8; pf[16] = 0;
          const enc = Buffer.alloc(12);
          enc[0] = 2;
          enc.writeUInt16BE(2, 2);
          enc.writeInt32BE(RAW, 4);
          enc.writeInt32BE(CURSOR, 8);
          s.write(Buffer.concat([pf, enc]));
          request(false);
          stage = 5;
        } else if (rectsLeft < 0) {
          // Between updates: a server message.
          if (buf.length < 1) return;
          const type = buf[0];
          if (type === 0) {
            if (buf.length < 4) return;
            rectsLeft = buf.readUInt16BE(2);
            buf = buf.subarray(4);
          } else if (type === 2) {
            buf = buf.subarray(1); // bell
          } else if (type === 3) {
            if (buf.length < 8 || buf.length < 8 + buf.readUInt32BE(4)) return;
            buf = buf.subarray(8 + buf.readUInt32BE(4)); // server cut text
          } else if (type === 150 || type === 248) {
            fail(new Error(`unexpected RFB message ${type} (only Raw was asked for)`));
            return;
          } else {
            fail(new Error(`unknown RFB server message ${type}`));
            return;
          }
        } else if (rectsLeft > 0) {
          if (buf.length < 12) return;
          const x = buf.readUInt16BE(0);
          const y = buf.readUInt16BE(2);
          const w = buf.readUInt16BE(4);
          const h = buf.readUInt16BE(6);
          const encoding = buf.readInt32BE(8);
          if (encoding === CURSOR) {
            // The pointer's pixels and its bit mask: skipped (the pointer is not part of the screen).
            const bytes = w * h * 4 + Math.floor((w + 7) / 8) * h;
            if (buf.length < 12 + bytes) return;
            buf = buf.subarray(12 + bytes);
            rectsLeft--;
            continue;
          }
          if (encoding !== RAW) { fail(new Error(`the VNC server sent encoding ${encoding}, not Raw`)); return; }
          const bytes = w * h * 4;
          if (buf.length < 12 + bytes) return;
          const px = buf.subarray(12, 12 + bytes);
          for (let row = 0; row < h; row++) px.copy(fb, ((y + row) * width + x) * 4, row * w * 4, (row + 1) * w * 4);
          buf = buf.subarray(12 + bytes);
          rectsLeft--;
        } else {
          rectsLeft = -1;
          updates++;
          const w = waiters;
          waiters = [];
          for (const f of w) f();
          if (!settled) { settled = true; resolve(viewer); }
          request(true);
        }
      }
    });
  });
}
