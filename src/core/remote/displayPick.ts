/**
 * Which X display a new VNC session may take on the server: shell text shared by every start
 * (TigerVNC's and TurboVNC's wrappers here, a cluster job's script on its node).
 *
 * Taken: an X server's lock or socket, or a VNC wrapper's pid file whose process is still alive.
 * TurboVNC and TigerVNC share ~/.vnc, and a session being stopped keeps its pid file until its X
 * server is gone (its X lock goes first): a start there would be killed by the old wrapper's
 * clean-up, so a live pid counts. A dead one does not: crashes, reboots and jobs killed after
 * Slurm's KillWait leave such files behind by the hundred, and counting them ran out of displays.
 * /proc is read rather than `kill -0`, which fails on another user's process that is very much alive.
 */
export const DISPLAY_TAKEN_SH = `
taken() {
  [ -e "/tmp/.X$1-lock" ] || [ -e "/tmp/.X11-unix/X$1" ] && return 0
  for f in "$HOME/.vnc/"*":$1.pid"; do
    [ -f "$f" ] || continue
    p=""; read -r p <"$f" 2>/dev/null
    case "$p" in ''|*[!0-9]*) continue ;; esac
    { [ -d "/proc/$p" ] || kill -0 "$p" 2>/dev/null; } && return 0
  done
  return 1
}
`;

/** Sets n to the first display from $min that is not taken, unless n was given. */
export const PICK_DISPLAY_SH = `${DISPLAY_TAKEN_SH}
if [ -z "$n" ]; then
  n=$min
  while taken "$n"; do n=$((n+1)); done
  [ "$n" -le 99 ] || { echo "No free display between :$min and :99"; exit 1; }
fi
`;
