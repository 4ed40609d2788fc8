import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { cleanupAll, startSshd, type SshdBed } from '../../bed';
import { bedOptions } from '../../helpers/ssh';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { ChannelHub } from '../../../src/core/vnc/channelHub';
import { killSession, startSession } from '../../../src/core/remote/vncSessions';
import { openVideoStream } from '../../../src/core/video/videoStream';
import { encoderChoice } from '../../../src/core/video/encoderCheck';
import { probeVideo } from '../../../src/core/remote/probe';
import { nalTypes } from '../../../src/core/video/accessUnits';
import { VIDEO_FRAME } from '../../../src/shared/videoFrames';
import { waitFor } from '../../helpers/until';

/**
 * Video mode's server side against real parts: a TurboVNC 3.3 desktop behind the bed's sshd, Debian's
 * ffmpeg with libx264 encoding its display, the stream carried by gpu-desk's channel (hub + WebSocket).
 */
const ORIGIN = 'http://127.0.0.1:5556';
let bed: SshdBed;
let conn: SshConnection;
let hub: ChannelHub;
let hubPort: number;
let display: number;

beforeAll(async () => {
  bed = await startSshd();
  conn = await connectSsh(bedOptions(bed));
  hub = new ChannelHub({ allowedOrigins: () => [ORIGIN] });
  hubPort = await hub.listen();
  const s = await startSession(conn, { geometry: '640x480', windowManager: '/usr/bin/xterm' });
  display = s.display;
});
afterAll(async () => {
  if (display !== undefined) await killSession(conn, display).catch(() => {});
  await hub?.close();
  await conn?.close();
  await cleanupAll();
});

interface Msg { type: number; flags: number; payload: Buffer }

/** The channel's messages as the viewer reads them: bytes joined, then cut where each header says. */
function readMessages(url: string): Promise<{ ws: WebSocket; msgs: Msg[]; closed: Promise<void> }> {
  const msgs: Msg[] = [];
  let buf = Buffer.alloc(0);
  const ws = new WebSocket(url, { origin: ORIGIN });
  ws.on('message', (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    while (buf.length >= VIDEO_FRAME.headerBytes) {
      const n = buf.readUInt32BE(0);
      if (buf.length < VIDEO_FRAME.headerBytes + n) break;
      msgs.push({ type: buf[4], flags: buf[5], payload: buf.subarray(8, 8 + n) });
      buf = buf.subarray(8 + n);
    }
  });
  const closed = new Promise<void>((r) => ws.once('close', () => r()));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ws, msgs, closed }));
    ws.once('error', reject);
  });
}

/** The encoder processes of the bed's account on the server (what must be gone once a viewer closes). */
function serverEncoders(): Promise<string[]> {
  return new Promise((resolve) => {
    execFile('pgrep', ['-u', bed.user, '-a', 'ffmpeg'], (_err, stdout) => resolve(stdout.split('\n').filter((l) => l.includes('x11grab') && l.includes(`:${display}`))));
  });
}

function stream(bitrateKbps = 2000) {
  const ticket = hub.register(() => openVideoStream(conn, { display, width: 640, height: 480, fps: 30, bitrateKbps, encoder: 'libx264' }), { eager: true });
  return readMessages(`ws://127.0.0.1:${hubPort}${ticket.path}`).then((r) => ({ ...r, ticket }));
}

