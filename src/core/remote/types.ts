/**
 * Data shared by the probe, the findings, the set-up plan and VNC sessions. Plain serialisable values
 * (no classes, no functions, no Dates) so the IPC contract can carry them unchanged.
 */

import type { Finding as FindingView, RenderBackend, SetupPlanView, SetupStepResultView, SetupStepView, TextKey, VideoEncoderName } from '../../shared/models';
import type { GpuView, VncFlavor, VncSessionView } from '../../shared/models';

export type DistroKey = 'ubuntu-20.04' | 'ubuntu-22.04' | 'ubuntu-24.04' | 'debian-12' | 'rhel-8' | 'rhel-9';
export type PackageFamily = 'deb' | 'rpm' | 'unknown';

export interface OsInfo {
  /** os-release ID, e.g. "ubuntu", "debian", "rocky". */
  id: string;
  idLike: string[];
  versionId: string;
  prettyName: string;
  family: PackageFamily;
  /** The recipe this release gets, or null when gpu-desk has none for it. */
  distro: DistroKey | null;
}

/** One GPU of the server report: the window's GPU card (GpuView) and where it sits on the PCI bus. */
export interface GpuInfo extends GpuView {
  /** nvidia-smi form, e.g. "00000000:3B:00.0"; null when not reported. */
  pciBusId: string | null;
}

export interface NvidiaInfo {
  smiInstalled: boolean;
  /** Kernel module loaded (/proc/driver/nvidia/version readable). */
  driverLoaded: boolean;
  driverVersion: string | null;
  /** nvidia-smi's own complaint when it ran but failed (first line). */
  smiError: string | null;
}

export interface DriDevice {
  path: string;
  kind: 'card' | 'render';
  group: string | null;
  /** The probing account can open it read-write (EGL back end needs this). */
  accessible: boolean;
  /** Its PCI address as sysfs gives it ("0000:3b:00.0"), or null (a virtual or software device). */
  pciAddress?: string | null;
}

export interface VirtualGLInfo {
  installed: boolean;
  /** Package version when the package manager knows it (e.g. "3.1.1"), else null. */
  version: string | null;
  binDir: string | null;
  /** VirtualGL ≥ 3.0 ships eglinfo; its presence means the EGL back end exists in this build. */
  hasEglBackend: boolean;
  /** The vglusers group exists (vglserver_config has run). */
  vglusersGroup: boolean;
  userInVglusers: boolean;
  /** The EGL devices VirtualGL's own `eglinfo -e` lists for this account (what `vglrun -d` accepts). */
  eglDevices: EglDevice[];
  /** The device sessions render on (VGL_DISPLAY): the first GPU, else the first software device; null when none. */
  eglDevice: string | null;
  /** EGL back end usable right now: the build has it and `eglinfo -e` lists a device this account can open. */
  eglUsable: boolean;
  eglReason: string;
}

export type GpuVendor = 'nvidia' | 'amd' | 'intel';

export interface EglDevice {
  /** "egl0": VirtualGL's device ID. */
  id: string;
  /** "/dev/dri/card1" when the EGL implementation names one. */
  driPath: string | null;
  /** OpenGL vendor and renderer strings of a context on it (null when eglinfo could not make one). */
  vendor: string | null;
  renderer: string | null;
  /** gpu: a real GPU (NVIDIA, AMD or Intel through Mesa or NVIDIA's EGL); software: llvmpipe/softpipe (the CPU). */
  kind: 'gpu' | 'software' | 'unknown';
  gpuVendor: GpuVendor | null;
}

/** What glxinfo says about a display. */
export interface GlxInfo {
  renderer: string | null;
  vendor: string | null;
  glVersion: string | null;
  directRendering: boolean | null;
  /** The renderer is a software rasteriser (llvmpipe, softpipe, swrast). */
  softwareRenderer: boolean;
  /** First error line when glxinfo could not open the display. */
  error: string | null;
}

export interface XServerInfo extends GlxInfo {
  /** Something serves display :0 (/tmp/.X11-unix/X0 exists). */
  running: boolean;
  /** glxinfo could talk to it. */
  accessible: boolean;
}

export type { VncFlavor } from '../../shared/models';

export interface VncInfo {
  /** Preferred flavour present on the server (TurboVNC wins when both are installed). */
  flavor: VncFlavor | null;
  version: string | null;
  /** Absolute path of the vncserver wrapper for `flavor`. */
  vncserverPath: string | null;
  turbovnc: { installed: boolean; version: string | null; binDir: string | null };
  tigervnc: { installed: boolean; version: string | null };
}

/** A desktop as the server lists it: what the app shows of it (VncSessionView) and every address it listens on (the findings judge those). */
export interface VncSessionInfo extends VncSessionView {
  listenAddresses: string[];
}

export type { VideoEncoderName } from '../../shared/models';

export interface VideoEncoderInfo {
  name: VideoEncoderName;
  /** A one-frame test encode on the server succeeded. */
  works: boolean;
  /** Why not: the line of ffmpeg's error output that names the cause (control characters escaped, at most 200 characters); null when it works. */
  error: string | null;
}

