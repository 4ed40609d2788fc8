import { GpuDeskError } from '../errors';
import { driverMajor, toXorgBusId } from './parsers';
import { checkMirrorUrl, FETCH_FAILED, fetchVerifiedScript, verificationSource, verificationText, type UpstreamPackage } from './packageFetch';
import { ensureLinesScript, linesPresentCheck } from './remoteFile';
import { shellCommand, shellQuote } from './shellQuote';
import { buildUserInstallPlan, USER_PLAN_NOTE_KEYS, USER_PLAN_STEP_KEYS } from './userInstall';
import type { DistroKey, PlanStep, RenderBackend, ServerReport, SetupPlan } from './types';
import type { TextKey } from '../../shared/models';

/**
 * The reference procedure (docs/README.md §2–3) as a list of reviewable steps. Pure: a report in, a
 * plan out. Each step's `check` decides whether `apply` is needed, so a configured server runs nothing.
 */

export interface PlanOptions {
  /** Desktop to install when the server has none. Xfce is light and complete; openbox is minimal; none: a bare desktop. */
  windowManager?: 'xfce' | 'openbox' | 'none';
  /** Virtual screen of the headless 3D X server (GLX back end only). */
  virtualScreen?: string;
  virtualglVersion?: string;
  turbovncVersion?: string;
  /** Install prefix of VirtualGL/TurboVNC (default /opt); tests point it at shims. */
  optRoot?: string;
  /**
   * A site's mirror of the VirtualGL/TurboVNC packages (http(s) URL of a directory holding them under
   * upstream's file names, with a SHA256SUMS file), instead of GitHub's release downloads.
   */
  packagesFrom?: string;
  /** The reviewer accepts installing a package that has nothing to be checked against. */
  allowUnverified?: boolean;
  /**
   * Install into the account's home with no root (userInstall.ts). The CLI and the app decide it with
   * wantsUserInstall: asked for, or the account has no sudo; this function only follows it.
   */
  userInstall?: boolean;
}

/**
 * The keys a plan's steps and notes carry for the app's `plan` namespace (the CLI prints the English
 * `title`/`why`/`notes`); a test holds both catalogues to these lists.
 */
export const PLAN_STEP_KEYS = [...USER_PLAN_STEP_KEYS, 'glLibraries', 'windowManagerXfce', 'windowManagerOpenbox', 'virtualgl', 'virtualglEgl', 'glxOldDriver', 'glxNoCard', 'vncServer', 'vncLocalhost', 'ffmpegDeb', 'ffmpegRhel', 'vulkanMesa', 'vulkanNvidiaUbuntu', 'vulkanNvidiaDebian', 'vulkanNvidiaRhel', 'xclip'] as const;
export const PLAN_NOTE_KEYS = [...USER_PLAN_NOTE_KEYS, 'noGpu', 'noBusId', 'joinVglusers'] as const;
export const PLAN_VERIFY_KEYS = ['mirror', 'mirrorHttp', 'pinned', 'github'] as const;
type StepKey = (typeof PLAN_STEP_KEYS)[number];
type NoteKey = (typeof PLAN_NOTE_KEYS)[number];
const stepText = (key: StepKey, params: Record<string, string> = {}, verify?: { source: TextKey; allowUnverified: boolean }): NonNullable<PlanStep['text']> =>
  ({ key, params, ...(verify ? { verify } : {}) });

export const DEFAULT_VIRTUALGL_VERSION = '3.1.4';
export const DEFAULT_TURBOVNC_VERSION = '3.3';

interface Recipe {
  family: 'deb' | 'rpm';
  glPackages: string[];
  wm: { xfce: string[]; openbox: string[] };
  tigervnc: string[];
  /** Repositories the GL/desktop packages come from (EPEL, CRB/PowerTools on RHEL). */
  prepare?: string;
  /** TigerVNC's system-wide mandatory settings (where `localhost` is forced). */
  tigerConfig: { path: string; line: string; beforeLine?: string };
  /** Display manager installed for the GLX recipe when the server has none. */
  displayManager: string[];
}

