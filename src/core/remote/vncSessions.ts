import { placeOnGpu, gpuEnvArgs } from './gpuChoice';
import { createDecipheriv, randomInt } from 'node:crypto';
import { GpuDeskError, registerSecret } from '../errors';
import type { ExecResult, SshSession } from '../ssh/types';
import { probeServer } from './probe';
import { PICK_DISPLAY_SH } from './displayPick';
import { parseOtp, parseSsListeners, parseStartedDisplay, splitSections } from './parsers';
import { SECTION_HELPERS, SESSION_SECTIONS_SCRIPT, flavorOfExecutable, sessionsFromSections } from './sessionTable';
import { shScript } from './shellQuote';
import { displayToPort } from '../tunnels/forwardSpec';
import { TURBOVNC_ARGS } from './turboVncArgs';
import { TURBOVNC_BIN_SH, USER_INSTALL_SH, XKB_ARGS_SH } from './userInstall';
import { START_GEOMETRY_HINT, boundingGeometry, geometryScreens } from '../../shared/screenGeometry';
import type { ServerReport, StartedSession, VncFlavor, VncSessionInfo } from './types';

export interface SessionOptions {
  /** Install prefix of TurboVNC/VirtualGL (default /opt). */
  optRoot?: string;
}

export interface StartOptions extends SessionOptions {
  /** Display number; the next free one when omitted. */
  display?: number;
  /** WIDTHxHEIGHT, default 1920x1080. */
  geometry?: string;
  /** Window-manager/session command (e.g. xfce4-session); default: the first one the probe found. */
  windowManager?: string;
  /** Run the window manager under VirtualGL: 'auto' (default) does so when VirtualGL is configured. */
  virtualgl?: 'auto' | 'on' | 'off';
  /** A fresh probe report, to skip probing again. */
  report?: ServerReport;
  flavor?: VncFlavor;
  /**
   * unix (default for TurboVNC ≥ 3.1): the session listens only on a Unix socket in ~/.vnc (mode 0600),
   * no TCP port at all; tcp: on 127.0.0.1:5900+n. TigerVNC sessions always use TCP.
   */
  transport?: 'unix' | 'tcp';
  /** nvidia-smi's index of the GPU the desktop renders on (gpuChoice.ts); omitted: as before, no pinning. */
  gpu?: number;
}

const LIST_SCRIPT = `
export LC_ALL=C
PATH="$PATH:/usr/local/bin:/usr/sbin:/sbin"
O="\${1:-/opt}"
${USER_INSTALL_SH}${TURBOVNC_BIN_SH}${SECTION_HELPERS}
${SESSION_SECTIONS_SCRIPT}
m end
`;

/** Running sessions of the connected account, each once with its flavour, and where each one listens. */
export async function listSessions(session: SshSession, opts: SessionOptions = {}): Promise<VncSessionInfo[]> {
  const optRoot = opts.optRoot ?? '/opt';
  const r = await session.exec(shScript(LIST_SCRIPT, [optRoot]), { timeoutMs: 30_000 });
  const s = splitSections(r.stdout);
  if (!('end' in s)) {
    throw new GpuDeskError('REMOTE_COMMAND_FAILED', `Listing VNC sessions failed (${(r.stderr || r.stdout).trim().split('\n')[0] ?? ''})`, 'Check that the account has a POSIX shell and try again');
  }
  return sessionsFromSections(s, `${optRoot}/TurboVNC/bin`);
}

/**
 * Who serves display :n when it is not one of this account's sessions: nothing at all, a listener on
 * 5900+n of some account (`ss -e` gives its uid; root's is left out by ss, so none means 0), or
 * unknown (no `ss` on the server). On a shared server any account may listen there once a session
 * has ended: a viewer must not hand the desk's keystrokes and clipboard to it (see trustedListener).
 */
export type DisplayOwner =
  | { kind: 'mine' }
  | { kind: 'none' }
  | { kind: 'listener'; uid: number; user: string | null; self: boolean }
  | { kind: 'unknown' };

/**
 * Where a tunnel reaches display :n: the session's Unix socket when it has one, else TCP 5900+n on the
 * server's loopback; with the session's flavour when it is one of this account's (null otherwise),
 * and who serves it.
 */
