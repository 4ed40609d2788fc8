/**
 * Words that stay as they are in Chinese text: product and protocol names, units, commands, and
 * what the bed's own data puts on screen. Anything else in Latin letters on a zh-CN screen is English
 * left untranslated.
 */
export const LATIN_TERMS = new Set(
  [
    'gpu-desk', 'GPU', 'GPUs', 'SSH', 'VNC', 'NVIDIA', 'VirtualGL', 'TurboVNC', 'TigerVNC', 'RealVNC', 'Slurm', 'X', 'X11', 'Xorg',
    'EGL', 'GLX', 'OpenGL', 'Mesa', 'llvmpipe', 'Xfce', 'Openbox', 'JPEG', 'Tight', 'ZRLE', 'Hextile', 'Raw', 'H.264', 'zlib', 'Zlib',
    'Jupyter', 'TensorBoard', 'TCP', 'Unix', 'localhost', 'root', 'sudo', 'ssh', 'agent', 'config', 'Host', 'ProxyCommand', 'Ctrl',
    'Alt', 'Del', 'Esc', 'Super', 'Windows', 'Print', 'Screen', 'Tab', 'Shift', 'Backspace', 'MiB', 'KiB', 'GiB', 'MB', 'kB', 'GB',
    'Mb', 'B', 'fps', 'X', 'English', 'SHA256SUMS', 'GitHub', 'pid', 'Debian', 'Ubuntu', 'RHEL', 'Rocky', 'amd64', 'x86_64', 'kernel',
    'nvidia-smi', 'A100', 'PCIe', 'SXM4', 'Linux', 'GNU', 'CPU', 'CUDA', 'DRI', 'HTTP', 'HTTPS', 'SFTP', 'URL', 'bookworm', 'OTP', 'UTC',
    // Key types and the sshd settings a failed key login points to: names a user types as they are.
    'ed25519', 'authorized_keys', 'sshd', 'PubkeyAuthentication', 'AuthorizedKeysFile', 'StrictModes',
    // Slurm's own words for its settings and commands, as a cluster's documentation writes them.
    'QoS', 'gres', 'sbatch', 'sinfo', 'sacctmgr', 'squeue', 'scancel',
    // The set-up plan's libraries, tools, group and digest: what the commands below them name.
    'GL', 'GLU', 'GLUT', 'GLEW', 'glxinfo', 'nvidia-xconfig', 'vglusers', 'SHA-256', 'PCI', 'ID', 'JSON',
    // Video mode's encoder: the program, its encoders, the GPUs' encoders and where the packages come from.
    // The view-only invite: TurboVNC's password tool and the placeholder the colleague replaces with their login;
    // the L of the lossless refresh's shortcut (Ctrl+Alt+Shift+L).
    'vncpasswd', 'LOGIN', 'L',
    'ffmpeg', 'ffmpeg-free', 'x264', 'libx264', 'NVENC', 'VA-API', 'H100', 'Intel', 'AMD', 'i915', 'amdgpu', 'EPEL', 'RPM', 'Fusion', 'PATH',
    // The viewer HUD's GPU panel: the GPUs' decoder and the units nvidia-smi reports in (°C, W).
    'NVDEC', 'C', 'W',
    // Vulkan: its loader, tools, driver files and packages, Mesa's CPU driver, and the simulators that draw with it.
    'Vulkan', 'vulkaninfo', 'vulkan-tools', 'libvulkan.so.1', 'ICD', 'libGLX_nvidia', 'nvidia_icd.json', 'lavapipe', 'libnvidia-gl',
    'nvidia-vulkan-icd', 'nvidia-driver-libs', 'Isaac', 'Sim', 'SAPIEN', 'Genesis',
    // Image copy and paste: the X clipboard tools and the image format they carry.
    'xclip', 'xsel', 'PNG',
    // Run in desktop: the Vulkan demo it is tried with.
    'vkcube',
    // SSH certificates: the tool's name and the file ending ssh-keygen gives a certificate (KEY-cert.pub).
    'OpenSSH', 'pub',
    // A forward the server refuses: the sshd settings that do it, and the other SSH server that has no Unix-socket forwarding.
    'sshd_config', 'AllowTcpForwarding', 'PermitOpen', 'DisableForwarding', 'AllowStreamLocalForwarding', 'Dropbear',
    // The OS keychain: the freedesktop.org Secret Service and the programs that provide it.
    'Secret', 'Service', 'gnome-keyring', 'KWallet', 'Seahorse',
    // The install into the home (issue 42): where the packages come from, the keyboard data, the terminal and VirtualGL's launcher.
    'github.com', 'XKB', 'xterm', 'vglrun',
  ].map((w) => w.toLowerCase()),
);

/** The Latin-letter words in a text that are not known terms (paths, addresses and placeholders removed first). */
export function untranslatedWords(text: string, extra: Iterable<string> = []): string[] {
  const allowed = new Set([...LATIN_TERMS, ...[...extra].map((w) => w.toLowerCase())]);
  const stripped = text
    .replace(/\{\{[^}]*\}\}/g, ' ')
    .replace(/<\/?[a-z]+\s*\/?>/g, ' ')
    .replace(/`[^`]*`/g, ' ')
    // A quoted command line ("gpu-desk keys") is code, the same in every language.
    .replace(/"gpu-desk [^"]*"/g, ' ')
    .replace(/(?:[~\w.-]*\/)+[\w.-]*/g, ' ')
    .replace(/\b[\w.-]+@[\w.-]+(:\d+)?/g, ' ')
    .replace(/\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b/g, ' ');
  return (stripped.match(/(?<![\w-])[A-Za-z][A-Za-z0-9._-]*/g) ?? []).map((w) => w.replace(/[._-]+$/, '')).filter((w) => w && !allowed.has(w.toLowerCase()));
}
