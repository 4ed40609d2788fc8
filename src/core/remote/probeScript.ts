import { SECTION_HELPERS, SESSION_SECTIONS_SCRIPT } from './sessionTable';
import { shScript } from './shellQuote';
import { TURBOVNC_BIN_SH, USER_INSTALL_DIR, USER_INSTALL_SH } from './userInstall';
import { NVIDIA_SMI_QUERY } from './gpuFigures';

export const WINDOW_MANAGER_COMMANDS = [
  'xfce4-session', 'startxfce4', 'mate-session', 'gnome-session', 'startplasma-x11', 'startkde',
  'cinnamon-session', 'lxsession', 'lxqt-session', 'openbox-session', 'openbox', 'fluxbox',
  'icewm-session', 'icewm', 'i3', 'awesome', 'fvwm3', 'fvwm', 'xfwm4', 'metacity', 'marco', 'twm',
];

/** The longest a video test encode may take (NVENC's first CUDA context on a many-GPU server takes a second or two). */
export const VIDEO_TEST_SECONDS = 5;

/**
 * Video mode's encoders, tested by what they do: one 256x256 frame encoded by each (VA-API on the first
 * render node, not tried without one). The encodes start before everything else and run beside it in
 * the background, each under a timeout; the "video" section at the end collects them. Where no private
 * temporary directory can be made they run one after the other in that section instead.
 * Output: "path <ffmpeg>", "version <first line of ffmpeg -version>", "render <node> <kernel driver>",
 * "pci <vendor id>" per display-class PCI device, then per encoder "@@enc <name> <exit status|skip>"
 * and the last lines of its output, each behind "> " (so no line of ffmpeg's can pass for a marker).
 */
const VIDEO_START_SCRIPT = `
VF=$(command -v ffmpeg 2>/dev/null) || VF=
VR=; for vn in /dev/dri/renderD*; do [ -e "$vn" ] && { VR=$vn; break; }; done
vrun() {
  n=$1; shift
  o=$(to ${VIDEO_TEST_SECONDS} "$VF" -hide_banner -nostdin -loglevel error "$@" -frames:v 1 -f null - </dev/null 2>&1)
  printf '@@enc %s %s\\n' "$n" "$?"
  [ -z "$o" ] || printf '%s\\n' "$o" | tail -n 8 | sed 's/^/> /'
}
venc() {
  case $1 in
    h264_vaapi) if [ -n "$VR" ]; then vrun h264_vaapi -vaapi_device "$VR" -f lavfi -i color=black:size=256x256:rate=1 -vf format=nv12,hwupload -c:v h264_vaapi
      else echo "@@enc h264_vaapi skip"; fi ;;
    *) vrun "$1" -f lavfi -i color=black:size=256x256:rate=1 -c:v "$1" ;;
  esac
}
VP=; VT=
if [ -n "$VF" ] && VT=$(mktemp -d 2>/dev/null); then
  { to 3 "$VF" -version 2>&1 | head -n 1; } >"$VT/version" 2>/dev/null & VP="$VP $!"
  for e in h264_nvenc h264_vaapi libx264; do venc "$e" >"$VT/$e" 2>&1 & VP="$VP $!"; done
fi
`;

const VIDEO_SECTION_SCRIPT = `m video
if [ -n "$VF" ]; then
  echo "path $VF"
  if [ -n "$VP" ]; then
    wait $VP
    echo "version $(cat "$VT/version")"
  else
    echo "version $(to 3 "$VF" -version 2>&1 | head -n 1)"
  fi
fi
[ -n "$VR" ] && echo "render $VR $(basename "$(readlink -f "/sys/class/drm/\${VR##*/}/device/driver" 2>/dev/null)" 2>/dev/null)"
# (read, a builtin: no process per PCI device)
for d in /sys/bus/pci/devices/*; do
  c=; { read -r c <"$d/class"; } 2>/dev/null
  case $c in 0x03*) v=; { read -r v <"$d/vendor"; } 2>/dev/null; echo "pci $v" ;; esac
done
if [ -n "$VP" ]; then
  for e in h264_nvenc h264_vaapi libx264; do cat "$VT/$e"; done
  rm -rf "$VT"
elif [ -n "$VF" ]; then
  for e in h264_nvenc h264_vaapi libx264; do venc "$e"; done
fi
`;

/** The longest vulkaninfo may take: a broken driver can hang it in vkCreateInstance. */
export const VULKANINFO_SECONDS = 8;

