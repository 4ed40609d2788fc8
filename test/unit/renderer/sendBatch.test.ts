import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { SendBatch } from '../../../src/renderer/viewer/sendBatch';

// The viewer channel's sends (src/renderer/viewer/channel.ts) through a real WebSocket on loopback
// (the `ws` package the harness itself serves with): what arrives, message by message.
describe("the viewer channel's send batching", () => {
  let server: WebSocketServer;
  let client: WebSocket;
  let received: number[][];

  beforeEach(async () => {
    received = [];
    server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    server.on('connection', (sock) => sock.on('message', (m: Buffer) => received.push([...m])));
    await new Promise<void>((resolve) => server.on('listening', () => resolve()));
    client = new WebSocket(`ws://127.0.0.1:${(server.address() as { port: number }).port}/`);
    await new Promise<void>((resolve, reject) => {
      client.on('open', () => resolve());
      client.on('error', reject);
    });
  });

  afterEach(async () => {
    client.terminate();
    for (const c of server.clients) c.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const until = async (cond: () => boolean) => {
    while (!cond()) await new Promise((r) => setTimeout(r, 5));
  };

  it('sends what one task sends as one message, copied before noVNC reuses its queue', async () => {
    const batch = new SendBatch((bytes) => client.send(bytes));
    // noVNC's Websock hands views of one reused send queue: two fence replies in a row.
    const queue = new Uint8Array(16);
    queue.set([248, 0, 0, 0, 0, 0, 0, 1, 1, 7]);
    batch.push(new Uint8Array(queue.buffer, 0, 10));
    queue.set([248, 0, 0, 0, 0, 0, 0, 1, 1, 9]);
    batch.push(new Uint8Array(queue.buffer, 0, 10));
    await until(() => received.length >= 1);
    // A later task's send is its own message.
    batch.push(new Uint8Array([3, 1, 0, 0, 0, 0, 0, 10, 0, 10]).buffer);
    await until(() => received.length >= 2);
    expect(received).toEqual([
      [248, 0, 0, 0, 0, 0, 0, 1, 1, 7, 248, 0, 0, 0, 0, 0, 0, 1, 1, 9],
      [3, 1, 0, 0, 0, 0, 0, 10, 0, 10],
    ]);
  });

  it('flush() sends what waits at once (the channel does so before it closes)', async () => {
    const sent: number[][] = [];
    const batch = new SendBatch((bytes) => {
      sent.push([...bytes]);
      client.send(bytes);
    });
    batch.push(new Uint8Array([4, 1, 0, 0, 0, 0, 0xff, 0xe1]));
    expect(sent).toEqual([]);
    batch.flush();
    expect(sent).toEqual([[4, 1, 0, 0, 0, 0, 0xff, 0xe1]]);
    await until(() => received.length >= 1);
    // Nothing is sent twice when the microtask comes.
    await new Promise((r) => setTimeout(r, 0));
    expect(received).toEqual([[4, 1, 0, 0, 0, 0, 0xff, 0xe1]]);
  });
});
