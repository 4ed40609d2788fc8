import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir } from './util';

export type NativeViewerOutcome =
  /** Past authentication and ServerInit: the viewer chose a pixel format and opened its window. */
  | { kind: 'connected'; windowTitle: string; width: number; height: number; log: string }
  /** The server refused the password; `reason` is the server's own words as the viewer printed them. */
  | { kind: 'refused'; reason: string; log: string };

/**
 * The real TigerVNC viewer (`xtigervncviewer`) against a 127.0.0.1 port, with the password given the way
 * a user scripts it (`vncpasswd -f` into a 0600 file, `-passwd FILE`), its window on `x11Display`.
 * It resolves once the viewer's own log says how the connection went (never on a timer), then stops
 * the viewer: a refused viewer would otherwise sit on its error dialog.
 */
export async function runNativeViewer(port: number, password: string, x11Display: string, timeoutMs = 60_000): Promise<NativeViewerOutcome> {
  const dir = makeTempDir('gd-nativeviewer-');
  const pwFile = path.join(dir, 'passwd');
  fs.writeFileSync(pwFile, execFileSync('vncpasswd', ['-f'], { input: password + '\n' }), { mode: 0o600 });
  const viewer = spawn('xtigervncviewer', ['-passwd', pwFile, '-Log', '*:stderr:100', `127.0.0.1::${port}`], {
    env: { ...process.env, DISPLAY: x11Display },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  viewer.stderr.setEncoding('utf8');
  viewer.stderr.on('data', (d: string) => (log += d));
  const exited = new Promise<void>((r) => viewer.once('exit', () => r()));
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const refused = /Authentication failure: ([\s\S]*?)(?:\n\S|\n\n|$)/.exec(log);
      if (refused) return { kind: 'refused', reason: refused[1].replace(/\s+/g, ' ').trim(), log };
      if (/Using pixel format/.test(log)) {
        const w = viewerWindow(x11Display, viewer.pid!);
        if (w) return { kind: 'connected', windowTitle: w.title, width: w.width, height: w.height, log };
      }
      if (viewer.exitCode !== null) throw new Error(`xtigervncviewer exited ${viewer.exitCode} before connecting: ${log.trim().split('\n').slice(-3).join(' | ')}`);
      if (Date.now() > deadline) throw new Error(`xtigervncviewer said neither connected nor refused within ${timeoutMs} ms: ${log.trim().split('\n').slice(-3).join(' | ')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    viewer.kill('SIGKILL');
    await exited;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The viewer's top-level window, once mapped: its title carries the desktop's name and its size the desktop's, as the server sent them. */
function viewerWindow(x11Display: string, pid: number): { title: string; width: number; height: number } | null {
  let tree = '';
  try {
    tree = execFileSync('xwininfo', ['-display', x11Display, '-root', '-children'], { encoding: 'utf8' });
  } catch { return null; }
  for (const m of tree.matchAll(/^\s+(0x[0-9a-f]+) "([^"]*)".*?\s(\d+)x(\d+)[+-]/gm)) {
    try {
      const props = execFileSync('xprop', ['-display', x11Display, '-id', m[1], '_NET_WM_PID'], { encoding: 'utf8' });
      if (props.includes(`= ${pid}`)) return { title: m[2], width: Number(m[3]), height: Number(m[4]) };
    } catch { /* window went away */ }
  }
  return null;
}
