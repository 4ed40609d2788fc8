import { driverMajor } from './parsers';
import type { Finding, ServerReport } from './types';

type ReportFacts = Omit<ServerReport, 'findings'>;

/** The catalogue key of driverFix's text (the app translates findings by these keys). */
function driverFixKey(r: ReportFacts): string {
  switch (r.os.distro) {
    case 'ubuntu-20.04':
    case 'ubuntu-22.04':
    case 'ubuntu-24.04':
      return 'driverUbuntu';
    case 'debian-12':
      return 'driverDebian';
    case 'rhel-8':
    case 'rhel-9':
      return 'driverRhel';
    default:
      return 'driverOther';
  }
}

function driverFix(r: ReportFacts): string {
  switch (r.os.distro) {
    case 'ubuntu-20.04':
    case 'ubuntu-22.04':
    case 'ubuntu-24.04':
      return 'Install the driver with `sudo ubuntu-drivers install` (or `sudo apt install nvidia-driver-535-server`), reboot, then probe again';
    case 'debian-12':
      return 'Enable the non-free-firmware/contrib/non-free components, run `sudo apt install nvidia-driver`, reboot, then probe again';
    case 'rhel-8':
    case 'rhel-9':
      return "Add NVIDIA's CUDA repository and run `sudo dnf module install nvidia-driver:latest-dkms`, reboot, then probe again";
    default:
      return "Install NVIDIA's driver for this distribution, reboot, then probe again";
  }
}

