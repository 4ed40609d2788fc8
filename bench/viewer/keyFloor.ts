/**
 * The server's own key-to-screen floor: a bare RFB client (no decoding, no drawing, raw encoding)
 * that sends a key and times the first framebuffer update that answers it, through the same kind
 * of tunnel the native viewer uses. What no viewer can beat on that server and link: TigerVNC's
 * Xvnc, for one, sends changes on its own frame clock (60 a second, the first half a frame after
 * an idle spell), so its updates wait for that clock whoever asks.
 */
import net from 'node:net';
import { vncAuthResponse } from '../../test/integration/remote/rfb';

class Reader {
  private buf: Buffer = Buffer.alloc(0);
  private waiter: (() => void) | null = null;
  private failed: Error | null = null;

  constructor(sock: net.Socket) {
    sock.on('data', (d: Buffer) => { this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d; this.waiter?.(); });
    const fail = (e: Error) => { this.failed = e; this.waiter?.(); };
    sock.on('error', fail);
    sock.on('close', () => fail(new Error('the VNC server closed the connection')));
  }

  async take(n: number): Promise<Buffer> {
    while (this.buf.length < n) {
      if (this.failed) throw this.failed;
      await new Promise<void>((resolve) => { this.waiter = resolve; });
      this.waiter = null;
    }
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }
}

/** Key 'a' pressed `n` times into whatever has the focus; each figure: key sent → first update with a rectangle, ms. */
export async function keyFloor(port: number, password: string | null, n: number): Promise<number[]> {
  const sock = net.connect(port, '127.0.0.1');
  sock.setNoDelay(true);
  await new Promise<void>((resolve, reject) => { sock.once('connect', resolve); sock.once('error', reject); });
  const r = new Reader(sock);
  try {
    await r.take(12);
    sock.write('RFB 003.008\n');
    const types = [...(await r.take((await r.take(1))[0]))];
    if (types.includes(1)) {
      sock.write(Buffer.from([1]));
    } else if (types.includes(2) && password !== null) {
      sock.write(Buffer.from([2]));
      const challenge = await r.take(16);
      sock.write(vncAuthResponse(password, challenge));
    } else {
      throw new Error(`no security type this probe can use (offered ${types.join(', ')})`);
    }
    if ((await r.take(4)).readUInt32BE(0) !== 0) throw new Error('VNC authentication failed');
    sock.write(Buffer.from([1]));
    const init = await r.take(24);
    const w = init.readUInt16BE(0);
    const h = init.readUInt16BE(2);
    const bytesPerPixel = init[4] / 8;
    await r.take(init.readUInt32BE(20));
    // Raw only: the server's own format, nothing to decode.
    const enc = Buffer.alloc(8);
    enc.writeUInt8(2, 0);
    enc.writeUInt16BE(1, 2);
    enc.writeInt32BE(0, 4);
    sock.write(enc);
    const request = (incremental: boolean) => {
      const m = Buffer.alloc(10);
      m.writeUInt8(3, 0);
      m.writeUInt8(incremental ? 1 : 0, 1);
      m.writeUInt16BE(w, 6);
      m.writeUInt16BE(h, 8);
      sock.write(m);
    };
    const key = (down: boolean) => {
      const m = Buffer.alloc(8);
      m.writeUInt8(4, 0);
      m.writeUInt8(down ? 1 : 0, 1);
      m.writeUInt32BE(0x61, 4);
      return m;
    };
    /** Reads messages until a framebuffer update with at least one rectangle has arrived whole; returns when its header came. */
    const nextUpdate = async (): Promise<number> => {
      for (;;) {
        const type = (await r.take(1))[0];
        if (type === 0) {
          const rects = (await r.take(3)).readUInt16BE(1);
          const at = performance.now();
          for (let i = 0; i < rects; i++) {
            const hd = await r.take(12);
            const e = hd.readInt32BE(8);
            if (e !== 0) throw new Error(`the server sent encoding ${e} though only raw was asked for`);
            await r.take(hd.readUInt16BE(4) * hd.readUInt16BE(6) * bytesPerPixel);
          }
          if (rects > 0) return at;
        } else if (type === 2) {
          // Bell: nothing follows.
        } else if (type === 3) {
          await r.take(3);
          await r.take((await r.take(4)).readUInt32BE(0));
        } else {
          throw new Error(`unexpected server message type ${type}`);
        }
      }
    };
    request(false);
    await nextUpdate();
    const out: number[] = [];
    const after = (ms: number) => new Promise<false>((res) => setTimeout(() => res(false), ms));
    for (let i = 0; i < n; i++) {
      // One reader of the stream at a time: the update asked for here is the one awaited below.
      request(true);
      let update = nextUpdate();
      // Anything already pending (the last echo's tail, a cursor blink) arrives first.
      while (await Promise.race([update.then(() => true), after(40)])) {
        request(true);
        update = nextUpdate();
      }
      const t0 = performance.now();
      sock.write(Buffer.concat([key(true), key(false)]));
      const at = await Promise.race([update, after(3000)]);
      if (at === false) throw new Error('no update within 3 s of a key');
      out.push(at - t0);
    }
    return out;
  } finally {
    sock.destroy();
  }
}
