import { GpuDeskError } from '../errors';
import { checkMirrorUrl, FETCH_FAILED, fetchVerifiedScript, verificationSource, verificationText, type UpstreamPackage } from './packageFetch';
import { shellQuote } from './shellQuote';
import type { DistroKey, PlanStep, ServerReport, SetupPlan } from './types';
import type { TextKey, UserInstallSummaryView } from '../../shared/models';

/**
 * The no-root install: TurboVNC, VirtualGL and what they need from the distribution, unpacked as the
 * account's own user into one prefix in its home (docs/README.md §12). Every step runs as the user;
 * each one builds its part in a temporary directory beside the target and renames it into place, so a
 * run cut off in the middle leaves nothing half-installed and the next --apply finishes it.
 *
 * Layout (under the account's $HOME; one install in a shared home serves every node of a cluster):
 *   .local/share/gpu-desk/                       USER_INSTALL_DIR, the base
 *     turbovnc-3.3_virtualgl-3.1.4/              one versioned install (userInstallName)
 *       TurboVNC/       the package's opt/TurboVNC (bin/Xvnc, bin/vncserver, bin/vncpasswd …)
 *       VirtualGL/      the package's opt/VirtualGL; VirtualGL/lib holds its faker libraries
 *       deps/           distribution packages TurboVNC and VirtualGL need that the server lacks
 *       wm/             openbox and xterm with their libraries, where the server has no window manager
 *       bin/vglrun      wrapper: finds the faker libraries, runs from any shell with nothing set by hand
 *       env.sh          PATH, LD_LIBRARY_PATH, XDG dirs and Xvnc's XKB paths, sourced with GPU_DESK_UI set
 *     current -> turbovnc-3.3_virtualgl-3.1.4    switched last, atomically: sessions use what it names
 *     .incoming/        packages the desk carried over SFTP (file + file.sha256), checked again here
 *     .apt/ .dnf/       the package tools' private state and cache (lists, downloaded archives)
 * A system install (in /opt, by an administrator) is preferred wherever it exists.
 */

/** The base of the user install, relative to the account's home. */
export const USER_INSTALL_DIR = '.local/share/gpu-desk';

export function userInstallName(turbovncVersion: string, virtualglVersion: string): string {
  return `turbovnc-${turbovncVersion}_virtualgl-${virtualglVersion}`;
}

/**
 * POSIX sh for every remote script that uses TurboVNC/VirtualGL: UI is the user install's directory
 * when a complete one exists (its `current` link resolved), else empty; its env.sh is sourced then.
 */
export const USER_INSTALL_SH = `
UI=; [ -n "$HOME" ] && UI=$(cd -P "$HOME/${USER_INSTALL_DIR}/current" 2>/dev/null && pwd) && [ -f "$UI/env.sh" ] || UI=
[ -z "$UI" ] || { GPU_DESK_UI=$UI; . "$UI/env.sh"; }
`;

/** After O (the system prefix, normally /opt) and USER_INSTALL_SH: T is TurboVNC's bin, the system's where it has one. */
export const TURBOVNC_BIN_SH = `T="$O/TurboVNC/bin"
if [ ! -x "$T/vncserver" ] && [ -n "$UI" ] && [ -x "$UI/TurboVNC/bin/vncserver" ]; then T="$UI/TurboVNC/bin"; fi
# A system VirtualGL is preferred to the user's: its vglrun first on PATH.
[ -z "$UI" ] || [ ! -x "$O/VirtualGL/bin/vglrun" ] || PATH="$O/VirtualGL/bin:$PATH"
`;

/** Where sessions started from the user install get Xvnc's XKB data and xkbcomp (set by env.sh when they come from deps/). */
export const XKB_ARGS_SH = `[ -n "\${GPU_DESK_XKBDIR:-}" ] && set -- "$@" -xkbdir "$GPU_DESK_XKBDIR"
[ -n "\${GPU_DESK_XKBCOMPDIR:-}" ] && set -- "$@" -xkbcompdir "$GPU_DESK_XKBCOMPDIR"
`;

/** Where the desk puts the distribution's lists and packages it carried (userDepsCarry.ts), under USER_INSTALL_DIR. */
export const CARRIED_MIRROR_DIR = '.incoming/mirror';

/**
 * After B (the base): apt as the user, with its own lists and cache, its options in "$@". Where the desk
 * carried a mirror (M, its sources.list there), apt reads those file:// sources instead of the server's
 * own, with the same Signed-By: it checks the carried InRelease and every .deb exactly as for the mirror.
 */