/** Plain-language diagnosis from the facts: what is wrong, what it means, what to do. */
export function computeFindings(r: ReportFacts): Finding[] {
  const out: Finding[] = [];
  const gpuReady = r.nvidia.driverLoaded && r.gpus.length > 0;
  // An AMD or Intel GPU that VirtualGL can render on through Mesa needs no NVIDIA driver.
  const otherGpu = r.virtualgl.eglDevices.some((d) => d.kind === 'gpu' && d.gpuVendor !== 'nvidia');

  if (!r.nvidia.driverLoaded && !otherGpu) {
    out.push({
      severity: 'error',
      code: 'NO_NVIDIA_DRIVER',
      message: r.nvidia.smiInstalled && r.nvidia.smiError
        ? `No NVIDIA driver is running: nvidia-smi says "${r.nvidia.smiError}". 3D programs cannot use a GPU on this server.`
        : 'No NVIDIA driver is running on this server, so 3D programs cannot use a GPU here.',
      fix: driverFix(r),
      text: {
        message: r.nvidia.smiInstalled && r.nvidia.smiError ? 'noDriverSmi' : 'noDriver',
        fix: driverFixKey(r),
        params: { smiError: r.nvidia.smiError ?? '' },
      },
    });
  } else if (r.nvidia.smiError) {
    out.push({
      severity: 'warning',
      code: 'NVIDIA_SMI_FAILED',
      message: `The NVIDIA driver is loaded but nvidia-smi failed: "${r.nvidia.smiError}". GPU details are missing from this report.`,
      fix: 'A driver/library version mismatch usually means the driver was upgraded without a reboot: reboot the server',
      text: { message: 'smiFailed', fix: 'reboot', params: { smiError: r.nvidia.smiError } },
    });
  }

  if (!r.virtualgl.installed) {
    out.push({
      severity: gpuReady ? 'error' : 'warning',
      code: 'VIRTUALGL_MISSING',
      message:
        'VirtualGL is not installed: 3D programs will render on the CPU — the slow X11-forwarding experience (a few frames per second while the GPU idles).',
      fix: 'Run the set-up plan (`gpu-desk setup <server> --plan`): it installs VirtualGL from its official packages',
      planStep: 'virtualgl',
      text: { message: 'virtualglMissing', fix: 'planVirtualgl', params: {} },
    });
  } else if (!r.virtualgl.hasEglBackend) {
    out.push({
      severity: 'info',
      code: 'VIRTUALGL_OLD',
      message: `VirtualGL ${r.virtualgl.version ?? ''} is older than 3.0, so it has no EGL back end and needs a 3D X server on :0.`.replace('  ', ' '),
      fix: 'Upgrade VirtualGL to 3.x (the set-up plan does this) to render without a 3D X server',
      planStep: 'virtualgl',
      text: { message: 'virtualglOld', fix: 'upgradeVirtualgl', params: { version: r.virtualgl.version ?? '' } },
    });
  }

  // EGL is possible when the driver is new enough and exposes a DRI card; otherwise only GLX via a 3D X server.
  const eglPossible = otherGpu || (gpuReady && (driverMajor(r.nvidia.driverVersion) ?? 0) >= 450 && r.dri.some((d) => d.kind === 'card'));
  const onlyGlx = gpuReady && (!eglPossible || (r.virtualgl.installed && !r.virtualgl.hasEglBackend));
  if (onlyGlx && !r.xserver.accessible) {
    out.push({
      severity: 'error',
      code: 'NO_3D_X_SERVER',
      message: r.xserver.running
        ? `Only VirtualGL's GLX back end is possible here, and the X server on :0 cannot be used for 3D (${r.xserver.error ?? 'access denied'}).`
        : 'Only VirtualGL\'s GLX back end is possible here (no EGL device), and there is no 3D X server on :0 for it to render with.',
      fix: 'Run the set-up plan: it configures a headless X server on the GPU (nvidia-xconfig --use-display-device=None) and vglserver_config',
      planStep: 'glx-xserver',
      text: { message: r.xserver.running ? 'no3dXUnusable' : 'no3dX', fix: 'planGlx', params: { error: r.xserver.error ?? 'access denied' } },
    });
  }

  if (r.xserver.accessible && r.xserver.softwareRenderer) {
    out.push({
      severity: 'warning',
      code: 'GLX_RENDERER_SOFTWARE',
      message: `The X server on :0 renders OpenGL with ${r.xserver.renderer} — software on the CPU, not the GPU.`,
      fix: gpuReady
        ? 'Point Xorg at the NVIDIA GPU: `sudo nvidia-xconfig -a --allow-empty-initial-configuration --use-display-device=None --busid <BusID>`, then restart the display manager'
        : 'Install the NVIDIA driver first; Xorg falls back to llvmpipe without it',
      planStep: gpuReady ? 'glx-xserver' : undefined,
      text: { message: 'glxSoftware', fix: gpuReady ? 'pointXorg' : 'driverFirst', params: { renderer: r.xserver.renderer ?? '' } },
    });
  }

  if (r.virtualgl.installed && r.virtualgl.hasEglBackend && eglPossible && !r.virtualgl.eglUsable) {
    out.push({
      severity: 'warning',
      code: 'EGL_DEVICE_NOT_ACCESSIBLE',
      message: `VirtualGL's EGL back end cannot be used by ${r.user}: ${r.virtualgl.eglReason}.`,
      fix: `Run \`sudo /opt/VirtualGL/bin/vglserver_config -config +egl\` and \`sudo usermod -aG vglusers ${r.user}\`, then log in again`,
      planStep: 'virtualgl-egl',
      text: { message: 'eglNotAccessible', fix: 'vglEgl', params: { user: r.user, reason: r.virtualgl.eglReason } },
    });
  }

  const egl = r.virtualgl.eglDevices.find((d) => d.id === r.virtualgl.eglDevice);
  if (r.virtualgl.eglUsable && egl?.kind === 'software') {
    const cards = r.dri.filter((d) => d.kind === 'card');
    const whyKey = !r.nvidia.driverLoaded && cards.length === 0 ? 'eglSoftwareNoDriver' : cards.length > 0 && !cards.some((c) => c.accessible) ? 'eglSoftwareCannotOpen' : 'eglSoftwareNoDevice';
    const why = !r.nvidia.driverLoaded && cards.length === 0
      ? 'no GPU driver is loaded, so Mesa offers only its software rasteriser'
      : cards.length > 0 && !cards.some((c) => c.accessible)
        ? `${r.user} cannot open ${cards[0].path}, so the GPU's EGL device is not offered to this account`
        : 'no GPU offers an EGL device to this account';
    out.push({
      severity: 'warning',
      code: 'EGL_SOFTWARE_RENDERER',
      message: `VirtualGL's EGL device ${egl.id} is ${egl.renderer ?? 'a software renderer'}, a software renderer: 3D programs in the desktop would render on the CPU, not a GPU, because ${why}. They still work, but slowly.`,
      fix: cards.length > 0 && !cards.some((c) => c.accessible)
        ? `Run \`sudo /opt/VirtualGL/bin/vglserver_config -config +egl\` and \`sudo usermod -aG vglusers ${r.user}\`, then log in again`
        : driverFix(r),
      planStep: cards.length > 0 && !cards.some((c) => c.accessible) ? 'virtualgl-egl' : undefined,
      text: {
        message: whyKey,
        fix: cards.length > 0 && !cards.some((c) => c.accessible) ? 'vglEgl' : driverFixKey(r),
        params: { device: egl.id, renderer: egl.renderer ?? '', user: r.user, path: cards[0]?.path ?? '' },
      },
    });
  }

  for (const s of r.sessions) {
    if (s.localhostOnly === false) {
      const where = s.listenAddresses.filter((a) => !/^127\.|^::1$/.test(a)).join(', ');
      out.push({
        severity: 'error',
        code: 'SESSION_LISTENS_ON_ALL_INTERFACES',
        message: `VNC session :${s.display} accepts connections from the network on port ${s.port ?? '?'} (${where}): anyone who can reach the server can try its password.`,
        fix: `Stop it (\`gpu-desk sessions <server> kill ${s.display}\`) and start a new one with gpu-desk, which always binds to localhost and goes through SSH`,
        text: { message: 'sessionOpen', fix: 'stopSession', params: { display: String(s.display), port: String(s.port ?? '?'), where } },
      });
    }
  }

  for (const p of r.exposedVncPorts) {
    out.push({
      severity: 'warning',
      code: 'SESSION_LISTENS_ON_ALL_INTERFACES',
      message: `Something that is not one of your sessions accepts VNC connections from the network on port ${p.port} (display :${p.display}, ${p.addresses.join(', ')}): another account's session or a system VNC service.`,
      fix: 'Ask its owner or the administrator to restart it with -localhost; the set-up plan makes that the default for every session',
      planStep: 'vnc-localhost',
      text: { message: 'portOpen', fix: 'askOwner', params: { port: String(p.port), display: String(p.display), addresses: p.addresses.join(', ') } },
    });
  }

  if (!r.vnc.flavor) {
    out.push({
      severity: 'error',
      code: 'NO_VNC_SERVER',
      message: 'No VNC server is installed, so there is no virtual desktop to show on your screen.',
      fix: 'Run the set-up plan: it installs TurboVNC from its official packages (or the distribution\'s TigerVNC when those cannot be fetched)',
      planStep: 'vnc-server',
      text: { message: 'noVnc', fix: 'planVnc', params: {} },
    });
  } else if (r.vnc.flavor === 'tigervnc') {
    out.push({
      severity: 'info',
      code: 'TIGERVNC_ONLY',
      message: `TigerVNC ${r.vnc.version ?? ''} is installed; TurboVNC is faster for 3D and supports one-time passwords.`.replace('  ', ' '),
      fix: 'Optional: the set-up plan can install TurboVNC alongside it',
      text: { message: 'tigervncOnly', fix: 'turbovncOptional', params: { version: r.vnc.version ?? '' } },
    });
  }

  if (r.windowManagers.length === 0) {
    out.push({
      severity: 'warning',
      code: 'NO_WINDOW_MANAGER',
      message: 'No window manager or desktop is installed: a VNC session would show windows without title bars you can move, or a bare screen.',
      fix: 'Run the set-up plan: it installs a light desktop (Xfce)',
      planStep: 'window-manager',
      text: { message: 'noWm', fix: 'planWm', params: {} },
    });
  }

  if (!r.os.distro) {
    out.push({
      severity: 'info',
      code: 'UNSUPPORTED_OS',
      message: `gpu-desk has no set-up recipe for ${r.os.prettyName || 'this operating system'}; the diagnosis above still applies.`,
      fix: 'Follow the VirtualGL and TurboVNC documentation by hand, or use Ubuntu 20.04/22.04/24.04, Debian 12 or RHEL/Rocky 8/9',
      text: { message: r.os.prettyName ? 'unsupportedOs' : 'unsupportedOsUnknown', fix: 'byHand', params: { os: r.os.prettyName } },
    });
  }

  out.push(...videoFindings(r));
  out.push(...vulkanFindings(r));

  // Text copy and paste goes through VNC itself; only images need a tool on the server.
  if (r.clipboardTools && !r.clipboardTools.xclip) {
    const fix = r.os.distro ? { key: 'planXclip', text: 'Run the set-up plan, or install the xclip package (EPEL on RHEL), then probe again' } : { key: 'xclipOther', text: "Install the distribution's xclip package, then probe again" };
    out.push({
      severity: 'info',
      code: 'NO_XCLIP',
      message: r.clipboardTools.xsel
        ? 'Image copy and paste needs xclip, which is not installed on this server: xsel is, but it carries text only (text copy and paste works).'
        : 'Image copy and paste needs xclip, which is not installed on this server (text copy and paste works).',
      fix: fix.text,
      planStep: r.os.distro ? 'xclip' : undefined,
      text: { message: r.clipboardTools.xsel ? 'noXclipXsel' : 'noXclip', fix: fix.key, params: {} },
    });
  }

  if (r.sudo === 'absent') {
    out.push({
      severity: 'info',
      code: 'NO_SUDO',
      message: `${r.user} cannot use sudo here: the set-up plan installs TurboVNC and VirtualGL into your home instead, with no administrator needed.`,
      fix: 'Run the set-up plan (`gpu-desk setup <server> --plan`): it installs into your home by itself',
      text: { message: 'noSudoUserInstall', fix: 'planUserInstall', params: { user: r.user } },
    });
  }
  out.push(...userInstallFindings(r));
  return out;
}

