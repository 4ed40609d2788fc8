/**
 * Reads the SSH wire encoding (RFC 4251 §5: uint32, uint64, length-prefixed strings) that OpenSSH's
 * certificates and KRLs are written in. One reader for both, so a fix to how a short field is caught
 * reaches both; each caller says what a file that ends early is called in its own error.
 */
export class WireReader {
  private p = 0;
  constructor(private readonly b: Buffer, private readonly endsEarly: () => Error) {}
  private need(n: number): void {
    if (this.p + n > this.b.length) throw this.endsEarly();
  }
  get pos(): number {
    return this.p;
  }
  u8(): number {
    this.need(1);
    return this.b[this.p++];
  }
  u32(): number {
    this.need(4);
    const v = this.b.readUInt32BE(this.p);
    this.p += 4;
    return v;
  }
  u64(): bigint {
    this.need(8);
    const v = this.b.readBigUInt64BE(this.p);
    this.p += 8;
    return v;
  }
  bytes(): Buffer {
    const n = this.u32();
    this.need(n);
    const v = this.b.subarray(this.p, this.p + n);
    this.p += n;
    return v;
  }
  text(): string {
    return this.bytes().toString('utf8');
  }
  /** An SSH string holding strings (principals), or name/data pairs (options, extensions). */
  strings(): string[] {
    const inner = new WireReader(this.bytes(), this.endsEarly);
    const out: string[] = [];
    while (!inner.done()) out.push(inner.text());
    return out;
  }
  done(): boolean {
    return this.p >= this.b.length;
  }
}