export const APT_USER_SH = [
  'A="$B/.apt"; mkdir -p "$A/lists/partial" "$A/archives/partial" || exit 1',
  'set -- -q -o Dir::State::Lists="$A/lists" -o Dir::Cache="$A" -o Dir::Cache::archives="$A/archives" -o Debug::NoLocking=1',
  `M="$B/${CARRIED_MIRROR_DIR}"; if [ -f "$M/sources.list" ]; then set -- "$@" -o Dir::Etc::SourceList="$M/sources.list" -o Dir::Etc::SourceParts="$M/sources.list.d" -o Acquire::Languages=none; else M=; fi`,
].join('\n');

export interface UserInstallOptions {
  virtualglVersion?: string;
  turbovncVersion?: string;
  /** A mirror of the upstream packages (as setupPlan's packagesFrom). */
  packagesFrom?: string;
  allowUnverified?: boolean;
  /** 'openbox' (default where the server has none) or 'none': a bare desktop. */
  windowManager?: 'openbox' | 'none';
}

/** What the plan tells the reviewer about the install (the app shows it on the plan and in the wizard). */
export type UserInstallSummary = UserInstallSummaryView;

/** Distribution packages TurboVNC 3.3 and VirtualGL 3.1.4 need (their package metadata; GL/EGL come with the GPU driver). */
export function userDependencyPackages(distro: DistroKey): { turbovnc: string[]; virtualgl: string[]; wm: string[] | null } {
  if (distro.startsWith('rhel-')) {
    return {
      turbovnc: ['libXt', 'libXext', 'libXfont2', 'pixman', 'mesa-libgbm', 'xorg-x11-xauth', 'xorg-x11-xkb-utils', 'xkeyboard-config', 'dbus-x11'],
      virtualgl: ['turbojpeg', 'libXtst', 'libXv', 'mesa-libGLU'],
      // openbox is in EPEL, which only an administrator can enable: a bare desktop there.
      wm: null,
    };
  }
  // Ubuntu names the TurboJPEG library package libturbojpeg; Debian libturbojpeg0.
  const turbojpeg = distro.startsWith('ubuntu-') ? 'libturbojpeg' : 'libturbojpeg0';
  return {
    turbovnc: ['libxt6', 'libxext6', 'libxfont2', 'libpixman-1-0', 'libgbm1', 'xauth', 'x11-xkb-utils', 'xkb-data', 'dbus-x11'],
    virtualgl: [turbojpeg, 'libxtst6', 'libxv1', 'libglu1-mesa'],
    wm: ['openbox', 'xterm'],
  };
}

/** About what the install takes on disk: the two packages unpacked, and the libraries a bare server lacks. */
const DISK_MB = { turbovnc: 30, virtualgl: 15, deps: 45, wm: 25 };
/** Free space each step wants before it starts (its download and its unpacked tree side by side). */
const NEED_MB = { turbovnc: 80, virtualgl: 40, deps: 150, wm: 80 };

function archNames(arch: string): { deb: string; rpm: string; triplet: string } {
  if (arch === 'x86_64' || arch === 'amd64') return { deb: 'amd64', rpm: 'x86_64', triplet: 'x86_64-linux-gnu' };
  if (arch === 'aarch64' || arch === 'arm64') return { deb: 'arm64', rpm: 'aarch64', triplet: 'aarch64-linux-gnu' };
  throw new GpuDeskError(
    'UNSUPPORTED_OS',
    `TurboVNC and VirtualGL publish no packages for this server's architecture (${arch || 'unknown'})`,
    'Use an x86_64 or aarch64 server, or build TurboVNC and VirtualGL from source there',
  );
}

/** Whether the set-up should install into the home: asked for, or the account has no sudo (probe). */
export function wantsUserInstall(report: Pick<ServerReport, 'sudo'>, userInstall: boolean | undefined): boolean {
  return userInstall ?? (report.sudo === 'absent' || report.sudo === 'unknown');
}

/** The upstream packages of the install, by the server's family and architecture (the same names setupPlan uses). */
export function userInstallPackages(report: Pick<ServerReport, 'arch' | 'os'>, opts: UserInstallOptions = {}): UpstreamPackage[] {
  const a = archNames(report.arch);
  const vv = opts.virtualglVersion ?? '3.1.4';
  const tv = opts.turbovncVersion ?? '3.3';
  const deb = report.os.family !== 'rpm';
  return [
    { label: 'TurboVNC', repo: 'TurboVNC/turbovnc', version: tv, asset: deb ? `turbovnc_${tv}_${a.deb}.deb` : `turbovnc-${tv}.${a.rpm}.rpm` },
    { label: 'VirtualGL', repo: 'VirtualGL/virtualgl', version: vv, asset: deb ? `virtualgl_${vv}_${a.deb}.deb` : `VirtualGL-${vv}.${a.rpm}.rpm` },
  ];
}