/**
 * The install in the home (userInstall.ts), GPU device nodes the account cannot open, and whether the
 * server reaches the hosts a user install downloads from.
 */
function userInstallFindings(r: ReportFacts): Finding[] {
  const out: Finding[] = [];
  const ui = r.userInstall;
  if (ui?.current && (ui.sessionsUse.turbovnc === 'user' || ui.sessionsUse.virtualgl === 'user')) {
    out.push({
      severity: 'info',
      code: 'USER_INSTALL_IN_USE',
      message: `Desktops use gpu-desk's install in your home (${ui.current}); no administrator was needed.`,
      fix: 'Remove the one in your home: `gpu-desk setup <server> --user-install --uninstall --apply`',
      text: { message: 'userInstallInUse', fix: 'userInstallRemove', params: { path: ui.current } },
    });
  }
  if (ui?.current && ui.sessionsUse.turbovnc === 'system' && ui.sessionsUse.virtualgl !== 'user' && ui.systemTurbovnc) {
    out.push({
      severity: 'info',
      code: 'SYSTEM_INSTALL_PREFERRED',
      message: `An administrator has installed TurboVNC for the whole server (${ui.systemTurbovnc}): desktops use that, and the install in your home (${ui.current}) is no longer used.`,
      fix: 'Remove the one in your home: `gpu-desk setup <server> --user-install --uninstall --apply`',
      text: { message: 'systemInstallPreferred', fix: 'userInstallRemove', params: { system: ui.systemTurbovnc, path: ui.current } },
    });
  }
  const byGroup = new Map<string, string[]>();
  for (const d of r.deviceNodes ?? []) if (!d.accessible) byGroup.set(d.group ?? '', [...(byGroup.get(d.group ?? '') ?? []), d.path]);
  for (const [group, paths] of byGroup) {
    const list = paths.join(', ');
    out.push({
      severity: 'warning',
      code: 'GPU_DEVICE_NO_ACCESS',
      message: group
        ? `${r.user} cannot open ${list} (group ${group}), so VirtualGL cannot render on that GPU for this account. Only an administrator can add you to the ${group} group.`
        : `${r.user} cannot open ${list}, so VirtualGL cannot render on that GPU for this account. Only an administrator can change that.`,
      fix: group
        ? `Ask the administrator to run \`sudo usermod -aG ${group} ${r.user}\`, then log in again`
        : `Ask the administrator to give ${r.user} read and write access to ${list}`,
      text: group
        ? { message: 'gpuNodeNoAccessGroup', fix: 'askAdminGroup', params: { user: r.user, paths: list, group } }
        : { message: 'gpuNodeNoAccess', fix: 'askAdminAccess', params: { user: r.user, paths: list } },
    });
  }
  if (r.reach?.upstream === false) {
    out.push({
      severity: 'info',
      code: 'UPSTREAM_UNREACHABLE',
      message: 'The server cannot reach github.com, where TurboVNC and VirtualGL are published: the packages come from this computer instead, over the SSH connection.',
      fix: 'Nothing to do: the set-up plan carries the packages (or give a mirror with --packages-from)',
      text: { message: 'upstreamUnreachable', fix: 'carryPackages', params: {} },
    });
  }
  if (r.reach?.mirror && r.reach.mirrorReachable === false) {
    out.push({
      severity: 'warning',
      code: 'MIRROR_UNREACHABLE',
      message: `The server cannot reach its distribution's package mirror (${r.reach.mirror}): libraries the server lacks cannot be fetched for an install into your home.`,
      fix: 'Ask the administrator for a route or proxy to the mirror, or to install the missing libraries',
      text: { message: 'mirrorUnreachable', fix: 'askAdminMirror', params: { mirror: r.reach.mirror } },
    });
  }
  return out;
}