describe('video mode: the server encoder over SSH', () => {
  it('the stream\'s encoder is the probe\'s choice: libx264 on the bed (found by a test encode on the server)', async () => {
    const v = await probeVideo(conn);
    expect(v.ffmpeg?.path).toMatch(/ffmpeg$/);
    expect(v.encoders.map((r) => r.name)).toEqual(['h264_nvenc', 'h264_vaapi', 'libx264']);
    expect(v.encoders.find((r) => r.name === 'libx264')?.works).toBe(true);
    expect(encoderChoice(v).best).toBe(v.best);
    expect(encoderChoice(v).best).not.toBeNull();
  });

  it('sends the stream info, then access units whose first is a key frame (SPS, PPS, IDR)', async () => {
    const v = await stream();
    await waitFor(() => v.msgs.filter((m) => m.type === VIDEO_FRAME.accessUnit).length >= 5, 'five access units');
    expect(v.msgs[0].type).toBe(VIDEO_FRAME.info);
    expect(JSON.parse(v.msgs[0].payload.toString())).toMatchObject({ encoder: 'libx264', width: 640, height: 480 });
    const aus = v.msgs.filter((m) => m.type === VIDEO_FRAME.accessUnit);
    expect(aus[0].flags & VIDEO_FRAME.keyFlag).toBe(VIDEO_FRAME.keyFlag);
    // The parameter sets (from FLV's sequence header) in front of the first IDR, in band.
    const types = nalTypes(aus[0].payload);
    expect(types.slice(0, 2)).toEqual([7, 8]);
    expect(types).toContain(5);
    // Intra refresh: later frames are not IDR frames (no 10x spikes on the link), each a picture of its own.
    for (const a of aus.slice(1)) {
      expect(nalTypes(a.payload)).not.toContain(5);
      expect(nalTypes(a.payload)).toContain(1);
    }
    v.ws.close();
    await v.closed;
  });

  it('a restart (a new stream for the same viewer) starts with a new key frame, and no encoder is left on the server when viewers close', async () => {
    const a = await stream();
    await waitFor(() => a.msgs.some((m) => m.type === VIDEO_FRAME.accessUnit), 'the first stream\'s frames');
    await waitFor(async () => (await serverEncoders()).length === 1, 'one encoder on the server');
    hub.revoke(a.ticket.id);
    const b = await stream(1000);
    await waitFor(() => b.msgs.filter((m) => m.type === VIDEO_FRAME.accessUnit).length >= 2, 'the second stream\'s frames');
    const first = b.msgs.find((m) => m.type === VIDEO_FRAME.accessUnit)!;
    expect(first.flags & VIDEO_FRAME.keyFlag).toBe(VIDEO_FRAME.keyFlag);
    expect(nalTypes(first.payload)).toContain(5);
    b.ws.close();
    await waitFor(async () => (await serverEncoders()).length === 0, 'no encoder left on the server');
  });

  it('a still screen costs next to nothing: repeats of the last frame are dropped before the encoder (mpdecimate), at most half a second of them in a row', async () => {
    const v = await stream();
    await waitFor(() => v.msgs.some((m) => m.type === VIDEO_FRAME.accessUnit), 'the first frame');
    const [line] = await serverEncoders();
    expect(line).toContain('-vf mpdecimate=max=15');
    const n0 = v.msgs.filter((m) => m.type === VIDEO_FRAME.accessUnit).length;
    // A window of measure, not a wait for something: 3 s of a still desktop are 90 captures at 30 a
    // second; kept are at most one in 16 (max=15 drops in a row), so 90 / 16 + 1 frames at most. (A
    // slower machine captures less, never more: this bound holds under any load.)
    await new Promise((r) => setTimeout(r, 3000));
    const sent = v.msgs.filter((m) => m.type === VIDEO_FRAME.accessUnit).length - n0;
    expect(sent).toBeLessThanOrEqual(Math.ceil(90 / 16) + 1);
    // And not nothing: a frame still comes now and then (every 16th capture), so a faint change shows.
    await waitFor(() => v.msgs.filter((m) => m.type === VIDEO_FRAME.accessUnit).length > n0 + sent, 'a kept frame of the still screen');
    v.ws.close();
    await v.closed;
    await waitFor(async () => (await serverEncoders()).length === 0, 'no encoder left on the server');
  });

  it('an encoder that dies mid-stream ends the channel with its reason', async () => {
    const v = await stream();
    await waitFor(() => v.msgs.some((m) => m.type === VIDEO_FRAME.accessUnit), 'frames');
    const [line] = await serverEncoders();
    process.kill(Number(line.split(' ')[0]), 'SIGKILL');
    await v.closed;
    const end = v.msgs.find((m) => m.type === VIDEO_FRAME.end);
    expect(JSON.parse(end!.payload.toString()).reason).toMatch(/^The server's encoder stopped: /);
  });

  it('a display with no X server ends at once with ffmpeg\'s own error', async () => {
    const ticket = hub.register(() => openVideoStream(conn, { display: 97, width: 640, height: 480, fps: 30, bitrateKbps: 1000, encoder: 'libx264' }), { eager: true });
    const v = await readMessages(`ws://127.0.0.1:${hubPort}${ticket.path}`);
    await v.closed;
    const end = v.msgs.find((m) => m.type === VIDEO_FRAME.end);
    expect(JSON.parse(end!.payload.toString()).reason).toMatch(/:97/);
    expect(v.msgs.some((m) => m.type === VIDEO_FRAME.accessUnit)).toBe(false);
  });
});