const DEB_GL = ['build-essential', 'libgl1-mesa-dev', 'libglu1-mesa-dev', 'freeglut3-dev', 'libglew-dev', 'libxmu-dev', 'mesa-utils'];
const DEB_WM = { xfce: ['xfce4', 'xfce4-terminal', 'dbus-x11'], openbox: ['openbox', 'xterm'] };
const PERL_TIGER = { path: '/etc/tigervnc/vncserver-config-mandatory', line: '$localhost = "yes";', beforeLine: '1;' };
const EPEL = (major: 8 | 9) =>
  [
    `rpm -q epel-release >/dev/null 2>&1 || dnf install -y epel-release || dnf install -y https://dl.fedoraproject.org/pub/epel/epel-release-latest-${major}.noarch.rpm`,
    major === 9
      ? 'crb enable 2>/dev/null || dnf config-manager --set-enabled crb'
      : 'dnf config-manager --set-enabled powertools 2>/dev/null || subscription-manager repos --enable "codeready-builder-for-rhel-8-$(uname -m)-rpms"',
  ].join('\n');
const RPM_GL = ['gcc', 'gcc-c++', 'make', 'mesa-libGL-devel', 'mesa-libGLU-devel', 'freeglut-devel', 'glew-devel', 'libXmu-devel', 'glx-utils'];
const RPM_WM = { xfce: ['xfce4-session', 'xfwm4', 'xfce4-panel', 'xfdesktop', 'xfce4-terminal', 'dbus-x11'], openbox: ['openbox', 'xterm'] };
const RPM_TIGER = { path: '/etc/tigervnc/vncserver-config-mandatory', line: 'localhost' };

const RECIPES: Record<DistroKey, Recipe> = {
  // libgl1-mesa-glx still exists on 20.04/22.04 (the reference guide installs it); it is gone on 24.04.
  'ubuntu-20.04': { family: 'deb', glPackages: [...DEB_GL, 'libgl1-mesa-glx'], wm: DEB_WM, tigervnc: ['tigervnc-standalone-server'],
    // TigerVNC 1.10's wrapper reads Perl settings from /etc/vnc.conf.
    tigerConfig: { path: '/etc/vnc.conf', line: '$localhost = "yes";', beforeLine: '1;' }, displayManager: ['lightdm'] },
  'ubuntu-22.04': { family: 'deb', glPackages: [...DEB_GL, 'libgl1-mesa-glx'], wm: DEB_WM, tigervnc: ['tigervnc-standalone-server', 'tigervnc-tools'], tigerConfig: PERL_TIGER, displayManager: ['lightdm'] },
  'ubuntu-24.04': { family: 'deb', glPackages: DEB_GL.map((p) => (p === 'freeglut3-dev' ? 'libglut-dev' : p)), wm: DEB_WM, tigervnc: ['tigervnc-standalone-server', 'tigervnc-tools'], tigerConfig: PERL_TIGER, displayManager: ['lightdm'] },
  'debian-12': { family: 'deb', glPackages: DEB_GL, wm: DEB_WM, tigervnc: ['tigervnc-standalone-server', 'tigervnc-tools'], tigerConfig: PERL_TIGER, displayManager: ['lightdm'] },
  'rhel-8': { family: 'rpm', glPackages: RPM_GL, wm: RPM_WM, tigervnc: ['tigervnc-server'], prepare: EPEL(8), tigerConfig: RPM_TIGER, displayManager: ['lightdm'] },
  'rhel-9': { family: 'rpm', glPackages: RPM_GL, wm: RPM_WM, tigervnc: ['tigervnc-server'], prepare: EPEL(9), tigerConfig: RPM_TIGER, displayManager: ['lightdm'] },
};

// An earlier run cut off mid-install (the connection dropped, the step was killed) may still hold
// dpkg's lock or have left packages unpacked but not configured: wait for the lock, then finish
// what dpkg started before installing anything new. Order matters: dpkg cut off leaves its journal
// "interrupted", and apt refuses every command until `dpkg --configure -a` has replayed it; a package
// cut off in the middle of its unpack is left half-installed, which `dpkg --configure -a` cannot
// configure ("reinstall it before attempting configuration"): such packages are reinstalled once apt
// works again, and dpkg then configures what is left.
const APT_LOCK_WAIT = '-o DPkg::Lock::Timeout=900';
const aptGet = (args: string[]) => `apt-get ${APT_LOCK_WAIT} ${shellCommand(args)}`;
const DEB_REPAIR = [
  'dpkg --configure -a || true',
  `half=$(dpkg-query -W -f='\${db:Status-Abbrev} \${binary:Package}\\n' 2>/dev/null | awk '$1 ~ /^.H/ || $1 ~ /^..R/ {print $2}')`,
  `[ -z "$half" ] || ${aptGet(['install', '-y', '-q', '--reinstall'])} $half || true`,
  '[ -z "$half" ] || dpkg --configure -a || true',
].join('\n');
const DEB_PRELUDE = ['export DEBIAN_FRONTEND=noninteractive', DEB_REPAIR].join('\n');

