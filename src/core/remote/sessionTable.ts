import {
  isLoopbackAddress,
  parseProcNetTcp,
  parseProcNetUnixListening,
  parseSsListeners,
  parseTigerVncList,
  parseTurboVncList,
  parseVncProcesses,
  SECTION_MARK,
  type ListedSession,
} from './parsers';
import type { VncFlavor, VncSessionInfo } from './types';

/**
 * The remote half of listing sessions, shared by the probe script and `listSessions`: both flavours'
 * `vncserver -list`, the executables of the account's VNC servers, and the TCP and Unix listeners.
 * Expects `m` (section marker), `to` (timeout wrapper) and `T` (TurboVNC's bin directory).
 */
export const SESSION_SECTIONS_SCRIPT = `
turbolist() { [ -x "$T/vncserver" ] && to 5 "$T/vncserver" -list 2>&1; }
tigerlist() {
X=$(command -v Xtigervnc 2>/dev/null) || X=$(command -v Xvnc 2>/dev/null) || X=
case "$X" in "$T"/*) X= ;; esac
W=$(command -v tigervncserver 2>/dev/null) || W=$(command -v vncserver 2>/dev/null) || W=
case "$W" in "$T"/*) W= ;; esac
[ -n "$X" ] && [ -n "$W" ] && to 5 "$W" -list 2>&1
}
# Each wrapper is a Perl script of ~0.1 s: side by side where a private temporary directory can be
# made (the viewer lists before every connect), else one after the other.
if lists=$(mktemp -d 2>/dev/null); then
  turbolist >"$lists/t" 2>&1 & tp=$!
  tigerlist >"$lists/g" 2>&1 & gp=$!
  wait "$tp" "$gp"
  m turbolist; cat "$lists/t"; m tigerlist; cat "$lists/g"; rm -rf "$lists"
else
  m turbolist; turbolist; m tigerlist; tigerlist
fi
m vncproc
if [ -r /proc/self/exe ] && command -v find >/dev/null 2>&1; then
  echo "@@ok"
  find /proc -mindepth 2 -maxdepth 2 -name exe -user "$(id -u)" -printf '%h %l\\n' 2>/dev/null | sed -n 's|^/proc/||p' | grep -i vnc
fi
m gpuenv
# Desktops pinned to a GPU (gpuChoice.ts) carry it in their X server's environment.
for e in $(find /proc -mindepth 2 -maxdepth 2 -name environ -user "$(id -u)" 2>/dev/null); do
  p=\${e#/proc/}; p=\${p%/environ}
  case "$(readlink "/proc/$p/exe" 2>/dev/null)" in *[Vv]nc*) ;; *) continue ;; esac
  g=$(tr '\\000' '\\n' <"$e" 2>/dev/null | sed -n 's/^GPU_DESK_GPU=\\([0-9][0-9]*\\)$/\\1/p' | head -n 1)
  [ -n "$g" ] && echo "$p $g"
done
m listen
if command -v ss >/dev/null 2>&1; then ss -ltnp 2>/dev/null; else echo "@@proc"; cat /proc/net/tcp /proc/net/tcp6 2>/dev/null; fi
m unixlisten; cat /proc/net/unix 2>/dev/null
`;

/** Marker and timeout helpers for scripts that include SESSION_SECTIONS_SCRIPT. */
export const SECTION_HELPERS = `
m() { printf '\\n${SECTION_MARK}%s\\n' "$1"; }
to() { if command -v timeout >/dev/null 2>&1; then timeout "$@"; else shift; "$@"; fi; }
`;

export function flavorOfExecutable(exe: string, turboBin: string | null): VncFlavor {
  // TurboVNC's X server is also called Xvnc, as RHEL's TigerVNC one is: the install directory decides.
  return (turboBin && exe.startsWith(`${turboBin}/`)) || /\/TurboVNC\//i.test(exe) ? 'turbovnc' : 'tigervnc';
}

/**
 * Each running session of the account once, with its flavour and where it listens. Both wrappers list
 * every pid file in the shared ~/.vnc, so a session appears in both lists; its flavour comes from the
 * executable of its X server, not from the list it appeared in.
 */
