/**
 * Which X display a new VNC session may take on a machine: shell text shared by every start
 * (TigerVNC's and TurboVNC's wrappers on a server, a cluster job's script on its node).
 *
 * Taken:
 * - an X server's lock or socket in /tmp, or its abstract socket (an X server whose /tmp is not
 *   this one: another container, a private /tmp);
 * - something listening on the display's VNC (5900+n) or X (6000+n) TCP port (a tunnel, another
 *   user's server): TurboVNC refuses such a display, and each refusal costs a second of its start;
 * - a VNC wrapper's pid file whose process is still alive. TurboVNC and TigerVNC share ~/.vnc, and a
 *   session being stopped keeps its pid file until its X server is gone (its X lock goes first): a
 *   start there would be killed by the old wrapper's clean-up, so a live pid counts. A dead one does
 *   not: crashes, reboots and jobs killed after Slurm's KillWait leave such files behind by the
 *   hundred, and counting them ran out of displays. Another host's file in a shared home counts only
 *   if its pid happens to be alive here, which at worst skips a display. /proc is read rather than
 *   only `kill -0`, which fails on another user's process that is very much alive.
 * The listeners and abstract sockets are read once, when this text runs; `taken N` then answers.
 */
export const DISPLAY_TAKEN_SH = `
xabs=" $(grep -o '@/tmp/.X11-unix/X[0-9]*' /proc/net/unix 2>/dev/null | sed 's/.*X//' | tr '\\n' ' ')"
listening=" "
for f in /proc/net/tcp /proc/net/tcp6; do
  [ -r "$f" ] || continue
  while read -r _ local _ st _; do [ "$st" = 0A ] && listening="$listening$((0x\${local##*:})) "; done <"$f"
done
taken() {
  [ -e "/tmp/.X$1-lock" ] || [ -e "/tmp/.X11-unix/X$1" ] && return 0
  case $listening in *" $((5900+$1)) "*|*" $((6000+$1)) "*) return 0 ;; esac
  case $xabs in *" $1 "*) return 0 ;; esac
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