/**
 * Vulkan: the loader, each driver manifest (ICD json) the loader would read — VK_DRIVER_FILES or
 * VK_ICD_FILENAMES where the account sets one (the loader reads only those then), else its search
 * path — and `vulkaninfo --summary`, inside one of the account's own X displays (a VNC session's,
 * where programs will draw) where there is one, else with no display (the summary needs none).
 * Output: "loader <path>", "icdenv <value>", per manifest "@@icd <file>" ("missing" when there is no
 * such file), "lib <resolved library>|-" and the file's text behind "> "; then "@@vi absent" or
 * "@@vi <vulkaninfo> <display|-> <exit status>" and its output behind "> ".
 */
const VULKAN_SECTION_SCRIPT = `m vulkan
vklib() {
  ldconfig -p 2>/dev/null | awk -v n="$1" '$1 == n { print $NF; exit }' | grep . && return
  for d in /usr/lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib64 /usr/lib /lib64 /lib; do [ -e "$d/$1" ] && { echo "$d/$1"; return; }; done
}
vkicd() {
  printf '@@icd %s\\n' "$1"
  [ -f "$1" ] || { echo missing; return; }
  l=$(sed -n 's/.*"library_path"[[:space:]]*:[[:space:]]*"\\([^"]*\\)".*/\\1/p' "$1" 2>/dev/null | head -n 1)
  if [ -n "$l" ]; then
    case $l in /*) p=$l ;; */*) p="\${1%/*}/$l" ;; *) p=$(vklib "$l") ;; esac
    if [ -n "$p" ] && [ -e "$p" ]; then echo "lib $(readlink -f "$p")"; else echo "lib -"; fi
  fi
  head -c 4096 "$1" 2>/dev/null | sed 's/^/> /'
  echo
}
VL=$(vklib libvulkan.so.1)
[ -n "$VL" ] && echo "loader $VL"
VK=\${VK_DRIVER_FILES:-\${VK_ICD_FILENAMES:-}}
[ -n "$VK" ] && echo "icdenv $VK"
if [ -n "$VK" ]; then
  printf '%s\\n' "$VK" | tr ':' '\\n'
else
  { printf '%s\\n' "\${XDG_CONFIG_HOME:-$HOME/.config}"; printf '%s\\n' "\${XDG_CONFIG_DIRS:-/etc/xdg}" | tr ':' '\\n'; echo /etc
    printf '%s\\n' "\${XDG_DATA_HOME:-$HOME/.local/share}"; printf '%s\\n' "\${XDG_DATA_DIRS:-/usr/local/share:/usr/share}" | tr ':' '\\n'; } | sed 's|$|/vulkan/icd.d|'
fi | while read -r e; do
  [ -n "$e" ] || continue
  # A directory of the search path that does not exist is normal; a file the account names must exist.
  if [ -d "$e" ]; then for j in "$e"/*.json; do [ -e "$j" ] && vkicd "$j"; done; elif [ -n "$VK" ]; then vkicd "$e"; fi
done
VI=$(command -v vulkaninfo 2>/dev/null) || VI=
if [ -z "$VI" ]; then echo "@@vi absent"
else
  # The account's own X displays (its VNC sessions own theirs), where its programs will draw: the first
  # of them that lets vulkaninfo in (one may be stale, want another authority file, or be shutting down); at most 16 tried.
  VD=; o=; rc=1; n=0
  for s in /tmp/.X11-unix/X*; do
    [ -S "$s" ] && [ -O "$s" ] || continue
    n=$((n + 1)); [ "$n" -le 16 ] || break
    VD=":\${s##*/X}"; o=$(DISPLAY=$VD to ${VULKANINFO_SECONDS} "$VI" --summary </dev/null 2>&1); rc=$?
    [ "$rc" = 0 ] || [ "$rc" = 124 ] && break
  done
  # Not again after a time-out: a driver that hangs hangs without a display too, and the probe must stay short.
  if [ "$rc" != 0 ] && [ "$rc" != 124 ]; then VD=; o=$(unset DISPLAY; to ${VULKANINFO_SECONDS} "$VI" --summary </dev/null 2>&1); rc=$?; fi
  printf '@@vi %s %s %s\\n' "$VI" "\${VD:--}" "$rc"
  printf '%s\\n' "$o" | head -n 300 | sed 's/^/> /'
fi
`;

/**
 * Whether the server reaches the upstream download host (GitHub) and its distribution's mirror: one
 * HEAD request each, in the background from the start, under a short time-out (curl, else wget; no
 * tool: "none"). The mirror is the first http(s) URL of the package sources. Output (section "reach"):
 * "upstream <exit status|none>", "mirror <url> <exit status|none>".
 */
