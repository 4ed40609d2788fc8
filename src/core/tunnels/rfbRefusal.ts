import type net from 'node:net';
import { isGpuDeskError } from '../errors';

/** How long a refused viewer may take to read the reason and hang up before its socket is dropped. */
const READ_REASON_MS = 10_000;

/**
 * Tells a VNC viewer why its desktop cannot be reached, in RFB's own words, instead of an unexplained
 * end of stream: protocol 3.3 (which every viewer speaks) with security type 0, "connection failed",
 * and the reason, which viewers show in their error dialog. What the viewer sends meanwhile (its
 * version) is read and dropped: unread bytes would turn the close into a reset that can discard the reason.
 */
export function refuseVncViewer(sock: net.Socket, onData: (cb: (chunk: Buffer) => void) => void, e: Error): void {
  const reason = Buffer.from(isGpuDeskError(e) ? e.toLine() : e.message, 'utf8');
  const head = Buffer.alloc(8);
  head.writeUInt32BE(0, 0); // security type 0: the connection failed
  head.writeUInt32BE(reason.length, 4);
  onData(() => {});
  sock.setTimeout(READ_REASON_MS, () => sock.destroy());
  sock.resume();
  sock.end(Buffer.concat([Buffer.from('RFB 003.003\n', 'latin1'), head, reason]));
}
