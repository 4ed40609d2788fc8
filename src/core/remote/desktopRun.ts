import { GpuDeskError } from '../errors';
import { shScript } from './shellQuote';
import { USER_INSTALL_DIR } from './userInstall';
import type { ExecResult } from '../ssh/types';

/** What runs the remote commands: a server's SSH connection. */
export interface RunShell {
  exec(command: string, opts?: { timeoutMs?: number }): Promise<ExecResult>;
}

/** The most of a program's output the desk is shown (its log keeps all of it on the server). */
export const RUN_OUTPUT_TAIL_BYTES = 64 * 1024;

/** A program started in a desktop: its process (group) and its log on the server. */
export interface DesktopRun {
  pid: number;
  log: string;
  /** The vglrun that wraps it, or null (no VirtualGL asked for, or none on the server). */
  vglrun: string | null;
}

export interface DesktopRunState {
  running: boolean;
  /** The program's exit status once it ended (null while running, or when it was killed by a signal). */
  exitCode: number | null;
  output: string;
  /** The output began before the tail shown. */
  truncated: boolean;
}

/**
 * Starts `sh -c COMMAND` in display :N as a program of the desktop, detached from this channel:
 * the session's display and the account's X authority file (what Xlib itself would read), the home
 * folder as its working folder, VirtualGL's vglrun around it when a back end is given (OpenGL renders
 * on the GPU; Vulkan programs draw with the driver's own Vulkan and are not touched by it), and
 * `MESA_VK_DEVICE_SELECT`-style choices left to the command line itself. stdin is /dev/null; stdout
 * and stderr go to a 0600 log in ~/.vnc/gpu-desk-runs, with "@@exit N" appended when it ends. setsid
 * makes it a process group of its own, so Stop ends the program and what it started. sshd sends no
 * hang-up to a command without a terminal, so it outlives this channel and the connection.
 * Arguments: $1 display, $2 command, $3 VirtualGL back end ("" for none).
 */
export const RUN_SH = `PATH="$PATH:/usr/local/bin"
DISPLAY=":$1"; export DISPLAY
[ -n "$XAUTHORITY" ] || { [ -f "$HOME/.Xauthority" ] && XAUTHORITY="$HOME/.Xauthority" && export XAUTHORITY; }
[ -S "/tmp/.X11-unix/X$1" ] || { echo "@@nodisplay"; exit 3; }
command -v setsid >/dev/null 2>&1 || { echo "@@nosetsid"; exit 4; }
d="$HOME/.vnc/gpu-desk-runs"
umask 077
mkdir -p "$d" || exit 5
log="$d/$(date +%Y%m%d-%H%M%S)-$$.log"
# A desktop pinned to one GPU (gpuChoice.ts) passes it on: its X server's environment has the names.
dev="$3"
xp=$(cat "$HOME/.vnc/$(uname -n):$1.pid" 2>/dev/null)
case "$xp" in ''|*[!0-9]*) ;; *)
  if [ -r "/proc/$xp/environ" ]; then
    for k in GPU_DESK_GPU CUDA_VISIBLE_DEVICES DRI_PRIME VGL_DISPLAY; do
      v=$(tr '\\000' '\\n' <"/proc/$xp/environ" | sed -n "s/^$k=//p" | head -n 1)
      case "$v" in ''|*[!A-Za-z0-9_.:/-]*) continue ;; esac
      if [ "$k" = VGL_DISPLAY ]; then [ -n "$dev" ] && dev=$v; else export "$k=$v"; fi
    done
  fi ;;
esac
V=
if [ -n "$dev" ]; then
  for v in "$(command -v vglrun 2>/dev/null)" /opt/VirtualGL/bin/vglrun /usr/bin/vglrun "$HOME/${USER_INSTALL_DIR}/current/bin/vglrun"; do [ -n "$v" ] && [ -x "$v" ] && { V=$v; break; }; done
fi
cd "$HOME" || cd /
if [ -n "$V" ]; then
  setsid sh -c '"$@"; echo "@@exit $?"' run "$V" -d "$dev" sh -c "$2" </dev/null >"$log" 2>&1 &
else
  setsid sh -c '"$@"; echo "@@exit $?"' run sh -c "$2" </dev/null >"$log" 2>&1 &
fi
echo "@@run $! $log \${V:--}"`;