export type SessionEndpoint = ({ kind: 'unix'; path: string } | { kind: 'tcp'; host: string; port: number }) & { flavor: VncFlavor | null; owner: DisplayOwner };

/**
 * Whether a viewer may talk to what serves the display: one of this account's sessions, or a listener
 * of this account or of root (the server's own service: root already controls every session there).
 * Any other account's listener is a squat until the person says otherwise (tunnel-only mode's flag).
 */
export function trustedListener(owner: DisplayOwner): boolean {
  return owner.kind === 'mine' || (owner.kind === 'listener' && (owner.self || owner.uid === 0));
}

/** "user alice (uid 1001)", for the line that names who serves a display. */
export function ownerText(owner: DisplayOwner): string {
  switch (owner.kind) {
    case 'mine': return 'this account';
    case 'none': return 'nothing';
    case 'unknown': return 'an unknown program (the server has no `ss` to tell whose)';
    default: return owner.self ? `this account (uid ${owner.uid}), outside its VNC sessions` : `user ${owner.user ?? '?'} (uid ${owner.uid})`;
  }
}

/**
 * The one answer to "where is display :n" on the server: one small script (QUICK_ENDPOINT), else the
 * whole listing when its answer is not plain; when :n is not one of this account's sessions, who
 * listens at 5900+n. `fullListing`: the listing decides (what the quick look must agree with; its
 * test compares them).
 */
export async function displayEndpoint(session: SshSession, display: number, opts: SessionOptions & { fullListing?: boolean } = {}): Promise<SessionEndpoint> {
  displayToPort(display);
  const quick = opts.fullListing ? null : await quickLook(session, display, opts).catch(() => null);
  const found = quick ?? { at: endpointInListing(await listSessions(session, opts), display), owner: undefined };
  if (found.at) return found.at;
  return { ...tcpEndpoint(display, null, null), owner: found.owner ?? (await whoListens(session, 5900 + display)) };
}

/** Where display :n is reached when it is one of this account's sessions in a listing (the probe's, or listSessions'); else null. */
export function endpointInListing(sessions: readonly VncSessionInfo[], display: number): SessionEndpoint | null {
  const s = sessions.find((x) => x.display === display);
  if (!s) return null;
  if (s.unixPath) return { kind: 'unix', path: s.unixPath, flavor: s.flavor, owner: { kind: 'mine' } };
  return { ...tcpEndpoint(display, s.port, s.flavor), owner: { kind: 'mine' } };
}

/** TCP on the server's loopback: the port the session listens on, else the conventional 5900+n. */
function tcpEndpoint(display: number, port: number | null | undefined, flavor: VncFlavor | null): { kind: 'tcp'; host: string; port: number; flavor: VncFlavor | null } {
  return { kind: 'tcp', host: '127.0.0.1', port: port ?? 5900 + display, flavor };
}

/**
 * Who listens on TCP port $1 of the server (not ::1 alone: a tunnel reaches 127.0.0.1): `ss -e` names
 * the socket's uid (root's left out), getent its user. The account's own uid beside it.
 */
const LISTENER_SH = `
listener() {
  echo "@@me $(id -u)"
  command -v ss >/dev/null 2>&1 || { echo "@@listener unknown"; return 0; }
  l=$(ss -ltne 2>/dev/null | awk -v p=":$1" '$1 == "LISTEN" && substr($4, length($4) - length(p) + 1) == p && $4 !~ /^\\[::1\\]/' | head -n 1)
  [ -n "$l" ] || { echo "@@listener none"; return 0; }
  u=$(printf '%s\n' "$l" | sed -n 's/.* uid:\\([0-9][0-9]*\\).*/\\1/p')
  u=\${u:-0}
  echo "@@listener $u $(getent passwd "$u" 2>/dev/null | cut -d: -f1)"
}
`;

function parseOwner(lines: readonly string[]): DisplayOwner | undefined {
  const l = lines.find((x) => x.startsWith('@@listener '))?.slice(11).trim();
  const me = Number(lines.find((x) => x.startsWith('@@me '))?.slice(5));
  if (l === undefined) return undefined;
  if (l === 'none') return { kind: 'none' };
  const m = /^(\d+)(?: (\S+))?$/.exec(l);
  if (!m) return { kind: 'unknown' };
  const uid = Number(m[1]);
  return { kind: 'listener', uid, user: m[2] ?? null, self: uid === me };
}

