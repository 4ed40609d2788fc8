import { spawn, type ChildProcess } from 'node:child_process';
import { signalGroup } from '../../test/bed';
import { waitForX } from './x11';

/** The native viewer's process and the X server that shows its window. */
export interface NativePids { viewer: number; xvfb: number }

/**
 * The reference: TigerVNC's own viewer (xtigervncviewer) on an Xvfb screen, with the same
 * quality/compression/encoding, connected for `seconds`. With `passwordFile` (vncpasswd -f output)
 * it authenticates with VNC authentication, else the server must offer None.
 */
export async function runNativeViewer(opts: { port: number; width: number; height: number; quality: number; compression: number; seconds: number; xvfbDisplay: number; passwordFile?: string; afterStart?: (pids: NativePids) => void; beforeStop?: (pids: NativePids) => void }): Promise<void> {
  const xvfb = spawn('Xvfb', [`:${opts.xvfbDisplay}`, '-screen', '0', `${opts.width + 16}x${opts.height + 16}x24`, '-nolisten', 'tcp'], { stdio: 'ignore', detached: true });
  try {
    await waitForX(opts.xvfbDisplay);
    const viewer = spawn('xtigervncviewer', [
      `-QualityLevel=${opts.quality}`, `-CompressLevel=${opts.compression}`, '-AutoSelect=0', '-PreferredEncoding=Tight',
      '-Shared', '-geometry', `${opts.width}x${opts.height}+0+0`,
      ...(opts.passwordFile ? ['-SecurityTypes', 'VncAuth', '-passwd', opts.passwordFile] : ['-SecurityTypes', 'None']), `127.0.0.1::${opts.port}`,
    ], { env: { ...process.env, DISPLAY: `:${opts.xvfbDisplay}` }, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
    let err = '';
    viewer.stderr!.on('data', (d) => (err += d));
    opts.afterStart?.({ viewer: viewer.pid!, xvfb: xvfb.pid! });
    await new Promise((r) => setTimeout(r, opts.seconds * 1000));
    if (viewer.exitCode !== null) throw new Error(`xtigervncviewer exited early: ${err.trim().split('\n').slice(-2).join(' ')}`);
    opts.beforeStop?.({ viewer: viewer.pid!, xvfb: xvfb.pid! });
    await stop(viewer);
  } finally {
    await stop(xvfb);
  }
}

export async function stop(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return;
  const gone = new Promise((r) => p.once('exit', r));
  signalGroup(p, 'SIGTERM');
  await Promise.race([gone, new Promise((r) => setTimeout(r, 3000))]);
  signalGroup(p, 'SIGKILL');
}