/** The keys of the app's `plan` catalogue these steps and notes carry (setupPlan's PLAN_*_KEYS include them). */
export const USER_PLAN_STEP_KEYS = ['userTurbovnc', 'userVirtualgl', 'userDepsDeb', 'userDepsRpm', 'userWm', 'userEnv', 'userUninstall'] as const;
export const USER_PLAN_NOTE_KEYS = ['userInstall', 'userNoWmEpel', 'userNoWmChosen', 'userGlDriver'] as const;
type StepKey = (typeof USER_PLAN_STEP_KEYS)[number];
const BASE_SHOWN = `~/${USER_INSTALL_DIR}`;

const text = (key: StepKey, params: Record<string, string> = {}, verify?: { source: TextKey; allowUnverified: boolean }): NonNullable<PlanStep['text']> =>
  ({ key, params, ...(verify ? { verify } : {}) });

/**
 * Shell shared by every install step: B (base), V (this version), the one-line failures the issue
 * lists (full disk or quota, a noexec home), and a temporary directory beside the target, removed on
 * any exit, so nothing half-made is ever left under a final name.
 */
function prelude(name: string, part: string, needMB: number): string {
  return [
    `B="$HOME/${USER_INSTALL_DIR}"; V="$B/"${shellQuote(name)}`,
    'say() { echo "gpu-desk: $*" >&2; }',
    // Only the base before the checks: a failed check leaves no versioned directory behind.
    `mkdir -p "$B" 2>/dev/null || { say "cannot create $B (is your home writable?): nothing was installed; fix the permissions or free space, then run the plan again"; exit 1; }`,
    `free=$(df -Pk "$B" 2>/dev/null | awk 'NR == 2 { print int($4 / 1024) }')`,
    `if [ -n "$free" ] && [ "$free" -lt ${needMB} ]; then say "only \${free} MB free in $B, ${needMB} MB needed: nothing was installed; free space (or ask for a larger quota), then run the plan again"; exit 1; fi`,
    // A home mounted noexec runs nothing installed there: find out before unpacking anything.
    `x="$B/.exec-test.$$"; printf '#!/bin/sh\\nexit 0\\n' >"$x" 2>/dev/null && chmod 700 "$x" && "$x" 2>/dev/null; rc=$?; rm -f "$x"`,
    `[ $rc = 0 ] || { say "programs cannot run from $B (your home is mounted noexec, or full): nothing was installed; ask the administrator for a home without noexec, or free space, then run the plan again"; exit 1; }`,
    `mkdir -p "$V" 2>/dev/null || { say "cannot create $V (disk or quota full?): nothing was installed; free space, then run the plan again"; exit 1; }`,
    `t=$(mktemp -d "$B/.tmp-${part}.XXXXXX") || { say "cannot write in $B (disk or quota full?): nothing was installed; free space, then run the plan again"; exit 1; }`,
    `trap 'rm -rf -- "$t"' EXIT`,
    "trap 'exit 1' HUP INT TERM PIPE",
    // Unpacking errors name the cause: a full disk or quota, else the tool's own last line.
    'unpack_failed() { if grep -qiE "no space left|quota" "$t/err" 2>/dev/null; then say "the disk (or your quota) filled up while unpacking $1: nothing was installed; free space, then run the plan again"; else say "unpacking $1 failed: $(tail -n 1 "$t/err" 2>/dev/null); nothing was installed"; fi; exit 1; }',
  ].join('\n');
}

/** Unpacks package file "$1" into directory "$2" without root. */
function unpackFn(family: 'deb' | 'rpm'): string {
  return family === 'deb'
    ? 'unpack() { mkdir -p "$2" && dpkg-deb -x "$1" "$2" 2>"$t/err"; }'
    : 'unpack() { mkdir -p "$2" && ( cd "$2" && rpm2cpio "$1" | cpio -idm --quiet ) 2>"$t/err"; }';
}

