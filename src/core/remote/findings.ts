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

  if (r.sudo === 'absent') {
    out.push({
      severity: 'info',
      code: 'NO_SUDO',
      message: `${r.user} cannot use sudo here, so gpu-desk cannot install anything (sessions still work).`,
      fix: 'Ask the administrator to run the set-up plan, or to grant sudo',
      text: { message: 'noSudo', fix: 'askAdmin', params: { user: r.user } },
    });
  }
  return out;
}
