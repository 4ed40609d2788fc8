import { Duplex } from 'node:stream';
import type { ClientChannel } from 'ssh2';
import { GpuDeskError } from '../errors';
import { escapeServerText } from '../serverText';
import { evenSize, VIDEO_FRAME, type VideoStreamInfo } from '../../shared/videoFrames';
import { accessUnitMessage, jsonMessage } from './accessUnits';
import { FlvAccessUnits } from './flvUnits';
import { encoderCommand, type VideoStreamSpec } from './encoderCommand';

export interface VideoStreamSession {
  execStream?(command: string): Promise<ClientChannel>;
}

/** What a closed stream's last words were: the encoder's own error line, or its exit status. */
export function endReason(stderrTail: string, code: number | null, signal: string | null): string {
  const lines = stderrTail.split('\n').map((l) => l.trim()).filter(Boolean);
  const gpuDesk = lines.find((l) => l.startsWith('gpu-desk: '));
  const last = gpuDesk?.slice('gpu-desk: '.length) ?? lines[lines.length - 1];
  const why = last ? escapeServerText(last).slice(0, 200) : signal ? `killed by ${signal}` : `exit status ${code ?? 'unknown'}`;
  return `The server's encoder stopped: ${why}`;
}

/**
 * The session's display as H.264 over the SSH connection: an exec channel running ffmpeg, its stdout
 * (FLV) cut into access units, each sent on as soon as it is whole, and framed (src/shared/videoFrames.ts) for the viewer's channel. Nothing
 * listens on the server. The stream's readable side carries: one info message, the access units (the
 * first is a key frame), and an end message with the reason when the encoder stopped by itself.
 * Destroying the stream closes the channel, which ends the encoder (see encoderCommand.ts).
 * `onEnd` hears the reason of an encoder that stopped by itself (for the app's log).
 */
export async function openVideoStream(session: VideoStreamSession, spec: VideoStreamSpec, onEnd?: (reason: string) => void): Promise<Duplex> {
  if (!session.execStream) throw new GpuDeskError('BAD_ARGUMENT', 'This connection cannot carry a video stream', 'switch the codec to VNC');
  const ch = await session.execStream(encoderCommand(spec));
  const split = new FlvAccessUnits();
  let stderr = '';
  let code: number | null = null;
  let signal: string | null = null;
  let ended = false;
  let sawKey = false;
  const out = new Duplex({
    read() {
      ch.resume();
    },
    write(_chunk, _enc, cb) {
      // The viewer has nothing to say on this channel.
      cb();
    },
    destroy(err, cb) {
      ended = true;
      ch.removeAllListeners('data');
      try {
        ch.end();
        ch.close();
      } catch {
        /* already closed */
      }
      cb(err);
    },
  });
  const finish = (reason: string | null) => {
    if (ended) return;
    ended = true;
    if (reason) {
      onEnd?.(reason);
      out.push(jsonMessage(VIDEO_FRAME.end, { reason }));
    }
    out.push(null);
  };
  const info: VideoStreamInfo = { encoder: spec.encoder, width: evenSize(spec.width), height: evenSize(spec.height), fps: spec.fps, bitrateKbps: spec.bitrateKbps };
  out.push(jsonMessage(VIDEO_FRAME.info, info));
  ch.on('data', (d: Buffer) => {
    if (ended) return;
    let units;
    try {
      units = split.push(d);
    } catch (e) {
      finish(`The server's encoder sent ${(e as Error).message}`);
      ch.close();
      return;
    }
    for (const u of units) {
      // Nothing can be decoded before the first key frame: what comes before it is not sent.
      if (!sawKey && !u.key) continue;
      sawKey = true;
      if (!out.push(accessUnitMessage(u))) ch.pause();
    }
  });
  ch.stderr.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString('utf8')).slice(-4096);
  });
  ch.on('exit', (c: number | null, s?: string) => {
    code = c;
    signal = s ?? null;
  });
  ch.on('close', () => {
    finish(endReason(stderr, code, signal));
  });
  return out;
}