const isUbuntu = (r: ReportFacts) => r.os.distro?.startsWith('ubuntu-') ?? false;
const isRhel = (r: ReportFacts) => r.os.distro?.startsWith('rhel-') ?? false;

/** Installing ffmpeg, as the set-up plan's ffmpeg step does it on this distribution. */
function ffmpegInstallFix(r: ReportFacts): { key: string; text: string } {
  if (r.os.family === 'deb') return { key: 'ffmpegDeb', text: 'Run the set-up plan, or `sudo apt-get install --no-install-recommends ffmpeg`' };
  if (r.os.family === 'rpm') {
    return {
      key: 'ffmpegRhel',
      text: 'Run the set-up plan, or enable EPEL and RPM Fusion (free), whose ffmpeg has libx264 (RHEL and EPEL have no ffmpeg with it), then `sudo dnf install ffmpeg`',
    };
  }
  return { key: 'ffmpegOther', text: "Install the distribution's ffmpeg package (built with libx264), then probe again" };
}

/** The NVIDIA library NVENC needs, by the package that has it on this distribution. */
function nvidiaLibraryFix(r: ReportFacts, library: 'libnvidia-encode' | 'libcuda'): { key: string; text: string; params: Record<string, string> } {
  const major = driverMajor(r.nvidia.driverVersion);
  let command: string | null = null;
  if (isUbuntu(r) && major !== null) command = `sudo apt install ${library === 'libcuda' ? 'libnvidia-compute' : 'libnvidia-encode'}-${major}`;
  else if (r.os.distro === 'debian-12') command = `sudo apt install ${library === 'libcuda' ? 'libcuda1' : 'libnvidia-encode1'}`;
  else if (isRhel(r)) command = 'sudo dnf install nvidia-driver-cuda-libs';
  if (!command) return { key: 'nvencLibraryOther', text: `Install the NVIDIA driver's ${library} library, the same version as the driver, then probe again`, params: { library } };
  const server = isUbuntu(r) ? ' (with -server after the number for a -server driver)' : '';
  return {
    key: isUbuntu(r) ? 'nvencLibraryUbuntu' : 'nvencLibrary',
    text: `Install the NVIDIA driver's ${library} library, the same version as the driver: \`${command}\`${server}, then probe again`,
    params: { library, command },
  };
}

