import type { Duplex } from 'node:stream';

/**
 * What the ssh2 patch adds to a Channel for a stream-free path (patches/ssh2+1.17.0.patch,
 * docs/ssh2-window-patch.md): tunnels and the viewer's channel take SSH data through it.
 */
export interface SinkChannel extends Duplex {
  /**
   * Each CHANNEL_DATA payload goes to `write` (a view of a reused read slab: copy it or write it out
   * at once); `buffered` stands in for the Readable's buffer in the window accounting.
   */
  setSink(sink: { write(data: Buffer): void; buffered(): number }): void;
  /** The sink drained: window may be granted again. */
  consumed(): void;
  /**
   * `_write()` without the Writable: true when all went out now, else `cb()` once the remote window
   * let the rest out.
   */
  send(data: Buffer, cb: () => void): boolean;
  eof(): void;
}

/** Whether `s` is an ssh2 channel with the patch's sink path (other Duplexes keep the stream path). */
export function isSinkChannel(s: Duplex): s is SinkChannel {
  return typeof (s as Partial<SinkChannel>).setSink === 'function';
}
