#!/usr/bin/env bash
# The whole suite, against real parts: a private D-Bus session with an unlocked gnome-keyring
# (a real Secret Service for keytar), then vitest (unit + integration against real sshd/Xvnc),
# then the Playwright specs in Debian's Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${GPU_DESK_IN_DBUS:-}" ]; then
  exec env GPU_DESK_IN_DBUS=1 dbus-run-session -- bash "$0" "$@"
fi
# The keyring lives in a throwaway data dir, so a developer's own login keyring (with another
# password) can neither block the tests nor be touched by them.
keyring_home=$(mktemp -d)
trap 'rm -rf "$keyring_home"' EXIT
echo -n 'gpu-desk-test-keyring' | XDG_DATA_HOME="$keyring_home" gnome-keyring-daemon --unlock --components=secrets >/dev/null
# Full runs (no arguments) first type-check against Electron's bundled typings and build the app
# (electron-vite: main, preload, renderer), as CI does; targeted runs skip straight to the tests.
if [ $# -eq 0 ]; then
  npm run -s typecheck
  npm run -s build
fi
npx vitest run "$@"
if [ -f playwright.config.ts ] && [ -z "${GPU_DESK_VITEST_ONLY:-}" ]; then
  npx playwright test
fi
# The Electron project (test/e2e-electron): runs where the Electron binary exists, says why not elsewhere.
if [ $# -eq 0 ] && [ -z "${GPU_DESK_VITEST_ONLY:-}" ]; then
  npx playwright test -c test/e2e-electron
fi