/**
 * Video mode's findings: what its encoder needs and lacks. Video mode is optional (VNC works without
 * it), so nothing here is an error.
 */
function videoFindings(r: ReportFacts): Finding[] {
  const out: Finding[] = [];
  const v = r.video;
  if (!v.ffmpeg) {
    const fix = ffmpegInstallFix(r);
    out.push({
      severity: 'warning',
      code: 'NO_FFMPEG',
      message: "Video mode needs ffmpeg, which is not installed on this server: desktops are sent only as VNC's JPEG tiles, which need a fast link for moving pictures.",
      fix: fix.text,
      planStep: r.os.distro ? 'ffmpeg' : undefined,
      text: { message: 'noFfmpeg', fix: fix.key, params: {} },
    });
    return out;
  }
  const enc = (name: string) => v.encoders.find((e) => e.name === name);
  const nvenc = enc('h264_nvenc');
  const vaapi = enc('h264_vaapi');
  const x264 = enc('libx264');
  const path = v.ffmpeg.path;

  if (r.nvidia.driverLoaded && nvenc && !nvenc.works) {
    const error = nvenc.error ?? 'unknown error';
    const driver = r.nvidia.driverVersion ?? '?';
    let message: { key: string; text: string };
    let fix: { key: string; text: string; params?: Record<string, string> };
    if (/^Cannot load libnvidia-encode/.test(error)) {
      message = { key: 'nvencNoEncodeLib', text: `The NVIDIA GPU's video encoder (NVENC) cannot be used: ffmpeg cannot load the driver's NVENC library (${error}).` };
      fix = nvidiaLibraryFix(r, 'libnvidia-encode');
    } else if (/^Cannot load libcuda/.test(error)) {
      message = { key: 'nvencNoCuda', text: `The NVIDIA GPU's video encoder (NVENC) cannot be used: ffmpeg cannot load the driver's CUDA library (${error}).` };
      fix = nvidiaLibraryFix(r, 'libcuda');
    } else if (/minimum required Nvidia driver|does not support the required nvenc API/i.test(error)) {
      message = { key: 'nvencOldDriver', text: `The NVIDIA GPU's video encoder (NVENC) cannot be used: NVIDIA driver ${driver} is older than this ffmpeg's NVENC needs (${error}).` };
      fix = { key: 'nvencNewerDriver', text: 'Upgrade the NVIDIA driver to the version ffmpeg names (or use an older ffmpeg), then probe again' };
    } else if (/^Unknown encoder/.test(error)) {
      message = { key: 'nvencNotBuilt', text: `The NVIDIA GPU's video encoder (NVENC) cannot be used: ${path} is built without it (${error}).` };
      fix = { key: 'nvencBuild', text: "Use the distribution's ffmpeg (Debian's, Ubuntu's and RPM Fusion's are built with NVENC), then probe again" };
    } else if (/No capable devices found|unsupported device|No NVENC capable devices/i.test(error)) {
      message = { key: 'nvencNoHardware', text: `This NVIDIA GPU has no video encoder (NVENC) that ffmpeg can use (${error}); data-centre GPUs such as the A100 and H100 have none.` };
      fix = { key: 'nvencNone', text: 'Nothing to install: this GPU cannot encode video, so video mode encodes without it' };
    } else {
      message = { key: 'nvencFailed', text: `The NVIDIA GPU's video encoder (NVENC) failed its test encode: ${error}.` };
      fix = { key: 'nvencTryByHand', text: 'Run `ffmpeg -f lavfi -i color=size=256x256 -frames:v 1 -c:v h264_nvenc -f null -` on the server to see the whole error, then probe again' };
    }
    out.push({
      severity: 'info',
      code: 'NVENC_UNAVAILABLE',
      message: message.text,
      fix: fix.text,
      text: { message: message.key, fix: fix.key, params: { error, driver, path, ...(fix.params ?? {}) } },
    });
  }

  // A render node is NVIDIA's own where nvidia-drm is loaded: VA-API has nothing to encode with there.
  const node = v.renderNode;
  const otherGpu = v.pciGpus.some((g) => g !== 'nvidia') || r.virtualgl.eglDevices.some((d) => d.kind === 'gpu' && d.gpuVendor !== 'nvidia');
  const nvidiaNode = node?.driver === 'nvidia' || (node?.driver === null && r.nvidia.driverLoaded && !otherGpu);
  if (node && vaapi && !vaapi.works && !nvenc?.works && !nvidiaNode) {
    const error = vaapi.error ?? 'unknown error';
    const dri = r.dri.find((d) => d.path === node.path);
    const group = dri?.group && dri.group !== 'root' ? dri.group : 'render';
    const noAccess = dri !== undefined && !dri.accessible;
    const driverFixText = r.os.family === 'deb'
      ? { key: 'vaapiDriverDeb', text: 'Install the GPU\'s VA-API driver: `sudo apt install intel-media-va-driver-non-free` for an Intel GPU, `sudo apt install mesa-va-drivers` for an AMD one, then probe again' }
      : r.os.family === 'rpm'
        ? { key: 'vaapiDriverRhel', text: 'Install the GPU\'s VA-API driver: `sudo dnf install intel-media-driver` (EPEL) for an Intel GPU, `sudo dnf install mesa-va-drivers` for an AMD one, then probe again' }
        : { key: 'vaapiDriverOther', text: "Install the GPU's VA-API driver (Intel's media driver, or Mesa's VA-API drivers for AMD), then probe again" };
    out.push({
      severity: 'info',
      code: 'VAAPI_UNAVAILABLE',
      message: noAccess
        ? `${r.user} cannot open ${node.path}, so the GPU's video encoder (VA-API) cannot be used (${error}).`
        : `The GPU's video encoder (VA-API) on ${node.path}${node.driver ? ` (${node.driver})` : ''} failed its test encode: ${error}.`,
      fix: noAccess ? `Run \`sudo usermod -aG ${group} ${r.user}\`, then log in again` : driverFixText.text,
      text: {
        message: noAccess ? 'vaapiNoAccess' : node.driver ? 'vaapiFailedDriver' : 'vaapiFailed',
        fix: noAccess ? 'renderGroup' : driverFixText.key,
        params: { user: r.user, node: node.path, driver: node.driver ?? '', error, group },
      },
    });
  }

  const expected = v.pciGpus.find((g) => g !== 'nvidia');
  if (!node && expected && !nvenc?.works) {
    const vendor = expected === 'intel' ? 'Intel' : 'AMD';
    out.push({
      severity: 'info',
      code: 'NO_RENDER_NODE',
      message: `The server has an ${vendor} GPU but no /dev/dri/renderD* device, so its video encoder (VA-API) cannot be used: in a container, the device was not passed in; otherwise the GPU's kernel driver is not loaded.`,
      fix: 'In a container, start it with the device passed in (`docker run --device /dev/dri …`); otherwise load the GPU\'s kernel driver (i915 or amdgpu), then probe again',
      text: { message: 'noRenderNode', fix: 'passRenderNode', params: { vendor } },
    });
  }

  if (v.best === 'libx264') {
    out.push({
      severity: 'info',
      code: 'VIDEO_CPU_ONLY',
      message: 'Video is encoded on the CPU (x264): no GPU video encoder (NVENC or VA-API) works here. Video mode works, but the encoder takes CPU time from the programs in the desktop.',
      fix: 'Encoding on a GPU needs an NVIDIA GPU with NVENC, or an Intel or AMD GPU with its /dev/dri/renderD* device and VA-API driver',
      text: { message: 'videoCpuOnly', fix: 'cpuOnly', params: {} },
    });
  } else if (v.best === null) {
    const error = x264?.error ?? 'unknown error';
    const fix = r.os.family === 'deb'
      ? { key: 'x264Deb', text: "Use the distribution's ffmpeg, which is built with libx264 (`sudo apt-get install --no-install-recommends ffmpeg`; put it first on PATH if another ffmpeg is found first), then probe again" }
      : r.os.family === 'rpm'
        ? { key: 'x264Rhel', text: "Use RPM Fusion's ffmpeg, which is built with libx264 (EPEL's ffmpeg-free is not): enable EPEL and RPM Fusion (free), then `sudo dnf install --allowerasing ffmpeg`" }
        : { key: 'x264Other', text: 'Install a build of ffmpeg with libx264 (the distribution\'s ffmpeg package usually is), then probe again' };
    out.push({
      severity: 'warning',
      code: 'NO_VIDEO_ENCODER',
      message: `${path} is installed, but none of its H.264 encoders could encode a test frame (x264: ${error}), so video mode is not available here.`,
      fix: fix.text,
      text: { message: 'noVideoEncoder', fix: fix.key, params: { path, error } },
    });
  }
  return out;
}

