/**
 * THE vncserver argument list for a TurboVNC desktop started by gpu-desk, as a POSIX shell fragment
 * shared by `startSession` (a server's desktop) and the Slurm job script (a node's desktop), so both
 * start the same kind of session. It reads shell variables, never spliced values:
 *   n        display number
 *   geom     WIDTHxHEIGHT
 *   loopback 1: -localhost (no TCP listener beyond loopback); empty: TCP on all interfaces (the
 *            login-forward job, reached from the login node, where OTP is the only way in)
 *   unixsock a Unix socket path (-rfbunixpath, mode 0600: Xvnc then opens no TCP listener), or empty
 *   wm       window manager / session name, or empty for a bare X desktop
 *   xsdir    a 0700 directory for the xstartup written for a window manager without a session file
 *   vgl      egl / eglN / a device path (VirtualGL's EGL back end), glx, or empty (no VirtualGL)
 * It sets "$@" to the arguments; the caller adds its own (-otp, -fg) and runs vncserver.
 * -alr: automatic lossless refresh. Once the screen has been still for ALR_DELAY_S seconds, Xvnc
 * resends the regions it last sent as JPEG, mathematically lossless (no -alrqual), so text and thin
 * lines come out exact after motion without the viewer asking (the viewer asks too, after a second,
 * for servers without it: rfbSession.ts).
 * Only one-time passwords are accepted: no VNC password file is needed or written.
 */
export const ALR_DELAY_S = 0.5;

export const TURBOVNC_ARGS = `
set -- ":$n" -securitytypes OTP -geometry "$geom" -alr ${ALR_DELAY_S}
[ "$loopback" = 1 ] && set -- "$@" -localhost
[ -n "$unixsock" ] && set -- "$@" -rfbunixpath "$unixsock" -rfbunixmode 0600
if [ -n "$wm" ]; then
  b=\${wm##*/}; b=\${b%-session}
  if [ -f "/usr/share/xsessions/$b.desktop" ] || [ -f "/usr/local/share/xsessions/$b.desktop" ]; then
    set -- "$@" -wm "$wm"
  else
    # vncserver -wm only knows window managers with a session desktop file: start this one directly,
    # under VirtualGL when -vgl asks for it, as TurboVNC's own xstartup would.
    xs="$xsdir/gpu-desk-xstartup"
    umask 077
    printf '%s\\n' '#!/bin/sh' 'unset SESSION_MANAGER WAYLAND_DISPLAY' \\
      '[ "$TVNC_VGL" = 1 ] && exec \${TVNC_VGLRUN:-vglrun +wm} "$GPU_DESK_WM"' 'exec "$GPU_DESK_WM"' > "$xs" && chmod 700 "$xs" || exit 1
    GPU_DESK_WM="$wm"; export GPU_DESK_WM
    set -- "$@" -xstartup "$xs"
  fi
else
  set -- "$@" -noxstartup
fi
# VirtualGL's EGL back end on the chosen device (vglrun reads VGL_DISPLAY), or the GLX one.
case "$vgl" in egl*|/*) VGL_DISPLAY="$vgl"; export VGL_DISPLAY; set -- "$@" -vgl ;; glx) set -- "$@" -vgl ;; esac
`;
