/**
 * The WebSocket close code the viewer's byte channel (core/vnc/channelHub.ts) ends with when the server
 * refuses the forward by policy; the reason is the error code (FORWARD_PROHIBITED or
 * SOCKET_FORWARD_REFUSED). The page tells this apart from 1011, a desktop that no longer answers.
 */
export const FORWARD_REFUSED_CLOSE = 4403;