/** Video mode's encoder on the server: ffmpeg and which of its H.264 encoders really encode a frame there. */
export interface VideoInfo {
  /** ffmpeg on PATH and the first line of `ffmpeg -version`; null when there is none. */
  ffmpeg: { path: string; version: string } | null;
  /** Each of parsers.ts VIDEO_ENCODERS, in that order (all not working when there is no ffmpeg). */
  encoders: VideoEncoderInfo[];
  /** The first working one of them (NVENC, then VA-API, then x264), or null. */
  best: VideoEncoderName | null;
  /** The first /dev/dri/renderD* node (what h264_vaapi was tried on) and its kernel driver (i915, amdgpu, nvidia…). */
  renderNode: { path: string; driver: string | null } | null;
  /** Makers of the display-class PCI devices (/sys/bus/pci), seen even where a container hides /dev/dri. */
  pciGpus: GpuVendor[];
}

/** One Vulkan driver manifest (ICD json) the loader would read. */
export interface VulkanIcd {
  /** The json file. */
  path: string;
  /** Its "library_path" as written (an absolute path, a path relative to the file, or a bare name the dynamic linker finds); null when unreadable. */
  libraryPath: string | null;
  /** Where that library really is (symlinks resolved), or null when it does not exist. */
  library: string | null;
  /** Its "api_version" (e.g. "1.3.242"), or null. */
  apiVersion: string | null;
  /** NVIDIA's own ICD (its library is libGLX_nvidia). */
  nvidia: boolean;
  /** The driver version in the resolved library's name (NVIDIA: libGLX_nvidia.so.535.104.12), or null. */
  libraryVersion: string | null;
  /** Why the manifest cannot be used as it is (no such file, not JSON), else null. */
  error: string | null;
}

export type VulkanDeviceType = 'discrete' | 'integrated' | 'virtual' | 'cpu' | 'other';

/** One device as `vulkaninfo --summary` reports it. */
export interface VulkanDevice {
  /** Its GPUn number in vulkaninfo's list. */
  index: number;
  name: string;
  type: VulkanDeviceType;
  /** "1.3.242" (the device's Vulkan version). */
  apiVersion: string | null;
  driverVersion: string | null;
  /** e.g. "NVIDIA", "llvmpipe". */
  driverName: string | null;
  /** e.g. "535.104.12", "Mesa 22.3.6 (LLVM 15.0.6)". */
  driverInfo: string | null;
  /** "0x10de" for NVIDIA. */
  vendorId: string | null;
  deviceUuid: string | null;
  /** nvidia-smi's index of the same GPU (matched by UUID), or null. */
  gpuIndex: number | null;
}

/** Vulkan on the server: the loader, the driver manifests it reads, and the devices vulkaninfo sees. */
export interface VulkanInfo {
  /** The loader (libvulkan.so.1) as the dynamic linker finds it, or null when there is none. */
  loader: string | null;
  /** VK_DRIVER_FILES (or VK_ICD_FILENAMES) of the account's environment: the loader reads only these then. */
  icdEnv: string | null;
  icds: VulkanIcd[];
  /** vulkaninfo's path, or null when it is not installed (then devices is empty and unknown). */
  vulkaninfo: string | null;
  /** The X display vulkaninfo ran in (":1", one of the account's own), or null when it ran headless. */
  display: string | null;
  /** vulkaninfo's "Vulkan Instance Version". */
  instanceVersion: string | null;
  devices: VulkanDevice[];
  /** Why vulkaninfo listed nothing (its error line, or its time-out); null when it worked or did not run. */
  error: string | null;
}

export type { Severity } from '../../shared/models';

export interface ClipboardTools {
  xclip: boolean;
  xsel: boolean;
}

export type FindingCode =
  | 'NO_NVIDIA_DRIVER'
  | 'NVIDIA_SMI_FAILED'
  | 'VIRTUALGL_MISSING'
  | 'VIRTUALGL_OLD'
  | 'NO_3D_X_SERVER'
  | 'GLX_RENDERER_SOFTWARE'
  | 'EGL_DEVICE_NOT_ACCESSIBLE'
  | 'EGL_SOFTWARE_RENDERER'
  | 'SESSION_LISTENS_ON_ALL_INTERFACES'
  | 'NO_VNC_SERVER'
  | 'TIGERVNC_ONLY'
  | 'NO_WINDOW_MANAGER'
  | 'UNSUPPORTED_OS'
  | 'NO_SUDO'
  | 'NO_FFMPEG'
  | 'NVENC_UNAVAILABLE'
  | 'VAAPI_UNAVAILABLE'
  | 'NO_RENDER_NODE'
  | 'VIDEO_CPU_ONLY'
  | 'NO_VIDEO_ENCODER'
  | 'VULKAN_NO_LOADER'
  | 'VULKANINFO_MISSING'
  | 'VULKAN_ICD_LIBRARY_MISSING'
  | 'VULKAN_NO_NVIDIA_ICD'
  | 'VULKAN_ICD_VERSION_MISMATCH'
  | 'VULKAN_NO_DEVICE'
  | 'VULKAN_CPU_ONLY'
  | 'USER_INSTALL_IN_USE'
  | 'SYSTEM_INSTALL_PREFERRED'
  | 'GPU_DEVICE_NO_ACCESS'
  | 'UPSTREAM_UNREACHABLE'
  | 'MIRROR_UNREACHABLE'

  | 'NO_XCLIP';