/** The Vulkan loader and vulkaninfo, by the packages that have them on this distribution. */
function vulkanToolsFix(r: ReportFacts, what: 'loader' | 'tools'): { key: string; text: string; params: Record<string, string> } {
  const command = r.os.family === 'deb'
    ? `sudo apt-get install ${what === 'loader' ? 'libvulkan1 vulkan-tools' : 'vulkan-tools'}`
    : r.os.family === 'rpm' ? `sudo dnf install ${what === 'loader' ? 'vulkan-loader vulkan-tools' : 'vulkan-tools'}` : null;
  if (!command) return { key: what === 'loader' ? 'vulkanLoaderOther' : 'vulkanToolsOther', text: what === 'loader' ? "Install the distribution's Vulkan loader (libvulkan.so.1) and vulkan-tools, then probe again" : "Install the distribution's vulkan-tools package, then probe again", params: {} };
  return { key: 'vulkanInstall', text: `Run the set-up plan, or \`${command}\`, then probe again`, params: { command } };
}

/**
 * The NVIDIA driver's GL/Vulkan libraries (libGLX_nvidia and its nvidia_icd.json), by the package that
 * has them where the driver came from the distribution's (or NVIDIA's) packages: Ubuntu's
 * libnvidia-gl-<major>[-server], Debian's nvidia-vulkan-icd, NVIDIA's RHEL repository's nvidia-driver-libs.
 */