/**
 * apt-get install; if it failed with packages left not fully installed (`dpkg --audit` names them: a
 * package the repair above could not mend on its first pass), the repair once more and the same
 * install again, as a person does after "Sub-process /usr/bin/dpkg returned an error code". Nothing is
 * removed (no `apt-get -f`); any other failure keeps its own exit status and output.
 */
function aptInstall(args: string[], rawWords = ''): string {
  const install = withWords(aptGet(['install', ...args]), rawWords);
  return `${install} || { rc=$?; if [ -n "$(dpkg --audit 2>/dev/null)" ]; then echo "gpu-desk: dpkg left packages half-installed; repairing once and installing again"; ${DEB_REPAIR.split('\n').join('; ')}; ${install}; else (exit $rc); fi; }`;
}

/** Installs `pkgs`, and `rawWords`: shell words the step computed on the server (e.g. "$gl"), already quoted. */
function installCmd(r: Recipe, pkgs: string[], rawWords = ''): string {
  return r.family === 'deb'
    ? `${DEB_PRELUDE}\n${aptGet(['update', '-q'])}\n${aptInstall(['-y', '-q', '--no-install-recommends', ...pkgs], rawWords)}`
    : withWords(shellCommand(['dnf', 'install', '-y', ...pkgs]), rawWords);
}

/** A command with shell words the step computed on the server appended (none: the command as it is). */
function withWords(command: string, rawWords: string): string {
  return rawWords ? `${command} ${rawWords}` : command;
}

function installedCheck(r: Recipe, pkgs: string[]): string {
  return r.family === 'deb'
    ? `for p in ${pkgs.map(shellQuote).join(' ')}; do dpkg-query -W -f='\${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || exit 1; done`
    : `rpm -q ${pkgs.map(shellQuote).join(' ')} >/dev/null 2>&1`;
}

function debArch(arch: string): string {
  return arch === 'aarch64' ? 'arm64' : 'amd64';
}

function rpmArch(arch: string): string {
  return arch === 'aarch64' ? 'aarch64' : 'x86_64';
}

/** Install a downloaded, checked package file with the dependencies it names. */
function installLocal(r: Recipe, file: string): string {
  return r.family === 'deb' ? `${DEB_PRELUDE}\napt-get ${APT_LOCK_WAIT} install -y -q ${file}` : `dnf install -y ${file}`;
}

export const TURBOVNC_SECURITY_CONF = '/etc/turbovncserver-security.conf';
/** No unauthenticated (None) or Unix-password (Plain/UnixLogin) types; only VNC passwords and OTPs, plain or in TLS. */
export const TURBOVNC_SECURITY_LINES = [
  'no-remote-connections',
  'no-reverse-connections',
  'permitted-security-types = VNC, OTP, TLSVnc, TLSOtp, X509Vnc, X509Otp',
];

export function chooseBackend(report: ServerReport): RenderBackend {
  // VirtualGL ≥ 3.0 already lists a GPU it can render on (NVIDIA, AMD or Intel): EGL needs no X server.
  if (report.virtualgl.eglUsable && report.virtualgl.eglDevices.some((d) => d.kind === 'gpu')) return 'egl';
  if (!report.nvidia.driverLoaded || report.gpus.length === 0) return 'none';
  const eglDriver = (driverMajor(report.nvidia.driverVersion) ?? 0) >= 450 && report.dri.some((d) => d.kind === 'card');
  return eglDriver ? 'egl' : 'glx';
}

