import { execFile } from 'node:child_process';
import path from 'node:path';

export interface Rect { x: number; y: number; w: number; h: number }

/**
 * What the X server of a bed desktop shows in `rect`, as packed RGB (3 bytes a pixel, rows top to
 * bottom): the server's own screenshot (XGetImage on the root window, through ffmpeg's x11grab),
 * read with the session owner's X authority. The pointer is left out, as it is for a viewer that
 * draws the cursor itself (noVNC asks for the cursor pseudo-encoding, so the server never paints it
 * into the framebuffer it sends).
 */
export function serverScreen(bedHome: string, display: number, rect: Rect, opts: { xauthority?: string; netns?: string | null } = {}): Promise<Buffer> {
  const grab = [
    '-loglevel', 'error', '-f', 'x11grab', '-draw_mouse', '0',
    '-video_size', `${rect.w}x${rect.h}`, '-i', `:${display}+${rect.x},${rect.y}`,
    '-frames:v', '1', '-pix_fmt', 'rgb24', '-f', 'rawvideo', '-',
  ];
  // A server in a network namespace of its own (an isolated fresh server): its X server's abstract socket is there.
  const [cmd, args] = opts.netns ? ['ip', ['netns', 'exec', opts.netns, 'ffmpeg', ...grab]] : ['ffmpeg', grab];
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { encoding: 'buffer', maxBuffer: rect.w * rect.h * 3 + 1024, env: { ...process.env, XAUTHORITY: opts.xauthority ?? path.join(bedHome, '.Xauthority') } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`screenshot of :${display} failed: ${stderr.toString().trim() || err.message}`));
      else if (stdout.length !== rect.w * rect.h * 3) reject(new Error(`screenshot of :${display}: ${stdout.length} bytes for ${rect.w}x${rect.h}`));
      else resolve(stdout);
    });
  });
}

/** Pixels that differ between two packed-RGB images of the same size. */
export function differingPixels(a: Buffer, b: Buffer): number {
  if (a.length !== b.length) return Math.max(a.length, b.length) / 3;
  let n = 0;
  for (let i = 0; i < a.length; i += 3) if (a[i] !== b[i] || a[i + 1] !== b[i + 1] || a[i + 2] !== b[i + 2]) n++;
  return n;
}

/** Distinct colours in a packed-RGB image (a blank or single-colour screen has one). */
export function colourCount(a: Buffer): number {
  const seen = new Set<number>();
  for (let i = 0; i < a.length; i += 3) seen.add((a[i] << 16) | (a[i + 1] << 8) | a[i + 2]);
  return seen.size;
}

/** Whether a window with this name (WM_NAME) is mapped and viewable on a bed desktop. */
export function windowViewable(bedHome: string, display: number, name: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile('xwininfo', ['-display', `:${display}`, '-name', name], { env: { ...process.env, XAUTHORITY: path.join(bedHome, '.Xauthority') } }, (err, stdout) => {
      resolve(!err && /Map State:\s+IsViewable/.test(stdout));
    });
  });
}