/** The view the renderer shows (severity, plain-language message, fix), with the stable code narrowed. */
export interface Finding extends FindingView {
  code: FindingCode;
  /** The set-up plan step that fixes it, when the plan covers it. */
  planStep?: string;
}

/** unknown: sudo is installed but the account is in no admin group; it may still have rights (sudoers.d). */
export type SudoState = 'root' | 'passwordless' | 'password' | 'unknown' | 'absent';

export interface ServerReport {
  host: string;
  user: string;
  uid: number | null;
  groups: string[];
  os: OsInfo;
  arch: string;
  kernel: string;
  sudo: SudoState;
  nvidia: NvidiaInfo;
  gpus: GpuInfo[];
  dri: DriDevice[];
  virtualgl: VirtualGLInfo;
  xserver: XServerInfo;
  vnc: VncInfo;
  sessions: VncSessionInfo[];
  /**
   * VNC ports (5900–5999) open to the network that are not this account's sessions: another user's
   * session, or a system-wide VNC service. Addresses as the server reports them.
   */
  exposedVncPorts: { port: number; display: number; addresses: string[] }[];
  /** Window-manager/desktop session commands found on PATH (e.g. "xfce4-session", "openbox-session"). */
  windowManagers: string[];
  /** Active display manager unit (gdm3, lightdm, sddm…) or null. */
  displayManager: string | null;
  /** The X clipboard tools on PATH (image copy and paste needs xclip; xsel carries text only). Absent from older reports. */
  clipboardTools?: ClipboardTools;
  findings: Finding[];
  /** Wall time of the probe in ms (for the UI; the probe must stay within a few seconds). */
  probeMs: number;
  video: VideoInfo;
  vulkan: VulkanInfo;
  /** gpu-desk's install in the account's home beside the system one (userInstall.ts). Absent from older reports. */
  userInstall?: UserInstallInfo;
  /** Each GPU device node (/dev/dri/*, /dev/nvidia*) and whether this account can open it. Absent from older reports. */
  deviceNodes?: DeviceNode[];
  /** Whether the server reaches the upstream download host and its distribution's mirror. Absent from older reports. */
  reach?: ReachInfo;
}

export interface UserInstallInfo {
  /** ~/.local/share/gpu-desk as an absolute path, when it exists. */
  base: string | null;
  /** The complete install `current` names (absolute), or null. */
  current: string | null;
  /** Versioned install directories found (names). */
  installs: string[];
  /** The system's TurboVNC / VirtualGL bin directories (an administrator's, in /opt), or null. */
  systemTurbovnc: string | null;
  systemVirtualgl: string | null;
  /** Which install sessions use: the system's is preferred wherever it exists. */
  sessionsUse: { turbovnc: 'system' | 'user' | null; virtualgl: 'system' | 'user' | null };
}

export interface DeviceNode {
  path: string;
  accessible: boolean;
  group: string | null;
}

export interface ReachInfo {
  /** github.com answered (null: no curl/wget to ask with). */
  upstream: boolean | null;
  /** The distribution's mirror (scheme://host), or null when no package source names one. */
  mirror: string | null;
  mirrorReachable: boolean | null;
}

export type PlanStep = SetupStepView;

export type { RenderBackend } from '../../shared/models';

export interface SetupPlan {
  distro: DistroKey;
  backend: RenderBackend;
  steps: PlanStep[];
  /** Things the plan deliberately leaves out, and why. */
  notes: string[];
  noteTexts?: TextKey[];
  /** Present when the plan installs into the account's home, with no root (userInstall.ts). */
  userInstall?: SetupPlanView['userInstall'];
}

export type StepStatus = 'done' | 'pending';

export type PlanProgress =
  | { type: 'step-check'; stepId: string; index: number; total: number }
  | { type: 'step-skip'; stepId: string; index: number; total: number }
  | { type: 'step-start'; stepId: string; index: number; total: number }
  | { type: 'output'; stepId: string; stream: 'stdout' | 'stderr'; text: string }
  | { type: 'step-done'; stepId: string; index: number; total: number; ms: number }
  | { type: 'step-failed'; stepId: string; index: number; total: number; message: string };

export type StepResult = SetupStepResultView;

export interface ApplyResult {
  ok: boolean;
  steps: StepResult[];
  /** Set when ok is false. */
  error?: { code: string; message: string; fix?: string; stepId?: string };
}

export interface StartedSession extends VncSessionInfo {
  /**
   * Password for this connection only: a TurboVNC one-time password (valid once) or a random TigerVNC
   * per-session password. Hand it to the viewer; never store or log it.
   */
  password: string | null;
  passwordKind: 'otp' | 'session' | 'none';
}
