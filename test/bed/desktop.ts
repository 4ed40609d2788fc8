import fs from 'node:fs';
import path from 'node:path';
import { makeTempDir, registerCleanup } from './util';

const TERMINAL_TITLE = 'gd-bed-terminal';

/** What a desktop started through the bed's sshd runs: openbox and one xterm the bed names. */
export interface DesktopConfig {
  /** XDG_CONFIG_HOME for the sessions (set through the sshd's SetEnv). */
  xdgConfigHome: string;
  /** The window manager to choose when starting a desktop (openbox's session command). */
  windowManager: 'openbox-session';
  /** The terminal's window name (fixed: the shell may not retitle it). */
  terminalTitle: string;
}

/**
 * openbox runs `$XDG_CONFIG_HOME/openbox/autostart`; pointing XDG_CONFIG_HOME at a directory of our
 * own gives each desktop the bed starts a known terminal without touching the shared bed account's
 * ~/.config (other suites, and other people, start desktops for that account too). Whatever else a
 * machine has installed (another x-terminal-emulator, a desktop session), these sessions look alike.
 */
export function desktopConfig(): DesktopConfig {
  const dir = makeTempDir('gd-desktop-');
  fs.mkdirSync(path.join(dir, 'openbox'));
  fs.writeFileSync(
    path.join(dir, 'openbox', 'autostart'),
    '# gpu-desk test bed: one terminal at the top left, light text on black, with a fixed title\n' +
      `xterm -geometry 80x24+0+0 -bg black -fg white -title ${TERMINAL_TITLE} -xrm '*allowTitleOps: false' &\n`,
  );
  // The session runs as the bed account, which must read this root-made directory.
  for (const p of [dir, path.join(dir, 'openbox')]) fs.chmodSync(p, 0o755);
  fs.chmodSync(path.join(dir, 'openbox', 'autostart'), 0o644);
  registerCleanup(() => fs.rmSync(dir, { recursive: true, force: true }));
  return { xdgConfigHome: dir, windowManager: 'openbox-session', terminalTitle: TERMINAL_TITLE };
}
