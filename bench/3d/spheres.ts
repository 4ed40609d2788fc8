/** glxspheres64 on the server, with the frame rate it reports itself (-bt 1: one line a second). */
import type { ChildProcess } from 'node:child_process';
import type { SshdBed } from '../../test/bed';
import { stop } from '../viewer/nativeViewer';
import { sshTerminal, VIRTUALGL_BIN } from './remote';

export const SPHERES_SIZE = '1240x900';
const SPHERES = [`${VIRTUALGL_BIN}/glxspheres64`, '-w', SPHERES_SIZE, '-bt', '1'];

export interface Spheres {
  /** "llvmpipe (…), Direct": what rendered the frames, from the program's own banner. */
  readonly renderer: string;
  /** How many figures the program has printed so far. */
  mark(): number;
  /** The program's own frame rate over the figures it printed after `mark` (waits for two at least). */
  fpsSince(mark: number): Promise<number>;
  stop(): Promise<void>;
}

/** In a TurboVNC session: through VirtualGL on Mesa's software EGL device, as a user types it. */
export function spheresInSession(bed: SshdBed, display: number): Promise<Spheres> {
  return watch(sshTerminal(bed, bed.port, ['env', `DISPLAY=:${display}`, `${VIRTUALGL_BIN}/vglrun`, '-d', 'egl0', ...SPHERES]), 'vglrun glxspheres64 in the TurboVNC session');
}

/**
 * X11 forwarding: `ssh -X` through `sshPort` with the window on the desk's X display. Debian's and
 * Ubuntu's /etc/ssh/ssh_config set ForwardX11Trusted yes, so that is what `ssh -X` means there; an
 * untrusted client would not get GLX at all. The bench's -F /dev/null drops that file, so it is set here.
 */
export function spheresOverX11(bed: SshdBed, sshPort: number, deskDisplay: number): Promise<Spheres> {
  return watch(sshTerminal(bed, sshPort, SPHERES, ['-X', '-o', 'ForwardX11Trusted=yes'], { ...process.env, DISPLAY: `:${deskDisplay}` }), 'glxspheres64 over ssh -X');
}

async function watch(child: ChildProcess, what: string): Promise<Spheres> {
  const samples: { at: number; fps: number }[] = [];
  let text = '';
  let renderer = '';
  let context = '';
  let firstFigure!: () => void;
  const started = new Promise<void>((r) => (firstFigure = r));
  const onData = (d: Buffer) => {
    const at = performance.now();
    text += d.toString();
    let nl: number;
    while ((nl = text.indexOf('\n')) >= 0) {
      const line = text.slice(0, nl).replace(/\r$/, '');
      text = text.slice(nl + 1);
      const f = /^([\d.]+) frames\/sec/.exec(line);
      if (f) {
        samples.push({ at, fps: Number(f[1]) });
        firstFigure();
      }
      renderer = /^OpenGL Renderer: (.*)$/.exec(line)?.[1] ?? renderer;
      context = /^Context is (\w+)/.exec(line)?.[1] ?? context;
      if (!f) lastLines.push(line);
    }
  };
  const lastLines: string[] = [];
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<never>((_, reject) =>
    child.once('exit', (code) => reject(new Error(`${what} exited (${code}): ${lastLines.slice(-3).join(' | ')}`))));
  exited.catch(() => {});
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  try {
    await Promise.race([started, exited]);
  } finally {
    clearTimeout(timer);
  }
  return {
    get renderer() { return `${renderer || 'unknown renderer'}, ${context || 'unknown'} context`; },
    mark: () => samples.length,
    fpsSince: async (mark) => {
      // A figure covers the time since the one before it (about -bt seconds, longer when frames are slow);
      // at least two whole figures after the mark, however slow the program is.
      const deadline = performance.now() + 120_000;
      while (samples.length < mark + 2) {
        if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited: ${lastLines.slice(-3).join(' | ')}`);
        if (performance.now() > deadline) throw new Error(`${what} printed no frame rate for 2 minutes`);
        await new Promise((r) => setTimeout(r, 100));
      }
      let frames = 0;
      let ms = 0;
      for (let i = Math.max(mark, 1); i < samples.length; i++) {
        const span = samples[i].at - samples[i - 1].at;
        frames += samples[i].fps * span;
        ms += span;
      }
      return frames / ms;
    },
    stop: () => stop(child),
  };
}
