/**
 * Bytes handed over in pieces (the window sends a dropped file chunk by chunk) as an async stream
 * for the uploader. `push` waits while more than `highWater` bytes are queued, so a fast window
 * cannot pile a whole file into memory ahead of a slow link.
 */
export class ChunkQueue implements AsyncIterable<Buffer> {
  private readonly queue: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private error: Error | null = null;
  private readerWake: (() => void) | null = null;
  private writerWakes: (() => void)[] = [];

  constructor(private readonly highWater = 8 * 1024 * 1024) {}

  async push(b: Buffer): Promise<void> {
    if (this.error) throw this.error;
    if (this.ended) throw new Error('push after end');
    this.queue.push(b);
    this.queued += b.length;
    this.wakeReader();
    while (this.queued > this.highWater && !this.error) await new Promise<void>((r) => this.writerWakes.push(r));
    if (this.error) throw this.error;
  }

  end(): void {
    this.ended = true;
    this.wakeReader();
  }

  /** Both sides stop: the reader throws `e`, a waiting or later push rejects with it. */
  fail(e: Error): void {
    this.error ??= e;
    this.queue.length = 0;
    this.queued = 0;
    this.wakeReader();
    this.wakeWriters();
  }

  private wakeReader(): void {
    const w = this.readerWake;
    this.readerWake = null;
    w?.();
  }

  private wakeWriters(): void {
    const ws = this.writerWakes;
    this.writerWakes = [];
    for (const w of ws) w();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
    for (;;) {
      if (this.error) throw this.error;
      const b = this.queue.shift();
      if (b) {
        this.queued -= b.length;
        if (this.queued <= this.highWater) this.wakeWriters();
        yield b;
      } else if (this.ended) return;
      else await new Promise<void>((r) => { this.readerWake = r; });
    }
  }
}