export function nvidiaVulkanPackage(r: Pick<ReportFacts, 'os' | 'nvidia'>): string | null {
  const major = driverMajor(r.nvidia.driverVersion);
  if (r.os.distro?.startsWith('ubuntu-')) return major === null ? null : `libnvidia-gl-${major}`;
  if (r.os.distro === 'debian-12') return 'nvidia-vulkan-icd';
  if (r.os.distro?.startsWith('rhel-')) return 'nvidia-driver-libs';
  return null;
}

function nvidiaVulkanFix(r: ReportFacts): { key: string; text: string; params: Record<string, string> } {
  const pkg = nvidiaVulkanPackage(r);
  const driver = r.nvidia.driverVersion ?? '?';
  if (!pkg) return { key: 'nvidiaVulkanOther', text: `Install the NVIDIA driver's GL/Vulkan libraries of the same version as the driver (${driver}), then probe again`, params: { driver } };
  const command = r.os.family === 'rpm' ? `sudo dnf install ${pkg}` : `sudo apt-get install ${pkg}`;
  const server = r.os.distro?.startsWith('ubuntu-') ? ' (with -server after the number for a -server driver)' : '';
  return {
    key: r.os.distro?.startsWith('ubuntu-') ? 'nvidiaVulkanUbuntu' : 'nvidiaVulkan',
    text: `Run the set-up plan, or install the driver's GL/Vulkan libraries of the same version as the driver (${driver}): \`${command}\`${server}, then probe again. A driver installed from NVIDIA's \`.run\` file has them already: run it again without \`--no-opengl-files\``,
    params: { command, driver },
  };
}

/**
 * Vulkan: simulators such as Isaac Sim, SAPIEN and Genesis draw with it, and VirtualGL does not carry
 * it: the driver's own Vulkan renders on the GPU and presents into the VNC desktop once its ICD is found.
 */