async function whoListens(session: SshSession, port: number): Promise<DisplayOwner> {
  const r = await session.exec(shScript(`${LISTENER_SH}\nlistener "$1"`, [String(port)]), { timeoutMs: 15_000 });
  return parseOwner(r.stdout.split('\n')) ?? { kind: 'unknown' };
}

/**
 * Display :n's own pid file (as both wrappers name it: ~/.vnc/<hostname>:<n>.pid), its server's
 * executable, its TurboVNC socket-path file and the server's TCP listeners: one small script instead
 * of the whole listing, whose two Perl wrappers take ~0.3 s of the ~0.4 s between Connect and the first
 * frame. Says "@@nosession" (and who listens at 5900+n) when no wrapper keeps a pid file for :n or its
 * process is gone or not this account's.
 */
const QUICK_ENDPOINT = `
export LC_ALL=C
PATH="$PATH:/usr/local/bin:/usr/sbin:/sbin"
${LISTENER_SH}
f="$HOME/.vnc/$(uname -n):$1"
if [ ! -e "$f.pid" ]; then
  # TigerVNC 1.13 and later keep theirs here: the listing reads it.
  [ -e "\${XDG_STATE_HOME:-$HOME/.local/state}/tigervnc/$(uname -n):$1.pid" ] || { echo "@@nosession"; listener $((5900 + $1)); }
  exit 0
fi
pid=$(cat "$f.pid" 2>/dev/null)
case "$pid" in ''|*[!0-9]*) exit 0 ;; esac
# A pid file whose process is gone, or is another account's, is no session (as in the listing).
exe=$(readlink "/proc/$pid/exe" 2>/dev/null) && [ -O "/proc/$pid" ] || { echo "@@nosession"; listener $((5900 + $1)); exit 0; }
echo "@@pid $pid"
echo "@@exe $exe"
[ -f "$f.udspath" ] && echo "@@uds $(cat "$f.udspath")"
command -v ss >/dev/null 2>&1 && { ss -ltnp 2>/dev/null | grep "pid=$pid,"; echo "@@ss"; }
echo "@@end"
`;

/**
 * The endpoint of one of this account's sessions from QUICK_ENDPOINT, by the same rules as
 * sessionsFromSections (flavour from the executable; the socket path only for a TurboVNC server;
 * else the port its process listens on, else 5900+n). `at: null`: no session of this account on :n,
 * with who listens there when the script said. Null whenever the answer is not plain (no `ss`, a newer
 * TigerVNC's pid file elsewhere, odd output): the full listing decides then.
 */
async function quickLook(session: SshSession, display: number, opts: SessionOptions): Promise<{ at: SessionEndpoint | null; owner?: DisplayOwner } | null> {
  const optRoot = opts.optRoot ?? '/opt';
  const r = await session.exec(shScript(QUICK_ENDPOINT, [String(display)]), { timeoutMs: 15_000 });
  const lines = r.stdout.split('\n');
  if (lines.includes('@@nosession')) return { at: null, owner: parseOwner(lines) };
  const val = (k: string) => lines.find((l) => l.startsWith(`@@${k} `))?.slice(k.length + 3).trim();
  const pid = Number(val('pid'));
  const exe = val('exe')?.replace(/ \(deleted\)$/, '');
  if (!lines.includes('@@end') || !Number.isInteger(pid) || !exe) return null;
  // The listing counts a process as a VNC server when its executable's path says so.
  if (!/vnc/i.test(exe)) return { at: null };
  if (!lines.includes('@@ss')) return null;
  const flavor = flavorOfExecutable(exe, `${optRoot}/TurboVNC/bin`);
  const uds = val('uds');
  if (flavor === 'turbovnc' && uds) return { at: { kind: 'unix', path: uds, flavor, owner: { kind: 'mine' } } };
  return { at: { ...tcpEndpoint(display, parseSsListeners(r.stdout).find((x) => x.pid === pid)?.port, flavor), owner: { kind: 'mine' } } };
}

