/**
 * What this machine's own ffmpeg does with the probe's one-frame test encodes, run here by the test
 * (as the bed's account, when the bed has its own), not by the probe: the answer the probe must give
 * for the bed's server, which is this machine. No hard-coded list, so it holds on any machine.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { ffmpegErrorLine, VIDEO_ENCODERS } from '../../../src/core/remote/parsers';
import type { VideoEncoderInfo } from '../../../src/core/remote/types';

const SEARCH_PATH = '/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin';
const INPUT = ['-f', 'lavfi', '-i', 'color=black:size=256x256:rate=1'];

export interface LocalVideo {
  ffmpeg: string | null;
  encoders: VideoEncoderInfo[];
}

export function localVideoEncoders(user: string): LocalVideo {
  const ffmpeg = spawnSync('sh', ['-c', 'command -v ffmpeg'], { encoding: 'utf8', env: { PATH: SEARCH_PATH } }).stdout.trim() || null;
  const as = process.getuid?.() === 0 && user !== 'root'
    ? { uid: Number(execFileSync('id', ['-u', user], { encoding: 'utf8' })), gid: Number(execFileSync('id', ['-g', user], { encoding: 'utf8' })) }
    : {};
  const node = fs.existsSync('/dev/dri') ? fs.readdirSync('/dev/dri').filter((n) => /^renderD\d+$/.test(n)).sort()[0] : undefined;
  const encoders = VIDEO_ENCODERS.map((name): VideoEncoderInfo => {
    if (!ffmpeg) return { name, works: false, error: 'ffmpeg is not installed' };
    let args: string[];
    if (name === 'h264_vaapi') {
      if (!node) return { name, works: false, error: 'no /dev/dri/renderD* device' };
      args = ['-vaapi_device', `/dev/dri/${node}`, ...INPUT, '-vf', 'format=nv12,hwupload', '-c:v', name];
    } else {
      args = [...INPUT, '-c:v', name];
    }
    const r = spawnSync(ffmpeg, ['-hide_banner', '-nostdin', '-loglevel', 'error', ...args, '-frames:v', '1', '-f', 'null', '-'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 20_000,
      cwd: '/',
      ...as,
    });
    return r.status === 0 ? { name, works: true, error: null } : { name, works: false, error: ffmpegErrorLine(`${r.stdout}${r.stderr}`) ?? `ffmpeg exited with status ${r.status}` };
  });
  return { ffmpeg, encoders };
}
