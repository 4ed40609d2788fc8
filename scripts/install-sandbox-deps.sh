#!/usr/bin/env bash
# npm run setup:demo — installs the Debian/Ubuntu packages `npm run demo`'s sandbox uses, and nothing
# else: one `sudo` (none when already root, none when everything is there) for apt-get alone.
# What each is for (src/harness/demo.ts and the test bed it starts, test/bed/sshd.ts and xvnc.ts):
#   openssh-server             the sandbox's sshd (ssh-keygen comes with it)
#   tigervnc-standalone-server the sandbox's desktop (Xvnc)
#   tigervnc-tools             vncpasswd: the desktop's password
#   xauth                      the desktop's X cookie
#   xterm                      the terminal on the desktop
#   openbox                    its window manager (and /etc/xdg/openbox/rc.xml, which the demo adapts)
#   x11-utils                  xprop: the demo waits for Openbox to take the display
#   ffmpeg                     ffplay: the moving test pattern
#   gnome-keyring dbus         the demo's own keychain, for the Keys screen
#   libsecret-1-0              what keytar (the app's keychain access) loads
#   procps                     pkill and ps: the clean-up that ends what the demo started
# The browser is your own (the demo opens its address with xdg-open, or prints it).
set -euo pipefail

PACKAGES=(openssh-server tigervnc-standalone-server tigervnc-tools xauth xterm openbox x11-utils ffmpeg gnome-keyring dbus libsecret-1-0 procps)

if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
  echo "setup:demo: this is not a Debian or Ubuntu system (no dpkg-query/apt-get): install the equivalents of ${PACKAGES[*]} yourself" >&2
  exit 1
fi

missing=()
for p in "${PACKAGES[@]}"; do
  [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" = 'install ok installed' ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup:demo: the sandbox's packages are all installed"
  exit 0
fi

echo "setup:demo: installing ${missing[*]}"
# One command, so sudo asks once: the package lists first (a fresh machine may have none), then the packages.
install="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sh -c "$install"
elif command -v sudo >/dev/null; then
  sudo sh -c "$install"
else
  echo "setup:demo: not root and no sudo: as root, run: $install" >&2
  exit 1
fi