function checkGeometry(g: string): void {
  if (!geometryScreens(g)) {
    throw new GpuDeskError('BAD_ARGUMENT', `"${g}" is not a screen size`, `Give the geometry as ${START_GEOMETRY_HINT}`);
  }
}

function checkCommandName(c: string): void {
  // Quoted anyway; this keeps a profile typo from becoming a confusing remote error.
  if (!/^[A-Za-z0-9_./+-]+$/.test(c)) {
    throw new GpuDeskError('BAD_ARGUMENT', `"${c}" is not a program name`, 'Give the window manager as a command such as xfce4-session or /usr/bin/openbox-session');
  }
}

/** 8 characters: VNC authentication ignores anything longer. */
function randomVncPassword(): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  let p = '';
  for (let i = 0; i < 8; i++) p += alphabet[randomInt(alphabet.length)];
  return p;
}

const TURBO_START = `
n="$1"; min="\${2:-1}"; geom="$3"; wm="$4"; vgl="$5"; O="$6"; uds="$7"
# TurboVNC from the system (/opt) or, where it has none, from the install in the home, whose
# environment (its libraries, vglrun and window manager on PATH) every program in the desktop inherits.
${USER_INSTALL_SH}${TURBOVNC_BIN_SH}# The GPU the desktop is pinned to (gpuChoice.ts): these names only, inherited by everything in it.
shift 7
for kv in "$@"; do case "$kv" in GPU_DESK_GPU=*|CUDA_VISIBLE_DEVICES=*|DRI_PRIME=*) export "$kv" ;; esac; done
# One start at a time for this account: two starts must not pick the same free display.
mkdir -p "$HOME/.vnc" && command -v flock >/dev/null 2>&1 && { exec 9>"$HOME/.vnc/.gpu-desk-start.lock"; flock -w 60 9; }
${PICK_DISPLAY_SH}
loopback=1; xsdir="$HOME/.vnc"; unixsock=""
[ "$uds" = 1 ] && unixsock="$HOME/.vnc/gpu-desk-$n.sock"
${TURBOVNC_ARGS}${XKB_ARGS_SH}# -otp: the first one-time password, printed with the start.
set -- "$@" -otp
# Not exec: this shell keeps the start lock until vncserver returns, that is until its Xvnc listens on
# :N. With exec the lock went with the shell at once, and a start beside this one (another desktop
# started at the same moment) could pick the same display before this X server held it.
"$T/vncserver" "$@" </dev/null 9>&- 2>&1
`;

const TIGER_START = `
n="$1"; min="\${2:-1}"; geom="$3"; xs="$4"; shift 4
PATH="$PATH:/usr/local/bin"
W=$(command -v tigervncserver 2>/dev/null) || W=$(command -v vncserver 2>/dev/null) || { echo "vncserver is not installed"; exit 1; }
# One start at a time for this account: two starts must not pick the same free display.
mkdir -p "$HOME/.vnc" && command -v flock >/dev/null 2>&1 && { exec 9>"$HOME/.vnc/.gpu-desk-start.lock"; flock -w 60 9; }
${PICK_DISPLAY_SH}
umask 077
mkdir -p "$HOME/.vnc" || exit 1
pf="$HOME/.vnc/gpu-desk-$n.passwd"
# The password arrives on stdin: it is never on a command line (visible in ps) nor in a file on the client.
vncpasswd -f > "$pf" || { rm -f "$pf"; exit 1; }
L=-localhost
"$W" -help 2>&1 | grep -Eq 'localhost[^a-z]*yes' && L="-localhost yes"
# What the wrapper says goes through a file: when it fails without a word (Debian's wrapper does so when
# a signal reaches it while it waits for Xvnc), the session log's tail below still says why.
o=$(mktemp "$HOME/.vnc/.gpu-desk-start.XXXXXX") || exit 1
if [ -n "$xs" ]; then
  [ $# -gt 0 ] && set -- -- "$@"
  "$W" ":$n" $L -geometry "$geom" -SecurityTypes VncAuth -PasswordFile "$pf" -xstartup "$xs" "$@" </dev/null 9>&- >"$o" 2>&1
else
  "$W" ":$n" $L -geometry "$geom" -SecurityTypes VncAuth -PasswordFile "$pf" </dev/null 9>&- >"$o" 2>&1
fi
rc=$?
cat "$o"
if [ $rc != 0 ] && ! grep -q '[^[:space:]]' "$o"; then
  echo "vncserver for display :$n failed (exit status $rc) and printed nothing; the end of its log:"
  log=$(ls -t "$HOME"/.vnc/*:"$n".log 2>/dev/null | head -n 1)
  [ -n "$log" ] && tail -n 5 "$log"
fi
rm -f "$o"
[ $rc = 0 ] || rm -f "$pf"
exit $rc
`;