export function buildSetupPlan(report: ServerReport, opts: PlanOptions = {}): SetupPlan {
  const distro = report.os.distro;
  if (!distro) {
    throw new GpuDeskError(
      'UNSUPPORTED_OS',
      `gpu-desk has no set-up recipe for ${report.os.prettyName || 'this operating system'}`,
      'Use Ubuntu 20.04/22.04/24.04, Debian 12 or RHEL/Rocky 8/9, or follow the VirtualGL and TurboVNC guides by hand',
    );
  }
  if (opts.userInstall) {
    return buildUserInstallPlan(report, {
      virtualglVersion: opts.virtualglVersion,
      turbovncVersion: opts.turbovncVersion,
      packagesFrom: opts.packagesFrom,
      allowUnverified: opts.allowUnverified,
      windowManager: opts.windowManager === 'xfce' ? undefined : opts.windowManager,
    });
  }
  const r = RECIPES[distro];
  const opt = opts.optRoot ?? '/opt';
  const vgl = `${opt}/VirtualGL/bin`;
  const tvnc = `${opt}/TurboVNC/bin`;
  const user = report.user;
  const backend = chooseBackend(report);
  const allowUnverified = opts.allowUnverified ?? false;
  const mirror = opts.packagesFrom ? checkMirrorUrl(opts.packagesFrom, allowUnverified) : undefined;
  const steps: PlanStep[] = [];
  const notes: string[] = [];
  const noteTexts: TextKey[] = [];
  const note = (key: NoteKey, text: string, params: Record<string, string> = {}) => {
    notes.push(text);
    noteTexts.push({ key, params });
  };
  const prep = (s: string) => (r.prepare ? `${r.prepare}\n${s}` : s);

  steps.push({
    id: 'gl-libraries',
    title: 'Install the OpenGL libraries',
    why: '3D programs and their build tools need the GL, GLU, GLUT and GLEW libraries; glxinfo comes with them for checking the renderer.',
    check: installedCheck(r, r.glPackages),
    apply: prep(installCmd(r, r.glPackages)),
    needsRoot: true,
    text: stepText('glLibraries'),
  });

  const wmKind = opts.windowManager ?? 'xfce';
  const wmCommand = wmKind === 'xfce' ? 'xfce4-session' : 'openbox-session';
  if (report.windowManagers.length === 0 && wmKind !== 'none') {
    steps.push({
      id: 'window-manager',
      title: wmKind === 'xfce' ? 'Install a light desktop (Xfce)' : 'Install a minimal window manager (Openbox)',
      why: 'Without a window manager the VNC desktop has no title bars, no moving or resizing of windows, and no menu to start programs.',
      check: `command -v ${wmCommand} >/dev/null 2>&1`,
      apply: prep(installCmd(r, r.wm[wmKind])),
      needsRoot: true,
      text: stepText(wmKind === 'xfce' ? 'windowManagerXfce' : 'windowManagerOpenbox'),
    });
  }

  {
    const vv = opts.virtualglVersion ?? DEFAULT_VIRTUALGL_VERSION;
    const pkg: UpstreamPackage = {
      label: 'VirtualGL',
      repo: 'VirtualGL/virtualgl',
      version: vv,
      asset: r.family === 'deb' ? `virtualgl_${vv}_${debArch(report.arch)}.deb` : `VirtualGL-${vv}.${rpmArch(report.arch)}.rpm`,
    };
    const install = `${fetchVerifiedScript(pkg, mirror, allowUnverified)}\nfetch_verified || exit $?\n${installLocal(r, '"$f"')}`;
    steps.push({
      id: 'virtualgl',
      title: `Install VirtualGL ${vv}`,
      why: `VirtualGL runs each program's OpenGL on the server GPU and hands finished frames to the VNC desktop, instead of shipping GL commands to your laptop to render on its CPU. ${verificationText(pkg, mirror, allowUnverified)}`,
      // eglinfo ships with VirtualGL ≥ 3.0, the first release with the EGL back end.
      check: `[ -x ${shellQuote(`${vgl}/vglrun`)} ] && [ -x ${shellQuote(`${vgl}/eglinfo`)} ]`,
      apply: install,
      needsRoot: true,
      text: stepText('virtualgl', { version: vv }, { source: verificationSource(pkg, mirror), allowUnverified }),
    });
    const inGroup = `id -nG ${shellQuote(user)} | tr ' ' '\\n' | grep -qx vglusers`;
    if (backend === 'none') {
      // VirtualGL is still worth having: its EGL back end renders on Mesa's software device (on the
      // server's CPU, next to the desktop, instead of shipping GL to the laptop), and a GPU driver
      // installed later is picked up by the same install.
      note('noGpu', 'No GPU with a working driver was found: VirtualGL is installed and renders with Mesa\'s software EGL device (on the CPU) until a GPU driver is installed. Install the driver, reboot, then probe again to configure the GPU.');
    } else if (backend === 'egl') {
      steps.push({
        id: 'virtualgl-egl',
        title: 'Configure VirtualGL for the EGL back end (no 3D X server)',
        why: `The NVIDIA driver ${report.nvidia.driverVersion} exposes its GPU as an EGL device, so VirtualGL can render with no X server on :0, no nvidia-xconfig and no display-manager restart. This opens the GPU device to the vglusers group and adds ${user} to it.`,
        check: `${inGroup} && for c in /dev/dri/card*; do [ "$(stat -c %G "$c" 2>/dev/null)" = vglusers ] && exit 0; done; exit 1`,
        apply: `${shellCommand([`${vgl}/vglserver_config`, '-config', '+egl'])}\n${shellCommand(['usermod', '-aG', 'vglusers', user])}`,
        needsRoot: true,
        text: stepText('virtualglEgl', { driver: report.nvidia.driverVersion ?? '', user }),
      });
    } else {
      const gpu = report.gpus[0];
      const busId = gpu?.pciBusId ? toXorgBusId(gpu.pciBusId) : null;
      const screen = opts.virtualScreen ?? '1920x1080';
      if (!/^\d{3,5}x\d{3,5}$/.test(screen)) {
        throw new GpuDeskError('BAD_ARGUMENT', `"${screen}" is not a screen size`, 'Give the virtual screen as WIDTHxHEIGHT, e.g. 1920x1080');
      }
      const hasCard = report.dri.some((d) => d.kind === 'card');
      const xconfig = ['nvidia-xconfig', '-a', '--allow-empty-initial-configuration', '--use-display-device=None', `--virtual=${screen}`];
      if (busId) xconfig.push('--busid', busId);
      steps.push({
        id: 'glx-xserver',
        title: 'Configure a headless 3D X server on the GPU (GLX back end)',
        why: `The EGL back end is not available here (${hasCard ? `driver ${report.nvidia.driverVersion} is older than 450` : 'no /dev/dri/card device'}), so VirtualGL needs an X server on :0 that runs on the GPU with no monitor attached. The display manager is restarted once.`,
        check: `[ -e /etc/opt/VirtualGL/vgl_xauth_key ] && grep -qs 'UseDisplayDevice.*None' /etc/X11/xorg.conf && ${inGroup}`,
        apply: [
          `systemctl cat display-manager.service >/dev/null 2>&1 || { ${prep(installCmd(r, r.displayManager)).split('\n').join('; ')}; }`,
          shellCommand(xconfig),
          'systemctl stop display-manager.service || true',
          shellCommand([`${vgl}/vglserver_config`, '-config', '-s', '-f', '-t']),
          shellCommand(['usermod', '-aG', 'vglusers', user]),
          'systemctl start display-manager.service',
        ].join('\n'),
        needsRoot: true,
        text: stepText(hasCard ? 'glxOldDriver' : 'glxNoCard', { driver: report.nvidia.driverVersion ?? '' }),
      });
      if (!busId) note('noBusId', 'nvidia-smi did not report a PCI bus ID, so nvidia-xconfig will pick the GPU itself.');
    }
  }

  if (backend !== 'none' && !report.groups.includes('vglusers')) {
    note('joinVglusers', `${user} joins the vglusers group: log in again afterwards (gpu-desk reconnects) so new desktops can use the GPU.`, { user });
  }

  const tv = opts.turbovncVersion ?? DEFAULT_TURBOVNC_VERSION;
  const tPkg: UpstreamPackage = {
    label: 'TurboVNC',
    repo: 'TurboVNC/turbovnc',
    version: tv,
    asset: r.family === 'deb' ? `turbovnc_${tv}_${debArch(report.arch)}.deb` : `turbovnc-${tv}.${rpmArch(report.arch)}.rpm`,
  };
  const tigerFallback = installCmd(r, r.tigervnc);
  steps.push({
    id: 'vnc-server',
    title: `Install TurboVNC ${tv} (or the distribution's TigerVNC if it cannot be fetched)`,
    why: `The VNC server is the virtual desktop you see. TurboVNC is tuned for 3D frames and supports one-time passwords; TigerVNC is the fallback from the distribution when TurboVNC cannot be downloaded (not when its download fails the check). ${verificationText(tPkg, mirror, allowUnverified)}`,
    check: `[ -x ${shellQuote(`${tvnc}/vncserver`)} ] || command -v Xtigervnc >/dev/null 2>&1 || { command -v Xvnc >/dev/null 2>&1 && Xvnc -version 2>&1 | grep -q TigerVNC; }`,
    apply: [
      fetchVerifiedScript(tPkg, mirror, allowUnverified),
      'fetch_verified; rc=$?',
      `if [ $rc = 0 ]; then\n${installLocal(r, '"$f"')}\nelif [ $rc = ${FETCH_FAILED} ]; then\n  echo "TurboVNC's package could not be fetched; installing the distribution's TigerVNC instead"\n${tigerFallback}\nelse\n  exit $rc\nfi`,
    ].join('\n'),
    needsRoot: true,
    text: stepText('vncServer', { version: tv }, { source: verificationSource(tPkg, mirror), allowUnverified }),
  });

  const tc = r.tigerConfig;
  const turboConf = ensureLinesScript(TURBOVNC_SECURITY_CONF, TURBOVNC_SECURITY_LINES);
  const tigerConf = ensureLinesScript(tc.path, [tc.line], { beforeLine: tc.beforeLine });
  const hasTurbo = `[ -x ${shellQuote(`${tvnc}/vncserver`)} ]`;
  const hasTiger = `{ command -v Xtigervnc >/dev/null 2>&1 || { command -v Xvnc >/dev/null 2>&1 && Xvnc -version 2>&1 | grep -q TigerVNC; }; }`;
  steps.push({
    id: 'vnc-localhost',
    title: 'Keep VNC sessions on localhost',
    why: 'A VNC port open to the network invites password guessing. These settings make every session, even one started by hand, accept only connections from the server itself — gpu-desk reaches it through SSH. TurboVNC also refuses unauthenticated and Unix-password logins.',
    check: `{ ! ${hasTurbo} || ${linesPresentCheck(TURBOVNC_SECURITY_CONF, TURBOVNC_SECURITY_LINES)}; } && { ! ${hasTiger} || ${linesPresentCheck(tc.path, [tc.line])}; }`,
    apply: `if ${hasTurbo}; then\n${turboConf}\nfi\nif ${hasTiger}; then\n${tigerConf}\nfi`,
    needsRoot: true,
    text: stepText('vncLocalhost'),
  });

  steps.push(ffmpegStep(r, distro, prep));
  steps.push(vulkanStep(report, r, distro, prep));

  // Image copy and paste in the viewer (RFB's clipboard is text only), where the probe found no xclip
  // (as the window-manager step: a report from before the clip section asks for nothing). RHEL's xclip is in EPEL, which prep adds.
  if (report.clipboardTools && !report.clipboardTools.xclip) steps.push({
    id: 'xclip',
    title: 'Install xclip for image copy and paste',
    why: 'The viewer copies images (plots, screenshots) between this computer and the desktop through the X clipboard, with xclip; text copy and paste works without it. xsel, if installed, carries text only.',
    check: 'command -v xclip >/dev/null 2>&1',
    apply: prep(installCmd(r, ['xclip'])),
    needsRoot: true,
    text: stepText('xclip'),
  });

  return { distro, backend, steps, notes, noteTexts };
}

