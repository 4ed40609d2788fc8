import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';

// ssh2's receive path as patched (patches/ssh2+1.17.0.patch): reads land in slabs, so a packet
// split across two reads is usually contiguous in memory and the AES-GCM decipher decrypts it
// in place; when it is not contiguous it must still copy. Checked on ssh2's own cipher pair.
const require_ = createRequire(__filename);
const crypto = require_('ssh2/lib/protocol/crypto.js') as {
  CIPHER_INFO: Record<string, { keyLen: number; ivLen: number }>;
  bindingAvailable: boolean;
  createCipher(cfg: unknown): { allocPacket(n: number): Buffer; encrypt(p: Buffer): void };
  createDecipher(cfg: unknown): { decrypt(d: Buffer, p: number, len: number): unknown };
};

const NAME = 'aes128-gcm@openssh.com';
const info = crypto.CIPHER_INFO[NAME];
const key = randomBytes(info.keyLen);
const iv = randomBytes(info.ivLen);

/** Wire bytes of `payloads` sent with AES-128-GCM. */
function encryptAll(payloads: Buffer[]): Buffer {
  const out: Buffer[] = [];
  const cipher = crypto.createCipher({ outbound: { onWrite: (b: Buffer) => out.push(Buffer.from(b)), cipherInfo: info, cipherKey: key, cipherIV: iv, seqno: 0 } });
  for (const pl of payloads) {
    const packet = cipher.allocPacket(pl.length);
    pl.copy(packet, 5);
    cipher.encrypt(packet);
  }
  return Buffer.concat(out);
}

function decipher(got: Buffer[]) {
  return crypto.createDecipher({ inbound: { onPayload: (p: Buffer) => { got.push(p); }, decipherInfo: info, decipherKey: key, decipherIV: iv, seqno: 0 } });
}

/** Cuts `wire` into chunks of 1..maxChunk bytes (fixed seed, so failures reproduce). */
function cuts(len: number, maxChunk: number): number[] {
  let seed = 12345;
  const out = [0];
  while (out[out.length - 1] < len) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    out.push(Math.min(len, out[out.length - 1] + 1 + (seed % maxChunk)));
  }
  return out;
}

const payloads = Array.from({ length: 60 }, (_, i) => randomBytes(i % 3 === 0 ? 32 * 1024 : 1 + ((i * 7919) % 5000)));

function expectSame(got: Buffer[]): void {
  expect(got.length).toBe(payloads.length);
  got.forEach((p, i) => expect(Buffer.compare(p, payloads[i]), `payload ${i}`).toBe(0));
}

describe('ssh2 AES-GCM receive path (patched)', () => {
  it('the native binding is there (else ssh2 uses another decipher and this path is not the one in use)', () => {
    if (!crypto.bindingAvailable) console.warn('ssh2 crypto binding not built: AES-GCM uses the Node decipher, whose path the patch does not change');
    expect(typeof crypto.createDecipher).toBe('function');
  });

  for (const maxChunk of [7, 1000, 40_000, 70_000]) {
    it(`contiguous reads (views of one slab, chunks up to ${maxChunk} B): every payload intact, split packets decrypted in place`, () => {
      const wire = encryptAll(payloads);
      const slab = Buffer.from(wire); // one ArrayBuffer, as consecutive reads into a slab
      const got: Buffer[] = [];
      const d = decipher(got);
      const c = cuts(slab.length, maxChunk);
      for (let i = 1; i < c.length; i++) {
        const chunk = slab.subarray(c[i - 1], c[i]);
        d.decrypt(chunk, 0, chunk.length);
      }
      expectSame(got);
      if (crypto.bindingAvailable) expect(got.filter((p) => p.buffer !== slab.buffer).length).toBe(0);
    });

    it(`separate read buffers (chunks up to ${maxChunk} B): split packets are copied, every payload intact`, () => {
      const wire = encryptAll(payloads);
      const got: Buffer[] = [];
      const d = decipher(got);
      const c = cuts(wire.length, maxChunk);
      const chunks = c.slice(1).map((end, i) => Buffer.from(wire.subarray(c[i], end)));
      for (const chunk of chunks) d.decrypt(chunk, 0, chunk.length);
      expectSame(got);
    });
  }

  it('same slab but not adjacent (a gap between two reads): the split packet is copied, not misread', () => {
    const wire = encryptAll(payloads);
    const slab = Buffer.alloc(wire.length + 64);
    const cut = 40_000;
    wire.copy(slab, 0, 0, cut);
    wire.copy(slab, cut + 64, cut); // the second read lands 64 bytes further on
    const got: Buffer[] = [];
    const d = decipher(got);
    d.decrypt(slab.subarray(0, cut), 0, cut);
    const rest = slab.subarray(cut + 64);
    d.decrypt(rest, 0, rest.length);
    expectSame(got);
  });
});