/** One upstream package: the desk's carried copy if there is one (checked again), else the verified download; unpacked, renamed into place. */
function upstreamStep(pkg: UpstreamPackage, family: 'deb' | 'rpm', name: string, part: 'TurboVNC' | 'VirtualGL', mirror: string | undefined, allowUnverified: boolean): string {
  const asset = shellQuote(pkg.asset);
  const moves = part === 'TurboVNC'
    ? ['[ -d "$t/root/opt/TurboVNC/bin" ] || { say "the TurboVNC package holds no opt/TurboVNC: nothing was installed"; exit 1; }', 'mv "$t/root/opt/TurboVNC" "$t/part"']
    : [
      '[ -d "$t/root/opt/VirtualGL/bin" ] || { say "the VirtualGL package holds no opt/VirtualGL: nothing was installed"; exit 1; }',
      'mv "$t/root/opt/VirtualGL" "$t/part" && mkdir -p "$t/part/lib"',
      // The faker libraries (the .deb's usr/lib, the .rpm's usr/lib64) move with it, so one rename installs both.
      'for l in "$t"/root/usr/lib/lib*.so "$t"/root/usr/lib64/lib*.so; do [ -e "$l" ] && mv "$l" "$t/part/lib/"; done',
      '[ -e "$t/part/lib/libvglfaker.so" ] || { say "the VirtualGL package holds no libvglfaker.so: nothing was installed"; exit 1; }',
    ];
  return [
    fetchVerifiedScript(pkg, mirror, allowUnverified),
    // Its download directory and ours, both removed on any exit.
    'trap \'rm -rf -- "$t" "$d"\' EXIT',
    `c="$B/.incoming/"${asset}`,
    'if [ -f "$c" ]; then',
    // Carried by the desk over SFTP: checked here again against the sum the desk checked it against.
    '  want=$(cut -d" " -f1 "$c.sha256" 2>/dev/null); got=$(sha256sum "$c" | cut -d" " -f1)',
    `  if [ -z "$want" ] || [ "$got" != "$want" ]; then rm -f -- "$c" "$c.sha256"; say ${shellQuote(`the copy of ${pkg.asset} the desk uploaded is incomplete or damaged (its SHA-256 does not match): it was deleted and nothing was installed; run the plan again to upload it again`)}; exit 4; fi`,
    `  echo ${asset}": SHA-256 $got matches the desk's check"; f=$c`,
    'else',
    `  fetch_verified; rc=$?`,
    `  if [ $rc = ${FETCH_FAILED} ]; then say ${shellQuote(`could not download ${pkg.asset} (the server cannot reach ${mirror ? new URL(mirror).host : 'github.com'}, or the download was cut off): nothing was installed; run the plan again, or let the desk carry the packages (gpu-desk setup --user-install --apply --carry-packages, or --packages-from DIR)`)}; exit 3; fi`,
    '  [ $rc = 0 ] || exit $rc',
    'fi',
    unpackFn(family),
    `unpack "$f" "$t/root" || unpack_failed ${asset}`,
    ...moves,
    `rm -rf -- "$V/${part}" && mv "$t/part" "$V/${part}" || { say "could not move ${part} into $V: nothing was installed"; exit 1; }`,
    `rm -f -- "$c" "$c.sha256"`,
    `echo "${part} ${pkg.version} installed in $V/${part}"`,
  ].join('\n');
}

/**
 * The one-line error for a package the distribution's mirror lacks, read from apt-get's stderr in
 * "$t/err" (exported so a test can feed it apt's real messages).
 */
export const APT_LACK_SH = [
  'lack=$(sed -n "s/^E: Unable to locate package \\(.*\\)/\\1/p; s/^E: Package \'\\(.*\\)\' has no installation candidate/\\1/p" "$t/err" | head -n 1)',
  '[ -z "$lack" ] || { say "the distribution\'s mirror has no package $lack: nothing was installed; ask the administrator to enable the repository that holds it (or install it), then run the plan again"; exit 1; }',
].join('\n');