/** One test frame through an H.264 encoder: the probe's test encode, as a check. */
const ENCODE_ONE_FRAME = 'ffmpeg -hide_banner -nostdin -loglevel error "$@" -frames:v 1 -f null - </dev/null >/dev/null 2>&1';
const TEST_INPUT = '-f lavfi -i color=black:size=256x256:rate=1';

/**
 * Video mode's encoder. Done when ffmpeg encodes a frame with libx264 or a better encoder (NVENC, or
 * VA-API on the first render node). Debian and Ubuntu ship ffmpeg with libx264; RHEL and EPEL have no
 * ffmpeg with it, so RHEL takes RPM Fusion's (free) repository, which builds on EPEL.
 */
function ffmpegStep(r: Recipe, distro: DistroKey, prep: (s: string) => string): PlanStep {
  const check = [
    'command -v ffmpeg >/dev/null 2>&1 || exit 1',
    `one() { ${ENCODE_ONE_FRAME}; }`,
    `one ${TEST_INPUT} -c:v libx264 && exit 0`,
    `one ${TEST_INPUT} -c:v h264_nvenc && exit 0`,
    `for d in /dev/dri/renderD*; do [ -e "$d" ] && one -vaapi_device "$d" ${TEST_INPUT} -vf format=nv12,hwupload -c:v h264_vaapi && exit 0; break; done`,
    'exit 1',
  ].join('\n');
  const title = 'Install ffmpeg for video mode';
  if (r.family === 'deb') {
    return {
      id: 'ffmpeg',
      title,
      why: 'Video mode sends the desktop as an H.264 stream, several times smaller than VNC\'s JPEG tiles at the same quality, so it stays smooth on a slow link. ffmpeg encodes it on the server, with the GPU\'s encoder where there is one and libx264 on the CPU otherwise.',
      check,
      apply: installCmd(r, ['ffmpeg']),
      needsRoot: true,
      text: stepText('ffmpegDeb'),
    };
  }
  const major = distro === 'rhel-8' ? '8' : '9';
  const rpmFusion = `rpm -q rpmfusion-free-release >/dev/null 2>&1 || dnf install -y https://mirrors.rpmfusion.org/free/el/rpmfusion-free-release-${major}.noarch.rpm`;
  return {
    id: 'ffmpeg',
    title,
    why: 'Video mode sends the desktop as an H.264 stream, several times smaller than VNC\'s JPEG tiles at the same quality, so it stays smooth on a slow link. ffmpeg encodes it on the server, with the GPU\'s encoder where there is one and libx264 on the CPU otherwise. RHEL and EPEL have no ffmpeg with libx264, so this adds the RPM Fusion (free) repository, which needs EPEL; dnf checks its packages against RPM Fusion\'s signing key.',
    check,
    apply: prep(`${rpmFusion}\n${installCmd(r, ['ffmpeg'])}`),
    needsRoot: true,
    text: stepText('ffmpegRhel'),
  };
}

