import type { RfbChannel } from '@novnc/novnc';
import { SendBatch } from './sendBatch';

export interface ChannelStats {
  bytesIn: number;
  bytesOut: number;
  messagesIn: number;
}

/**
 * noVNC's raw-channel interface over our token-guarded WebSocket, counting bytes both ways (the
 * HUD's bytes-per-frame figure is exact, not sampled). Electron and the harness alike: the viewer
 * ticket's ws://127.0.0.1 URL, answered by the core's channel hub.
 */
export class CountingChannel implements RfbChannel {
  binaryType = 'arraybuffer';
  protocol = '';
  onopen: ((e: Event) => void) | null = null;
  onmessage: ((e: MessageEvent) => void) | null = null;
  onerror: ((e: Event) => void) | null = null;
  onclose: ((e: CloseEvent) => void) | null = null;
  readonly stats: ChannelStats = { bytesIn: 0, bytesOut: 0, messagesIn: 0 };
  /** How the socket closed (1011: the app could not reach the VNC session through the tunnel). */
  closeCode: number | null = null;
  closeReason = '';
  private readonly ws: WebSocket;

  constructor(url: string, private readonly opts: { batch: boolean } = { batch: true }) {
    this.ws = new WebSocket(url);
    this.ws.binaryType = 'arraybuffer';
    // gd:* marks: the connect's phases, which bench:viewer prints (a handful per connect).
    this.ws.onopen = (e) => {
      performance.mark('gd:wsopen');
      this.onopen?.(e);
    };
    this.ws.onerror = (e) => this.onerror?.(e);
    this.ws.onclose = (e) => {
      this.closeCode = e.code;
      this.closeReason = e.reason;
      this.onclose?.(e);
    };
    this.ws.onmessage = (e: MessageEvent<ArrayBuffer>) => {
      if (!this.stats.messagesIn) performance.mark('gd:firstmsg');
      this.stats.bytesIn += e.data.byteLength;
      this.stats.messagesIn++;
      this.onmessage?.(e);
    };
  }

  get readyState(): number {
    return this.ws.readyState;
  }

  send(data: ArrayBuffer | ArrayBufferView): void {
    this.stats.bytesOut += data.byteLength;
    if (this.opts.batch) this.outgoing.push(data);
    else this.ws.send(data);
  }

  close(): void {
    this.outgoing.flush();
    this.ws.close();
  }

  /** Sends what waits now (before a decode: see sendBatch.ts). */
  flushSends(): void {
    this.outgoing.flush();
  }

  // One WebSocket message per task's worth of sends (sendBatch.ts); dropped if the socket closed.
  private readonly outgoing = new SendBatch((bytes) => {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(bytes);
  });
}