/** Distribution packages `pkgs` and what they need that the system lacks, downloaded as the user, verified by the package tool, unpacked into $V/<dir>. */
function distPackagesStep(family: 'deb' | 'rpm', pkgs: string[], dir: string, post = ''): string {
  const list = pkgs.map(shellQuote).join(' ');
  const common = [
    unpackFn(family),
    'mkdir -p "$t/pkgs" "$t/root"',
  ];
  const fetch = family === 'deb'
    ? [
      // apt with its own lists and cache (the system's sources and keys): Release files are checked against
      // the distribution's signing keys and every .deb against the hashes they list, exactly as for root.
      APT_USER_SH,
      'apt-get "$@" update >"$t/log" 2>&1; rc=$?',
      'if [ $rc != 0 ] || grep -qE "^(W|E): (Failed to fetch|Some index files failed)" "$t/log"; then grep -E "^(W|E):" "$t/log" | tail -n 3 >&2; if [ -n "$M" ]; then say "apt refused the package lists the desk carried (signature or hashes): nothing was installed; run the plan again with --carry-packages"; else say "the distribution\'s mirror cannot be reached from this server (apt-get update failed): nothing was installed; check the server\'s network or proxy, or let the desk carry the packages (gpu-desk setup --user-install --apply --carry-packages), then run the plan again"; fi; exit 1; fi',
      `need=$(apt-get "$@" -s install --no-install-recommends ${list} 2>"$t/err" | sed -n 's/^Inst \\([^ ]*\\) .*/\\1/p')`,
      APT_LACK_SH,
      'grep -q "^E:" "$t/err" && { tail -n 3 "$t/err" >&2; say "apt cannot resolve the packages this install needs: nothing was installed"; exit 1; }',
      'echo "from the distribution: ${need:-nothing, the server has them all}"',
      'if [ -n "$need" ]; then',
      '  ( cd "$t/pkgs" && apt-get "$@" download $need ) >"$t/log" 2>&1 || { tail -n 3 "$t/log" >&2; if grep -qiE "no space left|quota" "$t/log"; then say "the disk (or your quota) filled up while downloading: nothing was installed; free space, then run the plan again"; else say "downloading the distribution\'s packages failed or was cut off: nothing was installed; run the plan again"; fi; exit 1; }',
      'fi',
      'for p in "$t"/pkgs/*.deb; do [ -e "$p" ] || continue; unpack "$p" "$t/root" || unpack_failed "${p##*/}"; done',
    ]
    : [
      // dnf as the user: its own cache, the system's repositories; repository metadata is checked against its checksums.
      'C="$B/.dnf"; mkdir -p "$C" || exit 1',
      `( cd "$t/pkgs" && dnf -q download --resolve --setopt=cachedir="$C" --destdir "$t/pkgs" ${list} ) >"$t/log" 2>&1 || {`,
      '  lack=$(sed -n "s/^No package \\(.*\\) available.*/\\1/p; s/^No match for argument: \\(.*\\)/\\1/p" "$t/log" | head -n 1)',
      '  [ -z "$lack" ] || { say "the distribution\'s mirror has no package $lack: nothing was installed; ask the administrator to enable the repository that holds it (or install it), then run the plan again"; exit 1; }',
      '  tail -n 3 "$t/log" >&2; if grep -qiE "no space left|quota" "$t/log"; then say "the disk (or your quota) filled up while downloading: nothing was installed; free space, then run the plan again"; else say "dnf could not download the distribution\'s packages (mirror unreachable, or the download was cut off): nothing was installed; run the plan again"; fi; exit 1',
      '}',
      'need=$(cd "$t/pkgs" && ls *.rpm 2>/dev/null | tr "\\n" " ")',
      'echo "from the distribution: ${need:-nothing, the server has them all}"',
      'for p in "$t"/pkgs/*.rpm; do [ -e "$p" ] || continue; unpack "$p" "$t/root" || unpack_failed "${p##*/}"; done',
    ];
  return [
    ...common,
    ...fetch,
    ...(post ? [post] : []),
    'printf \'%s\\n\' $need >"$t/root/.gpu-desk-packages"',
    `rm -rf -- "$V/${dir}" && mv "$t/root" "$V/${dir}" || { say "could not move the packages into $V/${dir}: nothing was installed"; exit 1; }`,
    `echo "unpacked into $V/${dir}"`,
  ].join('\n');
}

