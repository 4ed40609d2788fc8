/**
 * The set-up plan's steps and notes, by the keys core sends with each (core's PLAN_*_KEYS). Core keeps
 * the same text in English for the CLI; a test holds both to the same keys.
 */
export default {
  steps: {
    userTurbovnc: {
      title: 'Unpack TurboVNC {{version}} into your home',
      why: 'The VNC server is the virtual desktop you see. Its release package is unpacked ({{tool}}) into {{prefix}}, as you, without root.',
    },
    userVirtualgl: {
      title: 'Unpack VirtualGL {{version}} into your home',
      why: 'VirtualGL runs each program’s OpenGL on the server’s GPU through its EGL back end, which needs no 3D X server and no administrator, only access to the GPU’s device files. Its release package is unpacked into {{prefix}}, as you.',
    },
    userDepsDeb: {
      title: 'Fetch the libraries TurboVNC and VirtualGL need (as you, from the distribution)',
      why: 'TurboVNC’s X server needs X libraries, the XKB keyboard data and xkbcomp; VirtualGL needs libturbojpeg and GLU. Those the server lacks (of {{packages}} and what they depend on) are downloaded as you with apt-get download, from the server’s own package sources, checked against the distribution’s signed package lists, and unpacked into {{prefix}}/deps. Nothing is installed system-wide.',
    },
    userDepsRpm: {
      title: 'Fetch the libraries TurboVNC and VirtualGL need (as you, from the distribution)',
      why: 'TurboVNC’s X server needs X libraries, the XKB keyboard data and xkbcomp; VirtualGL needs libturbojpeg and GLU. Those the server lacks (of {{packages}} and what they depend on) are downloaded as you with dnf download, from the server’s own repositories, checked against their metadata, and unpacked into {{prefix}}/deps. Nothing is installed system-wide.',
    },
    userWm: {
      title: 'Fetch a window manager (Openbox) and a terminal (xterm) into your home',
      why: 'The server has no window manager: without one the desktop’s windows have no title bars and cannot be moved or resized. Openbox and xterm, with the libraries they need, come from the distribution’s packages as you, into {{prefix}}/wm.',
    },
    userEnv: {
      title: 'Make the install the one your desktops use (vglrun wrapper, environment, current link)',
      why: 'Writes {{prefix}}/env.sh and {{prefix}}/bin/vglrun, which finds VirtualGL’s libraries by itself (run it by its full path from any shell, or as vglrun inside the desktops gpu-desk starts, where that bin is on PATH), then points {{base}}/current at this version, last, in one rename. An administrator’s install in /opt, where there is one, is still preferred.',
    },
    userUninstall: {
      title: 'Remove the install in your home',
      why: 'Removes {{base}} (TurboVNC, VirtualGL and the libraries fetched for them) and nothing else. Stop the desktops started from it first.',
    },
    glLibraries: {
      title: 'Install the OpenGL libraries',
      why: '3D programs and their build tools need the GL, GLU, GLUT and GLEW libraries; glxinfo comes with them for checking the renderer.',
    },
    windowManagerXfce: {
      title: 'Install a light desktop (Xfce)',
      why: 'Without a window manager the VNC desktop has no title bars, no moving or resizing of windows, and no menu to start programs.',
    },
    windowManagerOpenbox: {
      title: 'Install a minimal window manager (Openbox)',
      why: 'Without a window manager the VNC desktop has no title bars, no moving or resizing of windows, and no menu to start programs.',
    },
    virtualgl: {
      title: 'Install VirtualGL {{version}}',
      why: 'VirtualGL runs each program’s OpenGL on the server GPU and hands finished frames to the VNC desktop, instead of shipping GL commands to your laptop to render on its CPU.',
    },
    virtualglEgl: {
      title: 'Configure VirtualGL for the EGL back end (no 3D X server)',
      why: 'The NVIDIA driver {{driver}} exposes its GPU as an EGL device, so VirtualGL can render with no X server on :0, no nvidia-xconfig and no display-manager restart. This opens the GPU device to the vglusers group and adds {{user}} to it.',
    },
    glxOldDriver: {
      title: 'Configure a headless 3D X server on the GPU (GLX back end)',
      why: 'The EGL back end is not available here (driver {{driver}} is older than 450), so VirtualGL needs an X server on :0 that runs on the GPU with no monitor attached. The display manager is restarted once.',
    },
    glxNoCard: {
      title: 'Configure a headless 3D X server on the GPU (GLX back end)',
      why: 'The EGL back end is not available here (no /dev/dri/card device), so VirtualGL needs an X server on :0 that runs on the GPU with no monitor attached. The display manager is restarted once.',
    },
    vncServer: {
      title: 'Install TurboVNC {{version}} (or the distribution’s TigerVNC if it cannot be fetched)',
      why: 'The VNC server is the virtual desktop you see. TurboVNC is tuned for 3D frames and supports one-time passwords; TigerVNC is the fallback from the distribution when TurboVNC cannot be downloaded (not when its download fails the check).',
    },
    vncLocalhost: {
      title: 'Keep VNC sessions on localhost',
      why: 'A VNC port open to the network invites password guessing. These settings make every session, even one started by hand, accept only connections from the server itself — gpu-desk reaches it through SSH. TurboVNC also refuses unauthenticated and Unix-password logins.',
    },
    ffmpegDeb: {
      title: 'Install ffmpeg for video mode',
      why: 'Video mode sends the desktop as an H.264 stream, several times smaller than VNC’s JPEG tiles at the same quality, so it stays smooth on a slow link. ffmpeg encodes it on the server, with the GPU’s encoder where there is one and libx264 on the CPU otherwise.',
    },
    ffmpegRhel: {
      title: 'Install ffmpeg for video mode',
      why: 'Video mode sends the desktop as an H.264 stream, several times smaller than VNC’s JPEG tiles at the same quality, so it stays smooth on a slow link. ffmpeg encodes it on the server, with the GPU’s encoder where there is one and libx264 on the CPU otherwise. RHEL and EPEL have no ffmpeg with libx264, so this adds the RPM Fusion (free) repository, which needs EPEL; dnf checks its packages against RPM Fusion’s signing key.',
    },
    vulkanMesa: {
      title: 'Install Vulkan (the loader, vulkaninfo and Mesa’s Vulkan drivers)',
      why: 'Simulators such as Isaac Sim, SAPIEN and Genesis draw with Vulkan, which VirtualGL does not carry: the GPU driver’s own Vulkan renders on the GPU and shows in the VNC desktop, once the loader finds its driver file (ICD). Without an NVIDIA driver this installs Mesa’s Vulkan drivers: AMD and Intel GPUs, and lavapipe, which draws on the CPU. vulkaninfo checks the result.',
    },
    vulkanNvidiaUbuntu: {
      title: 'Install Vulkan and the NVIDIA driver’s Vulkan library',
      why: 'Simulators such as Isaac Sim, SAPIEN and Genesis draw with Vulkan, which VirtualGL does not carry: the GPU driver’s own Vulkan renders on the GPU and shows in the VNC desktop, once the loader finds its driver file (ICD). This installs the libnvidia-gl package of the installed driver’s own branch (driver {{driver}}), which holds its Vulkan driver; it does not change the driver, and stops if the driver did not come from a package. vulkaninfo checks that the GPU is listed.',
    },
    vulkanNvidiaDebian: {
      title: 'Install Vulkan and the NVIDIA driver’s Vulkan library',
      why: 'Simulators such as Isaac Sim, SAPIEN and Genesis draw with Vulkan, which VirtualGL does not carry: the GPU driver’s own Vulkan renders on the GPU and shows in the VNC desktop, once the loader finds its driver file (ICD). This installs Debian’s nvidia-vulkan-icd for the installed driver ({{driver}}); it does not change the driver, and stops if the driver did not come from Debian’s packages. vulkaninfo checks that the GPU is listed.',
    },
    vulkanNvidiaRhel: {
      title: 'Install Vulkan and the NVIDIA driver’s Vulkan library',
      why: 'Simulators such as Isaac Sim, SAPIEN and Genesis draw with Vulkan, which VirtualGL does not carry: the GPU driver’s own Vulkan renders on the GPU and shows in the VNC desktop, once the loader finds its driver file (ICD). This installs nvidia-driver-libs from the repository the driver came from, the same version as the driver ({{driver}}); it does not change the driver, and stops if the driver did not come from NVIDIA’s packages. vulkaninfo checks that the GPU is listed.',
    },
    xclip: {
      title: 'Install xclip for image copy and paste',
      why: 'The viewer copies images (plots, screenshots) between this computer and the desktop through the X clipboard, with xclip; text copy and paste works without it. xsel, if installed, carries text only.',
    },
  },
  verify: {
    mirror: 'The download is checked against the SHA-256 listed for {{asset}} in {{mirror}}/SHA256SUMS before anything is installed; a mismatch stops the step and deletes the file.',
    mirrorHttp: '{{asset}} and its SHA256SUMS come over plain http from {{mirror}}: the SHA-256 check catches a damaged file but proves nothing against someone on the network between the server and the mirror, so the package counts as unverified.',
    pinned: 'The download is checked against the SHA-256 gpu-desk pins for {{asset}} before anything is installed; a mismatch stops the step and deletes the file.',
    github: 'The download is checked against the SHA-256 digest GitHub’s release API reports for {{asset}} before anything is installed; a mismatch stops the step and deletes the file.',
  },
  unverified: {
    allowed: 'Where there is nothing to check against, it is installed UNVERIFIED (you allowed that for this plan).',
    stops: 'Where there is nothing to check against, the step stops.',
  },
  notes: {
    userInstall: 'Installs into your home ({{prefix}}); no administrator needed. About {{mb}} MB of disk space.',
    userNoWmEpel: 'The server has no window manager and Openbox comes from EPEL, which only an administrator can enable: the desktop is bare (programs open where they ask to, and their windows cannot be moved or resized).',
    userNoWmChosen: 'The server has no window manager and you chose none: the desktop is bare (programs open where they ask to, and their windows cannot be moved or resized).',
    userGlDriver: 'OpenGL and EGL themselves come with the GPU driver the administrator installed; VirtualGL renders through them.',
    noGpu: 'No GPU with a working driver was found: VirtualGL is installed and renders with Mesa’s software EGL device (on the CPU) until a GPU driver is installed. Install the driver, reboot, then probe again to configure the GPU.',
    noBusId: 'nvidia-smi did not report a PCI bus ID, so nvidia-xconfig will pick the GPU itself.',
    joinVglusers: '{{user}} joins the vglusers group: log in again afterwards (gpu-desk reconnects) so new desktops can use the GPU.',
  },
} as const;