function vulkanFindings(r: ReportFacts): Finding[] {
  const out: Finding[] = [];
  const v = r.vulkan;
  if (!v.loader) {
    const fix = vulkanToolsFix(r, 'loader');
    out.push({
      severity: 'warning',
      code: 'VULKAN_NO_LOADER',
      message: 'There is no Vulkan loader (libvulkan.so.1) on this server: programs that draw with Vulkan (Isaac Sim, SAPIEN, Genesis and other simulators) cannot start.',
      fix: fix.text,
      planStep: r.os.distro ? 'vulkan' : undefined,
      text: { message: 'vulkanNoLoader', fix: fix.key, params: fix.params },
    });
  }
  for (const icd of v.icds) {
    if (icd.error || icd.library) continue;
    out.push({
      severity: 'warning',
      code: 'VULKAN_ICD_LIBRARY_MISSING',
      message: `The Vulkan driver file ${icd.path} names ${icd.libraryPath}, which does not exist, so the Vulkan loader skips that driver.`,
      fix: `Reinstall the package that owns ${icd.path} (\`dpkg -S\` or \`rpm -qf\` names it), or remove the file if its driver was uninstalled, then probe again`,
      text: { message: 'vulkanIcdLibraryMissing', fix: 'vulkanIcdReinstall', params: { path: icd.path, library: icd.libraryPath ?? '' } },
    });
  }
  const nvidiaIcd = v.icds.find((i) => i.nvidia && i.library);
  const nvidiaDevice = v.devices.some((d) => d.vendorId === '0x10de' || /nvidia/i.test(d.driverName ?? ''));
  if (r.nvidia.driverLoaded && !nvidiaIcd && !nvidiaDevice) {
    const fix = nvidiaVulkanFix(r);
    out.push({
      severity: 'warning',
      code: 'VULKAN_NO_NVIDIA_ICD',
      message: `The NVIDIA driver ${r.nvidia.driverVersion ?? ''} is loaded, but its Vulkan driver is not installed (no nvidia_icd.json whose libGLX_nvidia library exists): Vulkan programs cannot use the GPU${v.devices.length ? ' and draw on the CPU instead' : ''}.`.replace('  ', ' '),
      fix: fix.text,
      planStep: r.os.distro ? 'vulkan' : undefined,
      text: { message: v.devices.length ? 'vulkanNoNvidiaIcdCpu' : 'vulkanNoNvidiaIcd', fix: fix.key, params: { driver: r.nvidia.driverVersion ?? '', ...fix.params } },
    });
  } else if (r.nvidia.driverVersion && nvidiaIcd?.libraryVersion && nvidiaIcd.libraryVersion !== r.nvidia.driverVersion) {
    out.push({
      severity: 'warning',
      code: 'VULKAN_ICD_VERSION_MISMATCH',
      message: `NVIDIA's Vulkan driver (${nvidiaIcd.library}) is version ${nvidiaIcd.libraryVersion}, but the running driver is ${r.nvidia.driverVersion}: Vulkan programs fail to create a device until they match.`,
      fix: 'If the driver was upgraded, reboot the server so the new kernel module runs; otherwise install the GL/Vulkan library package of the running driver\'s version, then probe again',
      text: { message: 'vulkanIcdMismatch', fix: 'vulkanIcdMatch', params: { library: nvidiaIcd.library ?? '', icdVersion: nvidiaIcd.libraryVersion, driver: r.nvidia.driverVersion } },
    });
  }
  if (v.loader && !v.vulkaninfo) {
    const fix = vulkanToolsFix(r, 'tools');
    out.push({
      severity: 'info',
      code: 'VULKANINFO_MISSING',
      message: 'vulkaninfo (package vulkan-tools) is not installed, so this report cannot list the Vulkan devices programs would draw on.',
      fix: fix.text,
      planStep: r.os.distro ? 'vulkan' : undefined,
      text: { message: 'vulkaninfoMissing', fix: fix.key, params: fix.params },
    });
  } else if (v.loader && v.vulkaninfo && v.devices.length === 0) {
    const error = v.error ?? 'no device';
    out.push({
      severity: 'warning',
      code: 'VULKAN_NO_DEVICE',
      message: `vulkaninfo finds no Vulkan device on this server (${error}): Vulkan programs cannot start.`,
      fix: r.nvidia.driverLoaded ? nvidiaVulkanFix(r).text : r.os.family === 'deb' ? 'Run the set-up plan, or `sudo apt-get install mesa-vulkan-drivers` (Mesa\'s Vulkan drivers, with lavapipe on the CPU), then probe again' : 'Run the set-up plan, or `sudo dnf install mesa-vulkan-drivers` (Mesa\'s Vulkan drivers, with lavapipe on the CPU), then probe again',
      planStep: r.os.distro ? 'vulkan' : undefined,
      text: { message: 'vulkanNoDevice', fix: r.nvidia.driverLoaded ? nvidiaVulkanFix(r).key : r.os.family === 'deb' ? 'mesaVulkanDeb' : 'mesaVulkanRhel', params: { error, ...(r.nvidia.driverLoaded ? nvidiaVulkanFix(r).params : {}) } },
    });
  } else if (v.devices.length > 0 && v.devices.every((d) => d.type === 'cpu') && !out.some((f) => f.code === 'VULKAN_NO_NVIDIA_ICD')) {
    const names = v.devices.map((d) => d.name).join(', ');
    const gpu = r.nvidia.driverLoaded || r.gpus.length > 0;
    out.push({
      severity: gpu ? 'warning' : 'info',
      code: 'VULKAN_CPU_ONLY',
      message: `The only Vulkan device is ${names}, a software renderer: Vulkan programs work, but they draw on the CPU, slowly.`,
      fix: gpu ? nvidiaVulkanFix(r).text : 'Nothing to install for this server: drawing with Vulkan on a GPU needs one (an NVIDIA GPU with its driver, or an AMD or Intel GPU with Mesa\'s Vulkan drivers)',
      planStep: gpu && r.os.distro ? 'vulkan' : undefined,
      text: { message: 'vulkanCpuOnly', fix: gpu ? nvidiaVulkanFix(r).key : 'vulkanNeedsGpu', params: { devices: names, ...(gpu ? nvidiaVulkanFix(r).params : {}) } },
    });
  }
  return out;
}