/** env.sh: what a shell needs to run the install (sourced with GPU_DESK_UI set to the versioned directory). */
export function envScript(triplet: string): string {
  const libs = (root: string) => [`${root}/usr/lib/${triplet}`, `${root}/usr/lib64`, `${root}/usr/lib`, `${root}/lib/${triplet}`, `${root}/lib64`].join(':');
  return [
    '# Written by gpu-desk (user install). Sourced with GPU_DESK_UI set to this directory.',
    'U="${GPU_DESK_UI:?}"',
    // Sourced more than once in a desktop (the session's start, then vglrun's wrapper, a nested shell):
    // each list gets the install's entries once.
    'case ":$PATH:" in *":$U/bin:"*) ;; *) PATH="$U/bin:$U/TurboVNC/bin:$U/VirtualGL/bin:$PATH:$U/deps/usr/bin:$U/wm/usr/bin" ;; esac',
    // The loader searches LD_LIBRARY_PATH first; deps/ and wm/ hold only what the system lacked, so
    // nothing the system has is shadowed.
    `case ":\${LD_LIBRARY_PATH:-}:" in *":$U/VirtualGL/lib:"*) ;; *) LD_LIBRARY_PATH="$U/VirtualGL/lib:${libs('$U/deps')}:${libs('$U/wm')}\${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;; esac`,
    'case ":${XDG_CONFIG_DIRS:-}:" in *":$U/wm/etc/xdg:"*) ;; *) XDG_CONFIG_DIRS="${XDG_CONFIG_DIRS:-/etc/xdg}:$U/wm/etc/xdg" ;; esac',
    'case ":${XDG_DATA_DIRS:-}:" in *":$U/deps/usr/share:"*) ;; *) XDG_DATA_DIRS="${XDG_DATA_DIRS:-/usr/local/share:/usr/share}:$U/wm/usr/share:$U/deps/usr/share" ;; esac',
    'GPU_DESK_XKBDIR=; [ -d "$U/deps/usr/share/X11/xkb" ] && GPU_DESK_XKBDIR="$U/deps/usr/share/X11/xkb"',
    'GPU_DESK_XKBCOMPDIR=; [ -x "$U/deps/usr/bin/xkbcomp" ] && GPU_DESK_XKBCOMPDIR="$U/deps/usr/bin"',
    'export PATH LD_LIBRARY_PATH XDG_CONFIG_DIRS XDG_DATA_DIRS GPU_DESK_UI GPU_DESK_XKBDIR GPU_DESK_XKBCOMPDIR',
    '',
  ].join('\n');
}

/** bin/vglrun: the install's VirtualGL from any shell, by its full path or on PATH. */
export const VGLRUN_WRAPPER = [
  '#!/bin/sh',
  '# Written by gpu-desk (user install): VirtualGL with its faker libraries found, nothing set by hand.',
  'GPU_DESK_UI=$(cd -P "$(dirname "$0")/.." && pwd) || exit 1',
  '. "$GPU_DESK_UI/env.sh"',
  'exec "$GPU_DESK_UI/VirtualGL/bin/vglrun" "$@"',
  '',
].join('\n');

/** Writes file "$2" with content "$1" atomically (temp file beside it, then rename). */
const WRITE_FN = 'put() { printf \'%s\' "$1" >"$2.tmp.$$" && chmod "$3" "$2.tmp.$$" && mv -f "$2.tmp.$$" "$2"; }';

/**
 * The plan that installs into the account's home with no root at all. `report` is the probe's;
 * every step's check says whether it is done, so a second --plan says every step is done.
 */