/** The VirtualGL back end for the session's window manager: an EGL device ID ("egl0"), "glx", or null (none). */
function resolveVgl(report: ServerReport, want: 'auto' | 'on' | 'off'): string | null {
  if (want === 'off' || !report.virtualgl.installed) {
    if (want === 'on') throw new GpuDeskError('VNC_SESSION_FAILED', 'VirtualGL is not installed on the server', 'Run the set-up plan first, or start the session without VirtualGL');
    return null;
  }
  if (report.virtualgl.eglUsable) return report.virtualgl.eglDevice ?? 'egl';
  if (report.xserver.accessible && !report.xserver.softwareRenderer) return 'glx';
  if (want === 'on') throw new GpuDeskError('VNC_SESSION_FAILED', `VirtualGL cannot render here: ${report.virtualgl.eglReason}`, 'Run the set-up plan, or start the session without VirtualGL');
  return null;
}

/** TurboVNC learned -rfbunixpath in 3.1. */
function turboHasUnixSockets(version: string | null): boolean {
  const [major = 0, minor = 0] = (version ?? '').split('.').map(Number);
  return major > 3 || (major === 3 && minor >= 1);
}

/**
 * Start a session bound to localhost. TurboVNC gets a one-time password (nothing stored anywhere);
 * TigerVNC gets a random per-session password, returned here for the viewer and kept only in the
 * server account's ~/.vnc (mode 600) while the session runs.
 */
export async function startSession(session: SshSession, opts: StartOptions = {}): Promise<StartedSession> {
  // The password is redacted while this start can still fail with the server's output; after that
  // the caller registers it for as long as it keeps it (the app: until the viewer or session ends).
  const held: (() => void)[] = [];
  try {
    return await start(session, opts, (secret) => held.push(registerSecret(secret)));
  } finally {
    for (const release of held) release();
  }
}

