import net from 'node:net';
import { vncAuthResponse } from '../integration/remote/rfb';

/**
 * A second VNC viewer for the e2e, in Node: RFB 3.8 with VNC authentication (what TurboVNC's OTP
 * security type uses), the framebuffer in Raw 32-bit pixels, and key events. Enough to show what a
 * colleague with a view-only password sees, and to try typing from there.
 */
export type WatchResult =
  | { kind: 'refused'; reason: string }
  | { kind: 'connected'; watcher: RfbWatcher };

export class RfbWatcher {
  width = 0;
  height = 0;
  /** Packed RGB, rows top to bottom, as test/bed's serverScreen gives it. */
  rgb = Buffer.alloc(0);
  private buf = Buffer.alloc(0);
  private wake: (() => void) | null = null;
  private closed = false;

  private constructor(private readonly sock: net.Socket) {
    sock.on('data', (d: Buffer) => { this.buf = Buffer.concat([this.buf, d]); this.wake?.(); });
    sock.on('close', () => { this.closed = true; this.wake?.(); });
    sock.on('error', () => {});
  }

  /** Connects to 127.0.0.1:port and logs in with `password`; "refused" carries the server's reason. */
  static async connect(port: number, password: string): Promise<WatchResult> {
    const sock = net.connect({ host: '127.0.0.1', port });
    await new Promise<void>((resolve, reject) => { sock.once('connect', () => resolve()); sock.once('error', reject); });
    const w = new RfbWatcher(sock);
    await w.take(12);
    sock.write('RFB 003.008\n');
    const n = (await w.take(1))[0];
    if (n === 0) return { kind: 'refused', reason: await w.reason() };
    const types = [...(await w.take(n))];
    if (!types.includes(2)) throw new Error(`no VNC authentication offered (${types.join(', ')})`);
    sock.write(Buffer.from([2]));
    const challenge = await w.take(16);
    sock.write(vncAuthResponse(password, challenge));
    if ((await w.take(4)).readUInt32BE(0) !== 0) {
      const reason = await w.reason();
      sock.destroy();
      return { kind: 'refused', reason };
    }
    sock.write(Buffer.from([1])); // shared: the owner's viewer stays connected
    const init = await w.take(24);
    w.width = init.readUInt16BE(0);
    w.height = init.readUInt16BE(2);
    await w.take(init.readUInt32BE(20));
    // SetPixelFormat: 32 bpp, depth 24, little-endian, true colour, red at 16, green at 8, blue at 0.
    const pf = Buffer.alloc(20);
    pf[0] = 0;
    pf.set([32, 24, 0, 1], 4);
    pf.writeUInt16BE(255, 8); pf.writeUInt16BE(255, 10); pf.writeUInt16BE(255, 12);
    pf.set([16, 8, 0], 14);
    // SetEncodings: Raw (exact pixels, nothing to decode) and the cursor pseudo-encoding, so the
    // server sends the pointer apart instead of painting it into the pixels (as noVNC asks too).
    const list = [0, -239, -240, -232];
    const enc = Buffer.alloc(4 + 4 * list.length);
    enc[0] = 2;
    enc.writeUInt16BE(list.length, 2);
    list.forEach((e, i) => enc.writeInt32BE(e, 4 + 4 * i));
    sock.write(Buffer.concat([pf, enc]));
    w.rgb = Buffer.alloc(w.width * w.height * 3);
    return { kind: 'connected', watcher: w };
  }

  /** Asks for the whole screen and waits for that update: after it, every message sent before it was handled by the server. */
  async refresh(): Promise<void> {
    const req = Buffer.alloc(10);
    req[0] = 3;
    req[1] = 0;
    req.writeUInt16BE(this.width, 6);
    req.writeUInt16BE(this.height, 8);
    this.sock.write(req);
    for (;;) {
      const type = (await this.take(1))[0];
      if (type === 0) {
        const rects = (await this.take(3)).readUInt16BE(1);
        for (let i = 0; i < rects; i++) {
          const h = await this.take(12);
          const [x, y, rw, rh, e] = [h.readUInt16BE(0), h.readUInt16BE(2), h.readUInt16BE(4), h.readUInt16BE(6), h.readInt32BE(8)];
          // The pointer's shape (rich or X cursor) and position: not screen pixels.
          if (e === -239) { await this.take(rw * rh * 4 + Math.floor((rw + 7) / 8) * rh); continue; }
          if (e === -240) { if (rw * rh) await this.take(6 + 2 * Math.floor((rw + 7) / 8) * rh); continue; }
          if (e === -232) continue;
          if (e !== 0) throw new Error(`unexpected encoding ${e}`);
          const px = await this.take(rw * rh * 4);
          for (let row = 0; row < rh; row++) {
            for (let col = 0; col < rw; col++) {
              const s = (row * rw + col) * 4;
              const d = ((y + row) * this.width + x + col) * 3;
              this.rgb[d] = px[s + 2]; this.rgb[d + 1] = px[s + 1]; this.rgb[d + 2] = px[s];
            }
          }
        }
        return;
      }
      if (type === 2) continue; // Bell
      if (type === 3) { const h = await this.take(7); await this.take(h.readUInt32BE(3)); continue; }
      if (type === 1) { const h = await this.take(5); await this.take(h.readUInt16BE(3) * 6); continue; }
      throw new Error(`unexpected server message ${type}`);
    }
  }

  /** Presses and releases each keysym in turn. */
  keys(keysyms: number[]): void {
    for (const k of keysyms) {
      for (const down of [1, 0]) {
        const m = Buffer.alloc(8);
        m[0] = 4;
        m[1] = down;
        m.writeUInt32BE(k, 4);
        this.sock.write(m);
      }
    }
  }

  /** A pointer click at (x, y). */
  click(x: number, y: number): void {
    for (const mask of [1, 0]) {
      const m = Buffer.alloc(6);
      m[0] = 5;
      m[1] = mask;
      m.writeUInt16BE(x, 2);
      m.writeUInt16BE(y, 4);
      this.sock.write(m);
    }
  }

  close(): void {
    this.sock.destroy();
  }

  private async reason(): Promise<string> {
    try {
      const n = (await this.take(4)).readUInt32BE(0);
      return (await this.take(n)).toString('utf8');
    } catch {
      return '(the server closed the connection)';
    }
  }

  private async take(n: number): Promise<Buffer> {
    while (this.buf.length < n) {
      if (this.closed) throw new Error('the server closed the connection');
      await new Promise<void>((r) => { this.wake = r; });
      this.wake = null;
    }
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }
}

/** Keysyms for plain ASCII text, Return as 0xff0d. */
export function keysymsOf(text: string): number[] {
  return [...text].map((c) => (c === '\n' ? 0xff0d : c.charCodeAt(0)));
}