export function sessionsFromSections(s: Record<string, string>, turboBin: string | null): VncSessionInfo[] {
  const turbo = parseTurboVncList(s.turbolist ?? '');
  const tiger = parseTigerVncList(s.tigerlist ?? '');
  const procText = s.vncproc ?? '';
  const procs = procText.includes('@@ok') ? parseVncProcesses(procText) : null;
  const byDisplay = new Map<number, { l: ListedSession; flavor: VncFlavor; unixBy: Partial<Record<VncFlavor, string | null>> }>();
  const add = (l: ListedSession, listedBy: VncFlavor) => {
    let flavor = listedBy;
    if (procs) {
      const exe = l.pid !== null ? procs.get(l.pid) : undefined;
      // A pid file whose server is gone (or belongs to another program now) is no session.
      if (!exe) return;
      flavor = flavorOfExecutable(exe, turboBin);
    }
    const prev = byDisplay.get(l.display);
    if (!prev) {
      byDisplay.set(l.display, { l, flavor, unixBy: { [listedBy]: l.unixPath } });
      return;
    }
    // The same session from the other wrapper: keep the port either list knows.
    prev.l = { ...prev.l, port: prev.l.port ?? l.port };
    prev.unixBy[listedBy] = l.unixPath;
  };
  for (const l of turbo) add(l, 'turbovnc');
  for (const l of tiger) add(l, 'tigervnc');
  // The socket path comes from the list of the session's own flavour: TurboVNC's -list pairs any pid
  // file of a display with a `.udspath` file of that display, and a TurboVNC session killed uncleanly
  // ("deadlocked") leaves one behind, which a later TigerVNC session on that display must not inherit.
  // Without /proc the flavour is only which list named it first, and that list's path stands.
  for (const e of byDisplay.values()) {
    const own = e.unixBy[e.flavor];
    e.l = { ...e.l, unixPath: own !== undefined ? own : procs ? null : e.l.unixPath };
  }

  const tcp = (s.listen ?? '').includes('@@proc') ? parseProcNetTcp(s.listen ?? '') : parseSsListeners(s.listen ?? '');
  const pinned = new Map<number, number>();
  for (const line of (s.gpuenv ?? '').split('\n')) {
    const m = /^(\d+) (\d+)$/.exec(line.trim());
    if (m) pinned.set(Number(m[1]), Number(m[2]));
  }
  const renderGpu = (pid: number | null) => (pid !== null && pinned.has(pid) ? { renderGpu: pinned.get(pid)! } : {});
  const unixListening = new Set(parseProcNetUnixListening(s.unixlisten ?? ''));
  return [...byDisplay.values()]
    .map(({ l, flavor }): VncSessionInfo => {
      const byPid = l.pid !== null ? tcp.filter((x) => x.pid === l.pid) : [];
      if (l.unixPath) {
        // A Unix-socket session has no TCP listener of its own; any TCP one its pid holds is reported.
        const listenAddresses = [...new Set(byPid.map((x) => x.address))];
        const socketUp = unixListening.has(l.unixPath);
        return {
          display: l.display,
          port: byPid[0]?.port ?? null,
          unixPath: l.unixPath,
          pid: l.pid,
          flavor,
          localhostOnly: listenAddresses.length > 0 ? listenAddresses.every(isLoopbackAddress) : socketUp ? true : null,
          listenAddresses,
          ...renderGpu(l.pid),
        };
      }
      const port = l.port ?? byPid[0]?.port ?? 5900 + l.display;
      const mine = byPid.length > 0 ? byPid.filter((x) => x.port === port) : tcp.filter((x) => x.port === port);
      const listenAddresses = [...new Set(mine.map((x) => x.address))];
      return {
        display: l.display,
        port,
        unixPath: null,
        pid: l.pid,
        flavor,
        localhostOnly: listenAddresses.length === 0 ? null : listenAddresses.every(isLoopbackAddress),
        listenAddresses,
        ...renderGpu(l.pid),
      };
    })
    .sort((a, b) => a.display - b.display);
}