async function start(session: SshSession, opts: StartOptions, hold: (secret: string) => void): Promise<StartedSession> {
  if (opts.display !== undefined) displayToPort(opts.display);
  const geometry = opts.geometry ?? '1920x1080';
  checkGeometry(geometry);
  if (opts.windowManager) checkCommandName(opts.windowManager);
  const report = opts.report ?? (await probeServer(session, { optRoot: opts.optRoot }));
  const flavor = opts.flavor ?? report.vnc.flavor;
  if (!flavor || (flavor === 'turbovnc' && !report.vnc.turbovnc.installed) || (flavor === 'tigervnc' && !report.vnc.tigervnc.installed)) {
    throw new GpuDeskError('VNC_SESSION_FAILED', flavor ? `${flavor === 'turbovnc' ? 'TurboVNC' : 'TigerVNC'} is not installed on the server` : 'No VNC server is installed on the server', 'Run the set-up plan (gpu-desk setup <server> --apply) to install one');
  }
  const placement = opts.gpu === undefined ? null : placeOnGpu(report, opts.gpu);
  const resolved = resolveVgl(report, opts.virtualgl ?? 'auto');
  // Pinned to a GPU: VirtualGL renders on that GPU's EGL device where one was found.
  const vgl = resolved && resolved !== 'glx' && placement?.eglDevice ? placement.eglDevice : resolved;
  const wm = opts.windowManager ?? report.windowManagers[0] ?? '';
  const optRoot = opts.optRoot ?? '/opt';
  const display = opts.display === undefined ? '' : String(opts.display);

  let out: string;
  let password: string | null;
  let passwordKind: StartedSession['passwordKind'];
  if (flavor === 'turbovnc') {
    const unix = opts.transport !== 'tcp';
    if (unix && !turboHasUnixSockets(report.vnc.turbovnc.version)) {
      if (opts.transport === 'unix') throw new GpuDeskError('VNC_SESSION_FAILED', `TurboVNC ${report.vnc.turbovnc.version ?? '(unknown version)'} cannot listen on a Unix socket`, 'Upgrade TurboVNC to 3.1 or newer (the set-up plan does), or start the session with --tcp');
    }
    const uds = unix && turboHasUnixSockets(report.vnc.turbovnc.version);
    const r = await withDisplayRetry(opts.display === undefined, (min) =>
      session.exec(shScript(TURBO_START, [display, String(min), geometry, wm, vgl ?? '', optRoot, uds ? '1' : '', ...gpuEnvArgs(placement)]), { timeoutMs: 60_000 }));
    out = r.stdout + r.stderr;
    // vncserver makes the first one-time password a second after starting Xvnc; on a busy server
    // Xvnc may not take X connections yet, and vncserver then exits 1 with the session running.
    // That session is kept: its password is made below, once the display answers.
    const otpLate = r.code !== 0 && /could not generate initial otp/i.test(out) && parseStartedDisplay(out) !== null;
    if (r.code !== 0 && !otpLate) throw startFailed(out, r);
    password = parseOtp(out);
    passwordKind = 'otp';
  } else {
    if (opts.transport === 'unix') throw new GpuDeskError('VNC_SESSION_FAILED', 'TigerVNC sessions started by gpu-desk listen on TCP (127.0.0.1) only', 'Start it without the Unix-socket option, or install TurboVNC 3.1 or newer');
    if (placement) throw new GpuDeskError('VNC_SESSION_FAILED', 'Choosing the GPU is done for TurboVNC desktops (gpu-desk\'s default)', 'start a TurboVNC desktop, or leave "Render on" at its default');
    password = randomVncPassword();
    hold(password);
    passwordKind = 'session';
    // With VirtualGL the session command is vglrun wrapping the window manager (+wm: window-manager mode).
    let xstartup = '';
    let args: string[] = [];
    if (wm && vgl) {
      // The install in the home runs VirtualGL through its wrapper, which finds the faker libraries.
      const ui = report.userInstall;
      xstartup = ui?.current && ui.sessionsUse.virtualgl === 'user' ? `${ui.current}/bin/vglrun` : `${report.virtualgl.binDir ?? `${optRoot}/VirtualGL/bin`}/vglrun`;
      args = [...(vgl !== 'glx' ? ['-d', vgl] : []), '+wm', wm];
    } else if (wm) {
      xstartup = wm;
    }
    const r = await withDisplayRetry(opts.display === undefined, (min) =>
      // TigerVNC starts at one size: the screens' bounding box (the viewer lays the screens out).
      session.exec(shScript(TIGER_START, [display, String(min), boundingGeometry(geometry)!, xstartup, ...args]), { stdin: `${password}\n`, timeoutMs: 60_000 }));
    out = r.stdout + r.stderr;
    if (r.code !== 0) throw startFailed(out, r);
  }
  const started = parseStartedDisplay(out);
  if (!started) throw startFailed(out);
  if (flavor === 'turbovnc') {
    // Sessions accept only one-time passwords: without one the viewer could never get in.
    password ??= await oneTimePasswordOnceUp(session, started.display, optRoot);
    if (!password) {
      await killSession(session, started.display, { optRoot, flavor }).catch(() => {});
      throw new GpuDeskError('VNC_SESSION_FAILED', `TurboVNC session :${started.display} gave no one-time password, so it was stopped`, 'Check that this TurboVNC supports -otp (2.0 or newer) and that /etc/turbovncserver-security.conf permits OTP');
    }
    hold(password);
  }
  let info: VncSessionInfo | undefined;
  // The wrapper returns as soon as the server is up; its listener can take a moment to show (long on
  // a loaded server: wait for it, not for a number of tries).
  const deadline = Date.now() + 60_000;
  while (!(info = (await listSessions(session, { optRoot })).find((s) => s.display === started.display && s.flavor === flavor && s.localhostOnly !== null)) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 300));
  }
  if (!info) {
    // Do not leave behind a session the caller never heard of.
    await killSession(session, started.display, { optRoot, flavor }).catch(() => {});
    throw startFailed(`session :${started.display} started but never showed up in the session list`);
  }
  if (info.localhostOnly === false) {
    // Never hand out a session the network can reach.
    await killSession(session, info.display, { optRoot, flavor }).catch(() => {});
    throw new GpuDeskError('VNC_SESSION_FAILED', `Session :${info.display} listened on ${info.listenAddresses.join(', ')}, not only on localhost, and was stopped`, 'Check the VNC server configuration on the server (a forced "localhost = no")');
  }
  return { ...info, password, passwordKind };
}