export function buildUserInstallPlan(report: ServerReport, opts: UserInstallOptions = {}): SetupPlan & { userInstall: UserInstallSummary } {
  const distro = report.os.distro;
  if (!distro) {
    throw new GpuDeskError('UNSUPPORTED_OS', `gpu-desk has no set-up recipe for ${report.os.prettyName || 'this operating system'}`, 'Use Ubuntu 20.04/22.04/24.04, Debian 12 or RHEL/Rocky 8/9');
  }
  const family: 'deb' | 'rpm' = distro.startsWith('rhel-') ? 'rpm' : 'deb';
  const a = archNames(report.arch);
  const [tPkg, vPkg] = userInstallPackages(report, opts);
  const name = userInstallName(tPkg.version, vPkg.version);
  const allowUnverified = opts.allowUnverified ?? false;
  const mirror = opts.packagesFrom ? checkMirrorUrl(opts.packagesFrom, allowUnverified) : undefined;
  const deps = userDependencyPackages(distro);
  const V = `"$HOME/${USER_INSTALL_DIR}/"${shellQuote(name)}`;
  const hasWm = report.windowManagers.length > 0;
  const wantWm = !hasWm && opts.windowManager !== 'none' && deps.wm !== null;
  const steps: PlanStep[] = [];
  const notes: string[] = [];
  const noteTexts: TextKey[] = [];
  const prefix = `~/${USER_INSTALL_DIR}/${name}`;
  const tool = family === 'deb' ? 'dpkg-deb -x' : 'rpm2cpio | cpio';
  const verify = (p: UpstreamPackage) => ({ source: verificationSource(p, mirror), allowUnverified });

  steps.push({
    id: 'user-turbovnc',
    title: `Unpack TurboVNC ${tPkg.version} into your home`,
    why: `The VNC server is the virtual desktop you see. Its release package is unpacked (${tool}) into ${prefix}, as you, without root. ${verificationText(tPkg, mirror, allowUnverified)}`,
    check: `[ -x ${V}/TurboVNC/bin/Xvnc ] && [ -x ${V}/TurboVNC/bin/vncserver ]`,
    apply: `${prelude(name, 'turbovnc', NEED_MB.turbovnc)}\n${upstreamStep(tPkg, family, name, 'TurboVNC', mirror, allowUnverified)}`,
    needsRoot: false,
    text: text('userTurbovnc', { version: tPkg.version, prefix, tool }, verify(tPkg)),
  });
  steps.push({
    id: 'user-virtualgl',
    title: `Unpack VirtualGL ${vPkg.version} into your home`,
    why: `VirtualGL runs each program's OpenGL on the server's GPU through its EGL back end, which needs no 3D X server and no administrator, only access to the GPU's device files. Its release package is unpacked into ${prefix}, as you. ${verificationText(vPkg, mirror, allowUnverified)}`,
    check: `[ -x ${V}/VirtualGL/bin/vglrun ] && [ -x ${V}/VirtualGL/bin/eglinfo ] && [ -e ${V}/VirtualGL/lib/libvglfaker.so ]`,
    apply: `${prelude(name, 'virtualgl', NEED_MB.virtualgl)}\n${upstreamStep(vPkg, family, name, 'VirtualGL', mirror, allowUnverified)}`,
    needsRoot: false,
    text: text('userVirtualgl', { version: vPkg.version, prefix }, verify(vPkg)),
  });
  const depList = [...deps.turbovnc, ...deps.virtualgl];
  steps.push({
    id: 'user-deps',
    title: 'Fetch the libraries TurboVNC and VirtualGL need (as you, from the distribution)',
    why: `TurboVNC's X server needs X libraries, the XKB keyboard data and xkbcomp; VirtualGL needs libturbojpeg and GLU. Those the server lacks (of ${depList.join(', ')} and what they depend on) are downloaded as you with ${family === 'deb' ? 'apt-get download, from the server\'s own package sources, checked against the distribution\'s signed package lists' : 'dnf download, from the server\'s own repositories, checked against their metadata'}, and unpacked into ${prefix}/deps. Nothing is installed system-wide.`,
    check: `[ -f ${V}/deps/.gpu-desk-packages ]`,
    apply: `${prelude(name, 'deps', NEED_MB.deps)}\n${distPackagesStep(family, depList, 'deps')}`,
    needsRoot: false,
    text: text(family === 'deb' ? 'userDepsDeb' : 'userDepsRpm', { packages: depList.join(', '), prefix }),
  });
  if (wantWm) {
    steps.push({
      id: 'user-window-manager',
      title: 'Fetch a window manager (Openbox) and a terminal (xterm) into your home',
      why: `The server has no window manager: without one the desktop's windows have no title bars and cannot be moved or resized. Openbox and xterm, with the libraries they need, come from the distribution's packages as you, into ${prefix}/wm.`,
      check: `[ -f ${V}/wm/.gpu-desk-packages ] && { [ -x ${V}/wm/usr/bin/openbox ] || command -v openbox >/dev/null 2>&1; }`,
      apply: `${prelude(name, 'wm', NEED_MB.wm)}\n${distPackagesStep(family, deps.wm!, 'wm',
        // The session scripts run /usr/bin/openbox and /usr/lib/…/openbox-autostart by absolute path: sessions start openbox itself.
        'rm -f -- "$t"/root/usr/bin/openbox-session "$t"/root/usr/bin/openbox-gnome-session "$t"/root/usr/bin/openbox-kde-session')}`,
      needsRoot: false,
      text: text('userWm', { prefix }),
    });
  } else if (!hasWm) {
    const why = deps.wm === null ? 'Openbox comes from EPEL, which only an administrator can enable' : 'you chose none';
    notes.push(`The server has no window manager and ${why}: the desktop is bare (programs open where they ask to, and their windows cannot be moved or resized).`);
    noteTexts.push({ key: deps.wm === null ? 'userNoWmEpel' : 'userNoWmChosen', params: {} });
  }
  const env = envScript(a.triplet);
  steps.push({
    id: 'user-env',
    title: 'Make the install the one your desktops use (vglrun wrapper, environment, current link)',
    why: `Writes ${prefix}/env.sh and ${prefix}/bin/vglrun, which finds VirtualGL's libraries by itself (run it by its full path from any shell, or as vglrun inside the desktops gpu-desk starts, where that bin is on PATH), then points ${BASE_SHOWN}/current at this version, last, in one rename. An administrator's install in /opt, where there is one, is still preferred.`,
    check: [
      `[ "$(readlink "$HOME/${USER_INSTALL_DIR}/current")" = ${shellQuote(name)} ]`,
      `printf '%s' ${shellQuote(env)} | cmp -s - ${V}/env.sh`,
      `printf '%s' ${shellQuote(VGLRUN_WRAPPER)} | cmp -s - ${V}/bin/vglrun`,
      `[ -x ${V}/bin/vglrun ]`,
    ].join(' && '),
    apply: [
      `B="$HOME/${USER_INSTALL_DIR}"; V=${V}`,
      `for p in TurboVNC/bin/Xvnc VirtualGL/bin/vglrun deps/.gpu-desk-packages; do [ -e "$V/$p" ] || { echo "gpu-desk: $V/$p is missing: run the earlier steps first" >&2; exit 1; }; done`,
      WRITE_FN,
      'mkdir -p "$V/bin" || exit 1',
      `put ${shellQuote(env)} "$V/env.sh" 644 || { echo "gpu-desk: cannot write $V/env.sh (disk or quota full?); free space, then run the plan again" >&2; exit 1; }`,
      `put ${shellQuote(VGLRUN_WRAPPER)} "$V/bin/vglrun" 755 || { echo "gpu-desk: cannot write $V/bin/vglrun (disk or quota full?); free space, then run the plan again" >&2; exit 1; }`,
      // The link is replaced in one rename: a session starting meanwhile sees the old install or the new one.
      `ln -sfn ${shellQuote(name)} "$B/.current.$$" && mv -fT "$B/.current.$$" "$B/current" || { rm -f "$B/.current.$$"; echo "gpu-desk: cannot switch $B/current" >&2; exit 1; }`,
      // What the desk carried is not left lying about once installed.
      `rm -rf -- "$B/${CARRIED_MIRROR_DIR}"`,
      'echo "desktops started by gpu-desk now use $V"',
    ].join('\n'),
    needsRoot: false,
    text: text('userEnv', { prefix, base: BASE_SHOWN }),
  });

  notes.push(`Installs into your home (${prefix}); no administrator needed. About ${diskMB(wantWm)} MB of disk space.`);
  noteTexts.push({ key: 'userInstall', params: { prefix, mb: String(diskMB(wantWm)) } });
  notes.push('OpenGL and EGL themselves come with the GPU driver the administrator installed; VirtualGL renders through them.');
  noteTexts.push({ key: 'userGlDriver', params: {} });
  return {
    distro,
    backend: 'egl',
    steps,
    notes,
    noteTexts,
    userInstall: { prefix, diskMB: diskMB(wantWm), windowManager: wantWm ? 'openbox' : hasWm ? 'existing' : 'none' },
  };
}

