/** The first `cap` bytes of a stream, and a count of the bytes after them that were dropped. */
export class CappedBuffer {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  dropped = 0;

  constructor(private readonly cap: number) {}

  push(chunk: Buffer): void {
    const room = this.cap - this.kept;
    if (room >= chunk.length) {
      this.chunks.push(chunk);
      this.kept += chunk.length;
      return;
    }
    if (room > 0) {
      this.chunks.push(chunk.subarray(0, room));
      this.kept += room;
    }
    this.dropped += chunk.length - Math.max(room, 0);
  }

  text(): string {
    return Buffer.concat(this.chunks, this.kept).toString('utf8');
  }
}