const REACH_START_SCRIPT = `
reach() {
  if command -v curl >/dev/null 2>&1; then curl -s -o /dev/null -I --connect-timeout 3 --max-time 5 "$1"
  elif command -v wget >/dev/null 2>&1; then wget -q --spider -T 5 -t 1 "$1"; r=$?; [ $r = 8 ] && r=0; return $r
  else return 127; fi
}
RM=$({ grep -hE '^[[:space:]]*(deb|URIs:)' /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources
  grep -hE '^[[:space:]]*(baseurl|mirrorlist|metalink)[[:space:]]*=' /etc/yum.repos.d/*.repo; } 2>/dev/null | grep -oE 'https?://[^/[:space:]]+' | head -n 1)
RP=; RT=
if RT=$(mktemp -d 2>/dev/null); then
  { reach https://github.com/ >/dev/null 2>&1; echo $? >"$RT/upstream"; } & RP="$RP $!"
  [ -z "$RM" ] || { reach "$RM/" >/dev/null 2>&1; echo $? >"$RT/mirror"; } & RP="$RP $!"
fi
`;

const REACH_SECTION_SCRIPT = `m reach
if [ -n "$RT" ]; then
  wait $RP
  u=$(cat "$RT/upstream" 2>/dev/null); echo "upstream \${u:-none}"
  [ -z "$RM" ] || { v=$(cat "$RT/mirror" 2>/dev/null); echo "mirror $RM \${v:-none}"; }
  rm -rf "$RT"
fi
`;

/** The user install (userInstall.ts) beside the system one: which exist, and which sessions use. */
const USER_INSTALL_SECTION_SCRIPT = `m userinstall
UB="$HOME/${USER_INSTALL_DIR}"
if [ -d "$UB" ]; then
  echo "base $UB"
  [ -n "$UI" ] && echo "current $UI"
  for d in "$UB"/turbovnc-*_virtualgl-*; do [ -d "$d" ] && echo "install \${d##*/}"; done
fi
[ -x "$O/TurboVNC/bin/vncserver" ] && echo "system-turbovnc $O/TurboVNC/bin"
[ -x "$O/VirtualGL/bin/vglrun" ] && echo "system-virtualgl $O/VirtualGL/bin"
m devnodes
# Each GPU device node and whether this account can open it (VirtualGL's EGL back end needs read-write).
for f in /dev/dri/card* /dev/dri/renderD* /dev/nvidia*; do
  [ -c "$f" ] || continue
  a=no; [ -r "$f" ] && [ -w "$f" ] && a=rw
  g=$(stat -c %G "$f" 2>/dev/null)
  printf '%s %s %s\n' "$f" "$a" "\${g:--}"
done
`;

