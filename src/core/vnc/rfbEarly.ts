import type { Duplex } from 'node:stream';

/**
 * TurboVNC's Xvnc waits up to 100 ms on every new connection for a WebSocket or TLS client to speak
 * first (websockets.c, webSocketsCheck: a 4-byte peek with WEBSOCKETS_CLIENT_CONNECT_WAIT_MS) before
 * it sends its own protocol version; a client whose first bytes are "RFB " is let through at once.
 * Every RFB client that waits for the server's greeting, as the protocol has it, pays those 100 ms.
 *
 * TurboVNC always offers RFB 3.8, and every viewer gpu-desk drives answers 3.8 to that, so gpu-desk
 * sends the viewer's answer as soon as the stream opens; the channel then drops the viewer's own copy
 * (ChannelOpenOptions.sentForViewer), and closes the channel should the viewer ever answer otherwise.
 * Only for sessions known to be TurboVNC: another server may offer an older version.
 */
export const RFB_38_CLIENT_VERSION = Buffer.from('RFB 003.008\n', 'latin1');

/** Opens a stream to a TurboVNC session and speaks the viewer's version first (see above). */
export async function openSpeakingFirst(open: () => Promise<Duplex>): Promise<Duplex> {
  const s = await open();
  s.write(RFB_38_CLIENT_VERSION);
  return s;
}
