/**
 * Frames drawn on an X display, counted by the X server itself: a minimal X11 client (the core
 * protocol over the display's Unix socket, no library) that asks the DAMAGE extension for every
 * rectangle drawn on the screen. X11 forwarding has no viewer with a frame counter: the desk's X
 * server is the viewer. Mesa's software GLX puts each whole frame as images in strips (no request
 * may exceed the X server's maximum), so a frame is not one rectangle; but exactly one strip of each
 * frame covers the window's top row.
 */
import net from 'node:net';

export interface DamageCounter {
  /** Rectangles drawn so far that cover screen row `row`. */
  readonly count: number;
  close(): void;
}

const DAMAGE_REPORT_RAW_RECTANGLES = 0;

export async function countDamage(display: number, row: number): Promise<DamageCounter> {
  const sock = net.connect(`/tmp/.X11-unix/X${display}`);
  await new Promise<void>((resolve, reject) => { sock.once('connect', resolve); sock.once('error', reject); });
  let buf = Buffer.alloc(0);
  const waiters: { need: () => number | null; resolve: (b: Buffer) => void }[] = [];
  let onEvent: ((ev: Buffer) => void) | null = null;
  let failed: Error | null = null;
  const pump = () => {
    for (;;) {
      if (waiters.length > 0) {
        const n = waiters[0].need();
        if (n === null || buf.length < n) return;
        const w = waiters.shift()!;
        w.resolve(buf.subarray(0, n));
        buf = buf.subarray(n);
        continue;
      }
      if (buf.length < 32) return;
      const msg = buf.subarray(0, 32);
      buf = buf.subarray(32);
      if (msg[0] === 0) failed = new Error(`X error ${msg[1]} on request ${msg[10]}.${msg[9]}`);
      else onEvent?.(msg);
    }
  };
  sock.on('data', (d: Buffer) => { buf = Buffer.concat([buf, d]); pump(); });
  /** The next reply (32 bytes plus its extra length), or the setup reply when `setup`. */
  const read = (setup = false) => new Promise<Buffer>((resolve, reject) => {
    sock.once('error', reject);
    waiters.push({
      need: () => {
        if (buf.length < 8) return null;
        if (setup) return 8 + buf.readUInt16LE(6) * 4;
        if (buf[0] === 0) return 32;
        return 32 + buf.readUInt32LE(4) * 4;
      },
      resolve: (b) => (b[0] === 0 ? reject(new Error(`X error ${b[1]} (${failed?.message ?? 'during set-up'})`)) : resolve(b)),
    });
    pump();
  });

  // Connection set-up: little-endian, protocol 11.0, no authorisation (a local Xvfb without -auth takes it).
  const setup = Buffer.alloc(12);
  setup.write('l', 0, 'latin1');
  setup.writeUInt16LE(11, 2);
  sock.write(setup);
  const s = await read(true);
  if (s[0] !== 1) throw new Error(`the X server on :${display} refused the connection: ${s.subarray(8, 8 + s[1]).toString('latin1')}`);
  const idBase = s.readUInt32LE(12);
  const vendorLen = s.readUInt16LE(24);
  const formats = s[29];
  const root = s.readUInt32LE(40 + pad4(vendorLen) + 8 * formats);

  const name = Buffer.from('DAMAGE', 'latin1');
  const q = Buffer.alloc(8 + pad4(name.length));
  q[0] = 98; // QueryExtension
  q.writeUInt16LE(q.length / 4, 2);
  q.writeUInt16LE(name.length, 4);
  name.copy(q, 8);
  sock.write(q);
  const ext = await read();
  if (!ext[8]) throw new Error(`the X server on :${display} has no DAMAGE extension`);
  const major = ext[9];
  const firstEvent = ext[10];

  // QueryVersion 1.1 (the extension ignores clients that skip it), then Create on the root window.
  const ver = Buffer.alloc(12);
  ver[0] = major;
  ver[1] = 0;
  ver.writeUInt16LE(3, 2);
  ver.writeUInt32LE(1, 4);
  ver.writeUInt32LE(1, 8);
  sock.write(ver);
  await read();
  const damage = idBase | 1;
  const create = Buffer.alloc(16);
  create[0] = major;
  create[1] = 1;
  create.writeUInt16LE(4, 2);
  create.writeUInt32LE(damage, 4);
  create.writeUInt32LE(root, 8);
  create[12] = DAMAGE_REPORT_RAW_RECTANGLES;

  let count = 0;
  onEvent = (ev) => {
    if ((ev[0] & 0x7f) !== firstEvent) return;
    // DamageNotify: area (x, y INT16; width, height CARD16) at byte 16, in the root window's coordinates.
    const y = ev.readInt16LE(18);
    if (y <= row && row < y + ev.readUInt16LE(22)) count++;
  };
  sock.write(create);
  return {
    get count() {
      if (failed) throw failed;
      return count;
    },
    close: () => sock.destroy(),
  };
}

const pad4 = (n: number) => (n + 3) & ~3;