/** `vulkaninfo --summary` under a time-out (a broken driver can hang it), quiet. */
const VULKANINFO_SUMMARY = '{ if command -v timeout >/dev/null 2>&1; then timeout 20 vulkaninfo --summary; else vulkaninfo --summary; fi; } </dev/null 2>/dev/null';

/**
 * Vulkan for simulators that draw with it (Isaac Sim, SAPIEN, Genesis): the loader, vulkaninfo, and
 * the driver (ICD) for the server's GPU. With an NVIDIA driver that is the driver's own GL/Vulkan
 * library package of the installed driver's branch — never a different driver: where the driver did
 * not come from a package (NVIDIA's .run installer) the step stops and says so. Without one it is
 * Mesa's Vulkan drivers (AMD and Intel GPUs, lavapipe on the CPU). Done when vulkaninfo lists a
 * device (an NVIDIA one where the NVIDIA driver runs).
 */
function vulkanStep(report: ServerReport, r: Recipe, distro: DistroKey, prep: (s: string) => string): PlanStep {
  const nvidia = report.nvidia.driverLoaded;
  const title = nvidia ? "Install Vulkan and the NVIDIA driver's Vulkan library" : "Install Vulkan (the loader, vulkaninfo and Mesa's Vulkan drivers)";
  const check = [
    'command -v vulkaninfo >/dev/null 2>&1 || exit 1',
    `out=$(${VULKANINFO_SUMMARY}) || exit 1`,
    nvidia ? 'printf \'%s\\n\' "$out" | grep -Eq \'vendorID += 0x10de|driverName += NVIDIA\'' : 'printf \'%s\\n\' "$out" | grep -q \'deviceType \'',
  ].join('\n');
  const base = r.family === 'deb' ? ['libvulkan1', 'vulkan-tools'] : ['vulkan-loader', 'vulkan-tools'];
  const mesa = 'mesa-vulkan-drivers';
  const stop = (what: string) => `echo ${shellQuote(`gpu-desk: ${what}; install the GL/Vulkan libraries of the running driver by hand (NVIDIA's .run installer without --no-opengl-files) — this step does not replace a driver`)} >&2; exit 1`;
  let apply: string;
  let key: StepKey;
  const driver = report.nvidia.driverVersion ?? '';
  if (!nvidia) {
    apply = prep(installCmd(r, [...base, mesa]));
    key = 'vulkanMesa';
  } else if (distro.startsWith('ubuntu-')) {
    // The installed driver's own branch, from its compute library (there with nvidia-driver-535 and with
    // the headless nvidia-headless-535-server alike, which leaves the GL/Vulkan libraries out): libnvidia-gl of the same branch.
    apply = [
      "drv=$(dpkg-query -W -f='${Package} ${Status}\\n' 'libnvidia-compute-[0-9]*' 2>/dev/null | awk '/ install ok installed$/ { print $1; exit }')",
      `[ -n "$drv" ] || { ${stop('the NVIDIA driver was not installed from Ubuntu\'s packages (no libnvidia-compute-* package)')}; }`,
      'gl="libnvidia-gl-${drv#libnvidia-compute-}"',
      installCmd(r, base, '"$gl"'),
    ].join('\n');
    key = 'vulkanNvidiaUbuntu';
  } else if (r.family === 'deb') {
    apply = [
      // The full driver or the headless one (nvidia-kernel-dkms with libcuda1): Debian's packages either way.
      "dpkg-query -W -f='${Status}\\n' nvidia-driver nvidia-kernel-dkms libcuda1 2>/dev/null | grep -q 'install ok installed' || {",
      `  ${stop("the NVIDIA driver was not installed from Debian's packages")}`,
      '}',
      installCmd(r, [...base, 'nvidia-vulkan-icd']),
    ].join('\n');
    key = 'vulkanNvidiaDebian';
  } else {
    apply = [
      `rpm -qa 'nvidia-driver*' | grep -q . || { ${stop("the NVIDIA driver was not installed from NVIDIA's nvidia-driver packages")}; }`,
      prep(installCmd(r, [...base, 'nvidia-driver-libs'])),
    ].join('\n');
    key = 'vulkanNvidiaRhel';
  }
  const whyStart = 'Simulators such as Isaac Sim, SAPIEN and Genesis draw with Vulkan, which VirtualGL does not carry: the GPU driver\'s own Vulkan renders on the GPU and shows in the VNC desktop, once the loader finds its driver file (ICD).';
  const why = ({
    vulkanMesa: `${whyStart} Without an NVIDIA driver this installs Mesa's Vulkan drivers: AMD and Intel GPUs, and lavapipe, which draws on the CPU. vulkaninfo checks the result.`,
    vulkanNvidiaUbuntu: `${whyStart} This installs the libnvidia-gl package of the installed driver's own branch (driver ${driver}), which holds its Vulkan driver; it does not change the driver, and stops if the driver did not come from a package. vulkaninfo checks that the GPU is listed.`,
    vulkanNvidiaDebian: `${whyStart} This installs Debian's nvidia-vulkan-icd for the installed driver (${driver}); it does not change the driver, and stops if the driver did not come from Debian's packages. vulkaninfo checks that the GPU is listed.`,
    vulkanNvidiaRhel: `${whyStart} This installs nvidia-driver-libs from the repository the driver came from, the same version as the driver (${driver}); it does not change the driver, and stops if the driver did not come from NVIDIA's packages. vulkaninfo checks that the GPU is listed.`,
  } as Record<string, string>)[key];
  return { id: 'vulkan', title, why, check, apply, needsRoot: true, text: stepText(key, { driver }) };
}

/** The plan as text a person can review: every command and why, before anything runs. */
export function formatPlan(plan: SetupPlan, status?: Record<string, 'done' | 'pending'>): string {
  const out: string[] = plan.userInstall
    ? [`Set-up plan for ${plan.distro}: installs into your home (${plan.userInstall.prefix}); no administrator needed; about ${plan.userInstall.diskMB} MB of disk space`, '']
    : [`Set-up plan for ${plan.distro} (render back end: ${plan.backend === 'none' ? 'none — no GPU driver' : plan.backend.toUpperCase()})`, ''];
  plan.steps.forEach((s, i) => {
    const st = status?.[s.id];
    out.push(`${i + 1}. ${s.title}${s.needsRoot ? ' [root]' : ' [as you]'}${st === 'done' ? ' — already done, will be skipped' : ''}`);
    out.push(`   Why: ${s.why}`);
    out.push('   Check:');
    for (const l of s.check.split('\n')) out.push(`     ${l}`);
    out.push('   Commands:');
    for (const l of s.apply.split('\n')) out.push(`     ${l}`);
    out.push('');
  });
  for (const n of plan.notes) out.push(`Note: ${n}`);
  return out.join('\n').trimEnd() + '\n';
}