/**
 * A run's state: whether its process group still has a process, and its log's tail. "@@exit N" is the
 * wrapper's last line; a group killed by a signal has none.
 * Arguments: $1 pid, $2 log, $3 tail bytes.
 */
export const OUTPUT_SH = `if kill -s 0 -- "-$1" 2>/dev/null; then echo "@@running"; else echo "@@ended"; fi
s=$(wc -c <"$2" 2>/dev/null) || { echo "@@nolog"; exit 0; }
echo "@@size $s"
tail -c "$3" "$2"`;

/** Stop: TERM to the run's process group (the program and its children). $1 pid. ("kill -s SIG --": dash's kill takes no "-0 --"). */
export const STOP_SH = `kill -s TERM -- "-$1" 2>/dev/null; exit 0`;

const LOG_RE = /^\/[^\0\n]*\/\.vnc\/gpu-desk-runs\/[\w.-]+\.log$/;

export async function runInDesktop(conn: RunShell, display: number, command: string, vglBackend: string | null): Promise<DesktopRun> {
  if (!command.trim()) throw new GpuDeskError('BAD_ARGUMENT', 'The command line is empty', 'type the program to run, e.g. vkcube or glxspheres64');
  const r = await conn.exec(shScript(RUN_SH, [String(display), command, vglBackend ?? '']), { timeoutMs: 20_000 });
  const out = r.stdout;
  if (out.includes('@@nodisplay')) throw new GpuDeskError('BAD_ARGUMENT', `Display :${display} is not running on the server`, 'start the desktop first, or refresh the list of desktops');
  if (out.includes('@@nosetsid')) throw new GpuDeskError('REMOTE_COMMAND_FAILED', 'The server has no setsid (util-linux), which keeps a program running apart from gpu-desk', 'install util-linux on the server');
  const m = /^@@run (\d+) (\S.*) (\S+)$/m.exec(out);
  if (r.code !== 0 || !m || !LOG_RE.test(m[2])) {
    throw new GpuDeskError('REMOTE_COMMAND_FAILED', `The program could not be started (exit status ${r.code ?? '?'}${r.stderr.trim() ? `: ${r.stderr.trim().split('\n').at(-1)}` : ''})`, 'check that ~/.vnc is writable on the server');
  }
  return { pid: Number(m[1]), log: m[2], vglrun: m[3] === '-' ? null : m[3] };
}

export async function desktopRunState(conn: RunShell, run: Pick<DesktopRun, 'pid' | 'log'>): Promise<DesktopRunState> {
  const r = await conn.exec(shScript(OUTPUT_SH, [String(run.pid), run.log, String(RUN_OUTPUT_TAIL_BYTES)]), { timeoutMs: 20_000 });
  const [state, ...rest] = r.stdout.split('\n');
  const running = state === '@@running';
  if (rest[0] === '@@nolog') return { running, exitCode: null, output: '', truncated: false };
  const size = Number(/^@@size (\d+)/.exec(rest[0] ?? '')?.[1] ?? 0);
  let output = rest.slice(1).join('\n');
  let exitCode: number | null = null;
  const exit = /(^|\n)@@exit (\d+)\n?$/.exec(output);
  if (exit) {
    exitCode = Number(exit[2]);
    output = output.slice(0, exit.index + exit[1].length);
  }
  return { running, exitCode: running ? null : exitCode, output, truncated: size > RUN_OUTPUT_TAIL_BYTES };
}

export async function stopDesktopRun(conn: RunShell, run: Pick<DesktopRun, 'pid'>): Promise<void> {
  await conn.exec(shScript(STOP_SH, [String(run.pid)]), { timeoutMs: 20_000 });
}