function diskMB(wm: boolean): number {
  return DISK_MB.turbovnc + DISK_MB.virtualgl + DISK_MB.deps + (wm ? DISK_MB.wm : 0);
}

/** One step that removes the user install (the whole base directory) and nothing else. */
export function buildUserUninstallPlan(report: ServerReport): SetupPlan {
  const distro = report.os.distro;
  if (!distro) throw new GpuDeskError('UNSUPPORTED_OS', `gpu-desk has no set-up recipe for ${report.os.prettyName || 'this operating system'}`, 'Remove ~/.local/share/gpu-desk by hand');
  return {
    distro,
    backend: 'none',
    steps: [{
      id: 'user-uninstall',
      title: 'Remove the install in your home',
      why: `Removes ${BASE_SHOWN} (TurboVNC, VirtualGL and the libraries fetched for them) and nothing else. Stop the desktops started from it first.`,
      check: `[ ! -e "$HOME/${USER_INSTALL_DIR}" ]`,
      // The link first: a session starting meanwhile finds no install rather than half of one.
      apply: `B="$HOME/${USER_INSTALL_DIR}"\nrm -f -- "$B/current" && rm -rf -- "$B"`,
      needsRoot: false,
      text: text('userUninstall', { base: BASE_SHOWN }),
    }],
    notes: [],
    noteTexts: [],
  };
}
