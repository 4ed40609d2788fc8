/**
 * Messages sent one after another while handling incoming data leave as one message: each WebSocket
 * send() costs the page ~0.4 ms of main thread in the profile (bench/viewer/profile.ts), and the
 * tunnel then writes one SSH packet instead of several. They go at the end of the task (a microtask,
 * so a key or pointer event still leaves at once) or before the viewer decodes a rectangle
 * (rfbSession calls flush()): TurboVNC and TigerVNC send a fence before and after each update and
 * time the replies to pace what they send, so a reply must not wait behind the next decode.
 */
export class SendBatch {
  private parts: Uint8Array[] = [];

  constructor(private readonly sendNow: (bytes: Uint8Array) => void) {}

  push(data: ArrayBuffer | ArrayBufferView): void {
    // A copy: noVNC hands a view of its send queue, which it reuses for the next message.
    const bytes = ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength))
      : new Uint8Array(data.slice(0));
    if (this.parts.length === 0) queueMicrotask(() => this.flush());
    this.parts.push(bytes);
  }

  /** Sends what waits now (before a close). */
  flush(): void {
    const parts = this.parts;
    if (parts.length === 0) return;
    this.parts = [];
    if (parts.length === 1) {
      this.sendNow(parts[0]);
      return;
    }
    const joined = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
    let at = 0;
    for (const p of parts) {
      joined.set(p, at);
      at += p.byteLength;
    }
    this.sendNow(joined);
  }
}
