/**
 * bench:video's quality figures: the session's frames captured losslessly (ffmpeg x11grab on the
 * server, raw BGRX), then encoded offline the way each party's encoder does — libx264 with the very
 * arguments the viewer's server-side ffmpeg ran with, or libjpeg-turbo at the JPEG quality and
 * subsampling Xvnc logged for the connection — and ffmpeg's `ssim` filter between what comes back
 * and the capture, both as 4:4:4 YUV (all planes: the "All" figure).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { SshdBed } from '../../test/bed';
import { makeTempDir } from '../../test/bed';
import { sshRun } from '../3d/remote';

export interface Capture { file: string; width: number; height: number; frames: number; fps: number }
export interface Quality { ssim: number; kibPerFrame: number }

function run(cmd: string, args: string[], opts: { stdinFile?: string; stdoutFile?: string } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { stdio: [opts.stdinFile ? fs.openSync(opts.stdinFile, 'r') : 'ignore', opts.stdoutFile ? fs.openSync(opts.stdoutFile, 'w') : 'pipe', 'pipe'] });
    let err = '';
    p.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
    p.stdout?.on('data', () => {});
    p.once('error', reject);
    p.once('exit', (code) => (code === 0 ? resolve(err) : reject(new Error(`${cmd} ${args.slice(0, 4).join(' ')}… failed (${code}): ${err.trim().split('\n').slice(-2).join(' | ')}`))));
  });
}

/** `frames` frames of display :N at `fps`, raw, as the bed's user on the server (its own X authority), into a file the bench can read. */
export async function captureFrames(bed: SshdBed, display: number, width: number, height: number, frames: number, fps = 30): Promise<Capture> {
  const dir = makeTempDir('gd-bench-video-cap-');
  fs.chmodSync(dir, 0o777);
  const file = path.join(dir, 'capture.bgrx');
  await sshRun(bed, ['ffmpeg', '-hide_banner', '-nostdin', '-loglevel', 'error', '-f', 'x11grab', '-draw_mouse', '0', '-framerate', String(fps), '-video_size', `${width}x${height}`, '-i', `:${display}`, '-frames:v', String(frames), '-f', 'rawvideo', '-pix_fmt', 'bgr0', '-y', file], 60_000);
  const got = fs.statSync(file).size / (width * height * 4);
  return { file, width, height, frames: got, fps };
}

const rawIn = (c: Capture, file: string) => ['-f', 'rawvideo', '-pix_fmt', 'bgr0', '-s', `${c.width}x${c.height}`, '-r', String(c.fps), '-i', file];

/** ffmpeg's ssim filter, decoded stream (first input) against the capture, both 4:4:4. */
async function ssimAgainst(c: Capture, input: string[], captureFilter = ''): Promise<number> {
  const err = await run('ffmpeg', ['-hide_banner', '-nostdin', ...input, ...rawIn(c, c.file), '-lavfi', `[0:v]format=yuv444p[a];[1:v]${captureFilter}format=yuv444p[b];[a][b]ssim`, '-f', 'null', '-']);
  const m = /SSIM .*All:([\d.]+)/.exec(err);
  if (!m) throw new Error(`ffmpeg's ssim filter printed no figure: ${err.trim().split('\n').slice(-2).join(' | ')}`);
  return Number(m[1]);
}

/**
 * libx264 with `encoderArgs` (the arguments from `-c:v` on, as the viewer's server-side ffmpeg ran
 * them: preset, tune, bitrate, VBV, intra refresh, profile) on the capture at the stream's capture
 * rate `fps`: the capture (made at c.fps) thinned by ffmpeg's fps filter to the frames that stream
 * would have grabbed, so each frame gets the bits it got there; the SSIM is against the same frames.
 */
export async function x264Quality(c: Capture, encoderArgs: string[], fps = c.fps): Promise<Quality> {
  const dir = makeTempDir('gd-bench-video-x264-');
  try {
    const out = path.join(dir, 'out.h264');
    const thin = fps < c.fps ? ['-vf', `fps=${fps}`] : [];
    await run('ffmpeg', ['-hide_banner', '-nostdin', '-loglevel', 'error', ...rawIn(c, c.file), ...thin, ...encoderArgs, '-f', 'h264', '-y', out]);
    const frames = fps < c.fps ? Math.floor((c.frames * fps) / c.fps) : c.frames;
    const kib = fs.statSync(out).size / 1024 / Math.max(1, frames);
    return { ssim: await ssimAgainst(c, ['-f', 'h264', '-r', String(fps), '-i', out], thin.length ? `fps=${fps},` : ''), kibPerFrame: kib };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

let jpegTool: string | null = null;
/** bench/video/jpegRoundTrip.c against the machine's libturbojpeg, built once. */
async function buildJpegTool(): Promise<string> {
  if (jpegTool) return jpegTool;
  const dir = makeTempDir('gd-bench-video-jpeg-');
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const bin = path.join(dir, 'jpegRoundTrip');
  const lib = ['/lib/x86_64-linux-gnu/libturbojpeg.so.0', '/usr/lib/x86_64-linux-gnu/libturbojpeg.so.0', '/usr/lib64/libturbojpeg.so.0'].find((f) => fs.existsSync(f));
  if (!lib) throw new Error('no libturbojpeg.so.0 on this machine (Debian: libturbojpeg0)');
  await run(process.env.CC ?? 'cc', ['-O2', '-o', bin, path.join(__dirname, 'jpegRoundTrip.c'), lib]);
  jpegTool = bin;
  return bin;
}

/** TurboVNC's subsampling numbers in its log ("Using JPEG subsampling S"): 0 = 1X, 1 = 4X, 2 = 2X, 3 = gray; as TurboJPEG's TJSAMP. */
const TJSAMP: Record<number, number> = { 0: 0, 1: 2, 2: 1, 3: 3 };
export const SUBSAMP_NAME: Record<number, string> = { 0: '4:4:4', 1: '4:2:0', 2: '4:2:2', 3: 'gray' };

const jpegCache = new Map<string, Quality>();
/** The capture through libjpeg-turbo at `quality` and TurboVNC subsampling `subsamp`, decoded, against the capture. */
export async function jpegQuality(c: Capture, quality: number, subsamp: number): Promise<Quality> {
  const key = `${quality}/${subsamp}`;
  const hit = jpegCache.get(key);
  if (hit) return hit;
  const bin = await buildJpegTool();
  const dir = makeTempDir('gd-bench-video-jdec-');
  try {
    const out = path.join(dir, 'decoded.bgrx');
    const err = await run(bin, [String(quality), String(TJSAMP[subsamp] ?? 0), String(c.width), String(c.height)], { stdinFile: c.file, stdoutFile: out });
    const [frames, bytes] = err.trim().split(/\s+/).map(Number);
    const q = { ssim: await ssimAgainst(c, rawIn(c, out)), kibPerFrame: bytes / 1024 / frames };
    jpegCache.set(key, q);
    return q;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

export function dropCapture(c: Capture): void {
  fs.rmSync(path.dirname(c.file), { recursive: true, force: true });
}