/**
 * Two starts at once (two windows of the app, another tool) can pick the same free display; the loser
 * sees it taken. With no display requested, simply pick again.
 */
async function withDisplayRetry(auto: boolean, start: (minDisplay: number) => Promise<ExecResult>): Promise<ExecResult> {
  let min = 1;
  for (let attempt = 1; ; attempt++) {
    const r = await start(min);
    const out = r.stdout + r.stderr;
    if (r.code === 0 || !auto || attempt >= 5 || !/already running|already active|is taken|in use/i.test(out)) return r;
    // "… already running as :3 …" / "… for display :3 …": look past the display that lost.
    const lost = /(?:as|display) :(\d+)/.exec(out);
    min = lost ? Number(lost[1]) + 1 : min + 1;
  }
}

/**
 * One line that says why: wrappers print a generic "Could not start Xvnc." and then the X server's log
 * tail, whose telling line ("Server is already active for display 3") is rarely the last one.
 */
export function startFailed(output: string, ended?: { code: number | null; signal: string | null }): GpuDeskError {
  const said = (l: string) => l !== '' && !/password|passwd/i.test(l);
  const all = output.split('\n').map((l) => l.replace(/^\(EE\)\s*/, '').trim());
  // An X server that gave up says why on the line after "Fatal server error:".
  const fatalAt = all.findIndex((l) => /^fatal server error:?$/i.test(l));
  const fatal = fatalAt < 0 ? undefined : all.slice(fatalAt + 1).find((l) => l !== '');
  const lines = all.filter((l) => said(l) && !/^(fatal server error:?|please consult\b.*|and start again\.?|=+.*)$/i.test(l));
  const telling = lines.filter((l) => /\b(error|fatal|failed|cannot|can't|could not|unable|refused|denied|already|in use|not found|no such|not installed|no free|did not start|too early)\b/i.test(l));
  const specific = telling.filter((l) => !/^could not start xvnc\.?$/i.test(l));
  const how = ended?.signal ? `ended by ${ended.signal}` : ended?.code != null ? `exit status ${ended.code}` : '';
  const line = (fatal && said(fatal) ? fatal : undefined) ?? specific.at(-1) ?? telling.at(-1) ?? lines.at(-1) ?? `no output${how ? ` (${how})` : ''}`;
  return new GpuDeskError('VNC_SESSION_FAILED', `The VNC session did not start: ${line.slice(0, 200)}`, 'Try another display number, or look at ~/.vnc/*.log on the server');
}

/** The first one-time password of a session just started: tried until its display answers (20 s at most), else null. */
async function oneTimePasswordOnceUp(session: SshSession, display: number, optRoot: string): Promise<string | null> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      return await newOneTimePassword(session, display, { optRoot });
    } catch {
      if (Date.now() > deadline) return null;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** A fresh TurboVNC one-time password for a running session (each works for one connection). */
export async function newOneTimePassword(session: SshSession, display: number, opts: SessionOptions = {}): Promise<string> {
  displayToPort(display);
  const r = await session.exec(shScript(`O="$1"\n${USER_INSTALL_SH}${TURBOVNC_BIN_SH}exec "$T/vncpasswd" -o -display ":$2" 2>&1`, [opts.optRoot ?? '/opt', String(display)]), { timeoutMs: 30_000 });
  const otp = parseOtp(r.stdout + r.stderr);
  if (r.code !== 0 || !otp) {
    throw new GpuDeskError('VNC_SESSION_FAILED', `No one-time password for :${display}: ${(r.stdout + r.stderr).trim().split('\n')[0] ?? ''}`, 'Check that the session is a running TurboVNC session of this account');
  }
  // Not registered here: the caller registers it for as long as it holds it.
  return otp;
}

/**
 * A TigerVNC desktop's own password, as gpu-desk started it: ~/.vnc/gpu-desk-N.passwd holds it in
 * vncpasswd's reversible obfuscation (DES under a key every VNC implementation knows), so tunnel-only
 * mode can give it to a native viewer as the app's viewer gets it. Null when there is no such file
 * (a desktop gpu-desk did not start). Read as hex: the file is binary.
 */
export async function tigerVncPassword(session: SshSession, display: number): Promise<string | null> {
  displayToPort(display);
  const r = await session.exec(shScript('f="$HOME/.vnc/gpu-desk-$1.passwd"; [ -f "$f" ] && od -An -tx1 -v "$f"', [String(display)]), { timeoutMs: 15_000 });
  const hex = r.stdout.replace(/\s+/g, '');
  if (r.code !== 0 || !/^([0-9a-f]{2}){8,}$/.test(hex)) return null;
  return revealVncPassword(Buffer.from(hex.slice(0, 16), 'hex'));
}

/** Undoes vncpasswd -f's obfuscation of one 8-byte block (the fixed key, bit-reversed as VNC's DES takes it). */
export function revealVncPassword(block: Buffer): string | null {
  const key = Buffer.from('e84ad660c4721ae0', 'hex');
  const des = createDecipheriv('des-ede-ecb', Buffer.concat([key, key]), null).setAutoPadding(false);
  const plain = Buffer.concat([des.update(block), des.final()]);
  const end = plain.indexOf(0);
  const text = plain.subarray(0, end < 0 ? 8 : end).toString('latin1');
  return text === '' ? null : text;
}

const KILL = `
n="$1"; flavor="$2"; O="$3"
${USER_INSTALL_SH}${TURBOVNC_BIN_SH}if [ "$flavor" = turbovnc ]; then
  out=$("$T/vncserver" -kill ":$n" 2>&1); rc=$?
  printf '%s\n' "$out"
  case "$out" in *"seems to be deadlocked"*)
    # vncserver waits one second for Xvnc, then gives up and leaves its pid and socket files behind.
    # Wait for the X server to finish exiting, then let vncserver clean up after it.
    pid=$(printf '%s\n' "$out" | sed -n 's/^Killing Xvnc process ID \\([0-9][0-9]*\\).*/\\1/p')
    i=0
    while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null; sleep 1; fi
    # The session's own clean-up (vncserver's autokill, run when its xstartup ends) may have done it.
    pf="$HOME/.vnc/$(uname -n):$n.pid"
    rc=0
    if [ -e "$pf" ]; then "$T/vncserver" -kill ":$n" 2>&1 || rc=$?; fi
    [ $rc = 0 ] || { [ ! -e "$pf" ] && ! kill -0 "$pid" 2>/dev/null && rc=0; }
  esac
else
  W=$(command -v tigervncserver 2>/dev/null) || W=$(command -v vncserver 2>/dev/null) || { echo "vncserver is not installed"; exit 1; }
  "$W" -kill ":$n" 2>&1; rc=$?
fi
rm -f "$HOME/.vnc/gpu-desk-$n.passwd"
exit $rc
`;

export async function killSession(session: SshSession, display: number, opts: SessionOptions & { flavor?: VncFlavor } = {}): Promise<void> {
  displayToPort(display);
  let flavor = opts.flavor;
  if (!flavor) {
    const found = (await listSessions(session, opts)).find((s) => s.display === display);
    if (!found) throw new GpuDeskError('VNC_SESSION_FAILED', `No VNC session :${display} is running for this account`, 'List the sessions with `gpu-desk sessions <server> list`');
    flavor = found.flavor;
  }
  const r = await session.exec(shScript(KILL, [String(display), flavor, opts.optRoot ?? '/opt']), { timeoutMs: 30_000 });
  if (r.code !== 0) {
    throw new GpuDeskError('VNC_SESSION_FAILED', `Could not stop session :${display}: ${(r.stdout + r.stderr).trim().split('\n').filter(Boolean).slice(-1)[0] ?? ''}`, 'List the sessions with `gpu-desk sessions <server> list`');
  }
}