const SCRIPT = `
export LC_ALL=C
PATH="$PATH:/usr/local/bin:/usr/sbin:/sbin"
O="\${1:-/opt}"
${USER_INSTALL_SH}${SECTION_HELPERS}${VIDEO_START_SCRIPT}${REACH_START_SCRIPT}
m os; cat /etc/os-release 2>/dev/null || cat /usr/lib/os-release 2>/dev/null
m uname; uname -m; uname -r; uname -n
m id; id -un; id -u; id -nG
m sudo
if [ "$(id -u)" = 0 ]; then echo root
elif command -v sudo >/dev/null 2>&1; then
  # Only members of the usual admin groups are asked: for anyone else sudo would log (and by default
  # mail) a "not in sudoers" incident on every probe.
  case " $(id -nG) " in
    *" sudo "*|*" wheel "*|*" admin "*) if sudo -n true </dev/null >/dev/null 2>&1; then echo passwordless; else echo password; fi ;;
    *) echo unknown ;;
  esac
else echo absent; fi
m nvsmi
if command -v nvidia-smi >/dev/null 2>&1; then to 8 nvidia-smi ${NVIDIA_SMI_QUERY} --format=csv,noheader,nounits 2>&1; echo "@@rc=$?"; else echo "@@absent"; fi
m nvproc; cat /proc/driver/nvidia/version 2>/dev/null
m dri
for f in /dev/dri/card* /dev/dri/renderD*; do
  [ -e "$f" ] || continue
  a=no; [ -r "$f" ] && [ -w "$f" ] && a=rw
  # The PCI address behind it (sysfs), so a GPU nvidia-smi lists can be matched to its EGL device.
  p=$(readlink -f "/sys/class/drm/\${f##*/}/device" 2>/dev/null); p=\${p##*/}
  g=$(stat -c %G "$f" 2>/dev/null)
  printf '%s %s %s %s\\n' "$f" "$a" "\${g:--}" "\${p:--}"
done
m vgl
V="$O/VirtualGL/bin"
# The system's (an administrator's), else the one in the home, else any on PATH.
if [ ! -x "$V/vglrun" ] && [ -n "$UI" ] && [ -x "$UI/VirtualGL/bin/vglrun" ]; then V="$UI/VirtualGL/bin"; case \${UI##*/} in *_virtualgl-*) echo "version \${UI##*_virtualgl-}" ;; esac; fi
if [ ! -x "$V/vglrun" ] && command -v vglrun >/dev/null 2>&1; then V=$(dirname "$(command -v vglrun)"); fi
if [ -x "$V/vglrun" ]; then echo "bin $V"; [ -x "$V/eglinfo" ] && echo "eglinfo"; fi
ver=$(dpkg-query -W -f='\${Version}' virtualgl 2>/dev/null) || ver=
[ -n "$ver" ] || { ver=$(rpm -q --qf '%{VERSION}' VirtualGL 2>/dev/null) || ver=; }
[ -n "$ver" ] && echo "version $ver"
getent group vglusers >/dev/null 2>&1 && echo "group"
m egl
# VirtualGL's own list of the EGL devices this account can open, then each one's vendor and renderer
# (in parallel: each makes a GL context, about half a second).
if [ -x "$V/eglinfo" ]; then
  # "@@listed": this eglinfo knows -e (VirtualGL ≥ 3.1), so an empty list means no usable device.
  E=$(to 10 "$V/eglinfo" -e 2>&1) && echo "@@listed"
  printf '%s\\n' "$E"
  D=$(printf '%s\\n' "$E" | sed -n 's/^EGL device ID: \\(egl[0-9]*\\).*/\\1/p')
  t=$(mktemp -d 2>/dev/null) && {
    P=
    for d in $D; do to 10 "$V/eglinfo" "$d" -B >"$t/$d" 2>&1 & P="$P $!"; done
    # Its own jobs only: the video test encodes run in the background too.
    [ -z "$P" ] || wait $P
    for d in $D; do printf '@@dev %s\\n' "$d"; grep -E '^OpenGL (vendor|renderer) string' "$t/$d"; done
    rm -rf "$t"
  }
fi
m x0
if [ -S /tmp/.X11-unix/X0 ] || [ -e /tmp/.X0-lock ]; then
  echo "@@running"
  XA=; [ -r /etc/opt/VirtualGL/vgl_xauth_key ] && XA=/etc/opt/VirtualGL/vgl_xauth_key
  if [ -x "$V/glxinfo" ]; then XAUTHORITY="\${XA:-\${XAUTHORITY:-$HOME/.Xauthority}}" to 5 "$V/glxinfo" -display :0 -c 2>&1 | head -n 40
  elif command -v glxinfo >/dev/null 2>&1; then XAUTHORITY="\${XA:-\${XAUTHORITY:-$HOME/.Xauthority}}" to 5 glxinfo -display :0 -B 2>&1 | head -n 40
  else echo "@@noglxinfo"; fi
fi
m turbo
${TURBOVNC_BIN_SH}if [ -x "$T/vncserver" ]; then echo "bin $T"; to 3 "$T/Xvnc" -version 2>&1 | head -n 3; fi
m tiger
X=$(command -v Xtigervnc 2>/dev/null) || X=$(command -v Xvnc 2>/dev/null) || X=
case "$X" in "$T"/*) X= ;; esac
[ -n "$X" ] && to 3 "$X" -version 2>&1 | head -n 3
${SESSION_SECTIONS_SCRIPT}m wm
for c in ${WINDOW_MANAGER_COMMANDS.join(' ')}; do command -v "$c" >/dev/null 2>&1 && echo "$c"; done
m dm
[ -e /etc/systemd/system/display-manager.service ] && basename "$(readlink -f /etc/systemd/system/display-manager.service)" .service
${VULKAN_SECTION_SCRIPT}m clip
for c in xclip xsel; do command -v "$c" >/dev/null 2>&1 && echo "$c"; done
${VIDEO_SECTION_SCRIPT}${USER_INSTALL_SECTION_SCRIPT}${REACH_SECTION_SCRIPT}m end
`;

/** The video section alone, for video mode's start (the same test encodes as the probe's; no other section). */
const VIDEO_ONLY_SCRIPT = `
export LC_ALL=C
PATH="$PATH:/usr/local/bin:/usr/sbin:/sbin"
${SECTION_HELPERS}${VIDEO_START_SCRIPT}${VIDEO_SECTION_SCRIPT}m end
`;

export function buildVideoProbeCommand(): string {
  return shScript(VIDEO_ONLY_SCRIPT);
}

/**
 * The whole probe as ONE remote POSIX sh script: a single SSH round trip instead of dozens, no root,
 * every slow tool under a timeout. Output is split into "@@GD:<name>" sections for the pure parsers.
 *
 * $1 is the root of the /opt-style install prefix (normally /opt): VirtualGL and TurboVNC live in
 * $1/VirtualGL/bin and $1/TurboVNC/bin. It is passed as an argument, quoted by shellQuote.
 */
export function buildProbeCommand(optRoot = '/opt'): string {
  return shScript(SCRIPT, [optRoot]);
}
