/**
 * What crosses the IPC boundary: plain, serialisable view models. No Node, DOM or Electron types,
 * and never a secret except where a field says so (the viewer's one-session VNC password).
 */
import type { LanguageChoice } from './language';
import type { ForwardSpec, NodeAccess, Profile, ProfileAuth } from './profileSchema';

export type ConnectionState = 'idle' | 'connecting' | 'ready' | 'reconnecting' | 'closed';

export interface ErrorValue {
  code: string;
  message: string;
  fix?: string;
}

export type EncodingName = 'tight' | 'zrle' | 'hextile' | 'raw' | 'h264';
export type Subsampling = '1x' | '2x' | '4x' | 'gray';
export type ScaleMode = 'fit' | 'native' | 'remote';

/** The viewer's full settings: the profile's saved part plus what this window keeps locally. */
export interface ViewerPrefs {
  /** RFB quality level 0–9 (JPEG); ignored when lossless. */
  quality: number;
  /** RFB compression level 0–9. */
  compression: number;
  /** Preferred encoding; the others follow in noVNC's order. */
  encoding: EncodingName;
  /** No JPEG at all (TurboVNC's "Lossless Tight"). */
  lossless: boolean;
  /** TurboVNC only: fine-grained JPEG quality 1–100 (null: from the level). */
  jpegQuality: number | null;
  /** TurboVNC only: chroma subsampling (null: from the level). */
  subsampling: Subsampling | null;
  scale: ScaleMode;
  adaptive: boolean;
  viewOnly: boolean;
  showHud: boolean;
  /** VNC (JPEG/lossless tiles), video (H.264 from the server's encoder), or auto (video while the screen moves and the link cannot carry tiles). */
  codec: ViewerCodec;
  /** Video bitrate bounds (kbit/s): the bitrate follows the measured link between them. */
  videoMinKbps: number;
  videoMaxKbps: number;
  /** The server's clipboard goes to the desk's on its own (off: only through the clipboard panel). */
  autoClipboard: boolean;
  /** Keyboard grab on entering full screen (keys the local desk would take go to the remote desktop). */
  grabInFullScreen: boolean;
}

export type ViewerCodec = 'vnc' | 'video' | 'auto';

/** The H.264 encoders video mode can use, best first (the probe's video section tries each: remote/probeScript.ts). */
export type VideoEncoderName = 'h264_nvenc' | 'h264_vaapi' | 'libx264';

/** Where the viewer's video stream is: a one-use channel URL, and what the encoder was told. */
export interface VideoTicket {
  url: string;
  encoder: VideoEncoderName;
  width: number;
  height: number;
  fps: number;
  bitrateKbps: number;
}

export const defaultViewerPrefs: ViewerPrefs = {
  quality: 6,
  compression: 2,
  encoding: 'tight',
  lossless: false,
  jpegQuality: null,
  subsampling: null,
  scale: 'fit',
  adaptive: false,
  viewOnly: false,
  showHud: true,
  codec: 'auto',
  videoMinKbps: 1000,
  videoMaxKbps: 50_000,
  autoClipboard: true,
  grabInFullScreen: true,
};

// A saved server and its parts: defined once, as zod schemas, in profileSchema.ts.
export type { ClusterJobSettings, ForwardSpec, NodeAccess, Profile, ProfileAuth, SavedEncoding, SavedViewerPrefs } from './profileSchema';

/** A Host entry of ~/.ssh/config, resolved as ssh would, offered for import. */
export interface SshConfigHost {
  alias: string;
  /** Profile name it would get. */
  name: string;
  host: string;
  port: number;
  user: string | null;
  jumpHosts: string[];
  auth: ProfileAuth;
  warnings: string[];
  /** A profile with this name exists already (importing keeps it). */
  exists: boolean;
}

export interface SshImportResult {
  added: Profile[];
  skipped: { name: string; reason: string }[];
  warnings: string[];
}

/**
 * How long the last SSH login took, by phase (the whole ProxyJump chain; the phases are the target's):
 * the key exchange (TCP, or the hop's channel, through host-key check) and authentication.
 */
export interface LoginTiming {
  handshakeMs: number;
  authMs: number;
  totalMs: number;
}

export interface ConnectionView {
  id: string;
  profileId: string;
  label: string;
  state: ConnectionState;
  rttMs: number | null;
  /** The last (re)connect's login, once one finished. */
  login?: LoginTiming | null;
  /** Last failure (also set while reconnecting). */
  error: ErrorValue | null;
}

export interface HostKeyPromptView {
  kind: 'hostKey';
  host: string;
  port: number;
  keyType: string;
  fingerprint: string;
  hop: number;
}
export type PromptView =
  | HostKeyPromptView
  | { kind: 'passphrase'; keyLabel: string }
  | { kind: 'password'; user: string; host: string }
  | { kind: 'keyboardInteractive'; name: string; instructions: string; prompts: { prompt: string; echo: boolean }[] };

export type PromptRequest = { promptId: string; connectionId: string } & PromptView;

export type HostKeyDecision = 'reject' | 'accept-once' | 'accept-save';

export type Severity = 'info' | 'warning' | 'error';

export interface Finding {
  severity: Severity;
  /** Stable code (src/core/remote/types.ts FindingCode). */
  code: string;
  /** Plain language: what is wrong and what it means for the user. */
  message: string;
  /** What to do about it. */
  fix: string;
  /**
   * The same message and fix as catalogue keys (the app's findings namespace) and the values they
   * name, so the app can say them in its own language; `message` and `fix` stay the English text.
   */
  text?: { message: string; fix: string; params: Record<string, string> };
}

export interface GpuView {
  index: number;
  name: string;
  uuid: string;
  memoryTotalMiB: number | null;
  memoryUsedMiB: number | null;
  utilizationPct: number | null;
  driverVersion: string;
}

/** Which VNC server: a session's, or the one a server has installed (`VncFlavor | null` where it may have none). */
export type VncFlavor = 'turbovnc' | 'tigervnc';

/** A view-only invite to a TurboVNC desktop (sessions.invite). */
export interface ViewOnlyInviteView {
  display: number;
  /** The view-only one-time password: one connection, sees the desktop, its input ignored by the server. */
  password: string;
  /** What the colleague runs first, with their own SSH login in place of LOGIN. */
  command: string;
  /** TurboVNC's rule: the password lets one viewer in once, and ends with the desktop. */
  expiry: 'one-connection';
}

export interface VncSessionView {
  display: number;
  /** TCP port on the server's loopback; null for a session on a Unix socket only. */
  port: number | null;
  /** The session's Unix socket on the server (TurboVNC -rfbunixpath), else null. */
  unixPath: string | null;
  pid: number | null;
  flavor: VncFlavor;
  /** true: loopback only; false: reachable from the network; null: unknown. */
  localhostOnly: boolean | null;
  /** The GPU (nvidia-smi index) the desktop renders on, when it was started on one: the viewer's HUD shows that one. */
  renderGpu?: number;
}

export interface ServerReportView {
  host: string;
  user: string;
  os: { prettyName: string; arch: string; kernel: string; supported: boolean };
  sudo: 'root' | 'passwordless' | 'password' | 'absent' | 'unknown';
  nvidia: { driverVersion: string | null; smiError: string | null };
  gpus: GpuView[];
  virtualgl: { installed: boolean; version: string | null; eglUsable: boolean; eglReason: string; eglDevice: string | null };
  xserver: { running: boolean; renderer: string | null; softwareRenderer: boolean };
  vnc: { flavor: VncFlavor | null; version: string | null };
  sessions: VncSessionView[];
  windowManagers: string[];
  displayManager: string | null;
  findings: Finding[];
  probeMs: number;
  video: VideoProbeView;
  vulkan: VulkanProbeView;
}

/** Vulkan on the server: the loader, and the devices vulkaninfo lists (src/core/remote/types.ts VulkanInfo). */
export interface VulkanProbeView {
  loader: string | null;
  /** false: vulkaninfo is not installed, so the devices are unknown. */
  vulkaninfo: boolean;
  devices: { name: string; type: 'discrete' | 'integrated' | 'virtual' | 'cpu' | 'other'; apiVersion: string | null; driverInfo: string | null; gpuIndex: number | null }[];
  error: string | null;
}

/** The server's ffmpeg and which of its H.264 encoders encoded a test frame (src/core/remote/types.ts VideoInfo). */
export interface VideoProbeView {
  ffmpeg: { path: string; version: string } | null;
  encoders: { name: VideoEncoderName; works: boolean; error: string | null }[];
  best: VideoEncoderName | null;
}

export interface GpuSample {
  at: number;
  gpus: GpuView[];
}

/** A catalogue key and the values it names: how the app says core's English text in its own language. */
export interface TextKey {
  key: string;
  params: Record<string, string>;
}

/** One set-up plan step (src/core/remote/types.ts PlanStep is this type). */
export interface SetupStepView {
  id: string;
  title: string;
  /** Why this step matters, in plain language. */
  why: string;
  /**
   * The same title and why as keys of the app's `plan` namespace (`steps.<key>.title`/`.why`), and how
   * a download is checked (`verify.<key>` then `unverified.<allowed|stops>`); `title`/`why` stay English for the CLI.
   */
  text?: TextKey & { verify?: { source: TextKey; allowUnverified: boolean } };
  /** POSIX sh script; exit 0 means the step is already done and `apply` is skipped. */
  check: string;
  /** POSIX sh script that makes `check` pass. */
  apply: string;
  needsRoot: boolean;
}

export type RenderBackend = 'egl' | 'glx' | 'none';

export interface SetupPlanView {
  distro: string;
  backend: RenderBackend;
  steps: SetupStepView[];
  notes: string[];
  /** `notes` as keys of the app's `plan` namespace (`notes.<key>`), one for each, in the same order. */
  noteTexts?: TextKey[];
  /** Present when the plan installs into the account's home, with no root (src/core/remote/userInstall.ts). */
  userInstall?: UserInstallSummaryView;
  /** true: the server cannot reach GitHub, so the desk downloads TurboVNC and VirtualGL and uploads them over SSH before the steps. */
  carried?: boolean;
  /** Each step's check, run on the server when the plan was made (src/core/remote/planReview.ts). */
  review?: SetupPlanReviewView;
}

/** The Add-server dialog's Test connection: it logged in (and closed that connection). */
export interface ConnectionTestView {
  ok: true;
  /** user@host:port as the connection named itself. */
  label: string;
  login: LoginTiming | null;
}

export interface SetupPlanReviewView {
  /** done: the step's check passes now, so the run skips it. */
  status: Record<string, 'done' | 'pending'>;
  /** Why each step is skipped or runs, as a key of the app's `setup` namespace (`reasons.<key>`), and in English. */
  reasons: Record<string, TextKey & { text: string }>;
  /** How the run gets root for the steps still to do: a password is asked only for 'password'. */
  sudo: 'none' | 'root' | 'passwordless' | 'password';
}

export interface UserInstallSummaryView {
  /** The versioned install directory, as a path under the home (`~/…`). */
  prefix: string;
  /** About the disk space it takes, in MB. */
  diskMB: number;
  /** openbox: brought with the install; existing: the server's own; none: a bare desktop. */
  windowManager: 'openbox' | 'existing' | 'none';
}

export type SetupStepStatus = 'pending' | 'checking' | 'running' | 'done' | 'skipped' | 'failed';

export interface SetupProgress {
  runId: string;
  stepId: string;
  status: SetupStepStatus;
  /** New output since the last event (never the sudo password). */
  output?: string;
  message?: string;
  /** A package the desk uploads for this step (issue 42's carried packages): bytes acknowledged so far of total. */
  transfer?: { bytes: number; total: number };
}

export interface SetupStepResultView {
  id: string;
  status: 'skipped' | 'applied' | 'failed' | 'not-run';
  ms: number;
  /** Tail of the step's output (stdout+stderr), redacted. */
  output: string;
}

export interface SetupResultView {
  ok: boolean;
  steps: SetupStepResultView[];
  error?: ErrorValue & { stepId?: string };
  /** After a failure: the same plan, shown again under this id, for Retry (from the failed step). */
  retryPlanId?: string;
}

export interface ViewerTicket {
  viewerId: string;
  /** ws:// URL on 127.0.0.1 with a one-use token; only this page may use it (Origin-checked). */
  url: string;
  display: number;
  /** TCP port on the server's loopback, or null when the session is reached through its Unix socket. */
  remotePort: number | null;
  remoteSocket: string | null;
  /** null: the connection's server has no VNC server the probe knows. */
  flavor: VncFlavor | null;
  /** The session's VNC password, when it has one: kept in memory by the viewer only. */
  vncPassword: string | null;
  /**
   * A one-time password is being fetched for this viewer: ask viewer.password once the server wants
   * it (the fetch overlaps the connection's start instead of delaying it).
   */
  passwordLater?: boolean;
}

export interface ByteCounters {
  /** Bytes from the server to the viewer. */
  bytesIn: number;
  bytesOut: number;
  rttMs: number | null;
  at: number;
}

/**
 * A connection through a forward that the server would not open (what `ssh -L` prints as "open failed"),
 * as core's error: its code, its English message and fix. Kept until a connection opens.
 */
export interface ForwardOpenFailure {
  code: string;
  message: string;
  fix?: string;
}

export interface TunnelView {
  id: string;
  connectionId: string;
  localHost: string;
  localPort: number;
  display: number;
  remotePort: number;
  /** Set when the display is reached through the session's Unix socket on the server instead of remotePort. */
  remoteSocket?: string;
  forwards: (ForwardSpec & { url: string | null; openFailed?: ForwardOpenFailure })[];
  bytesIn: number;
  bytesOut: number;
  clients: number;
  /** Ready-made commands for native viewers. */
  commands: { turbovnc: string; tigervnc: string; realvnc: string };
  /** A cluster job's desktop: which job, on which node, and how it is reached. */
  job?: { jobId: string; node: string; route: NodeAccess };
}

/** A desktop job this app submitted and may still run (kept locally: the app starts without asking any cluster). */
export interface RememberedJob {
  profileId: string;
  jobId: string;
  /** ms since the epoch. */
  submittedAt: number;
  /** The job's time limit as submitted, or null when Slurm's partition default applies. */
  timeLimitSec: number | null;
}

/** What the tray's "Open tunnel to" gets back: for a job's desktop, a one-time password for the viewer. */
export type SavedTunnelView = TunnelView & { oneTimePassword?: string };

export interface AppInfo {
  version: string;
  shell: 'electron' | 'harness';
  platform: string;
}

/** A rectangle on a screen: a monitor's bounds, a window's, a desktop's screen. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** One monitor of the desk, as the shell knows it (Electron's screen module): bounds in DIPs. */
export interface DeskDisplay extends Rect {
  scaleFactor: number;
}

/** The app's own preferences (one file beside the profiles; the CLI reads none of them). */
export interface AppSettings {
  language: LanguageChoice;
  /** Closing the window while tunnels are open keeps gpu-desk running in the tray (Electron). */
  keepRunningInTray: boolean;
}

export interface SettingsView extends AppSettings {
  /**
   * The operating system's preferred locales where the shell knows them (Electron's
   * app.getPreferredSystemLanguages()); empty in the harness, where the browser's own
   * navigator.languages say it.
   */
  systemLocales: string[];
}

/** A saved forward opened on its own or beside the desktop: listening on 127.0.0.1 only. */
export interface ForwardView {
  id: string;
  connectionId: string;
  localHost: string;
  localPort: number;
  remoteHost: string;
  remotePort: number;
  /** A real HTTP request through the forward's local address: answered, not answered, or not yet asked. */
  http: 'checking' | 'yes' | 'no';
  /** http://127.0.0.1:port/ when it answers HTTP, else null. */
  url: string | null;
  openFailed?: ForwardOpenFailure;
}

export interface RemoteEntryView {
  name: string;
  kind: 'dir' | 'file' | 'other';
  size: number;
  /** Seconds since the epoch. */
  mtime: number;
  link: boolean;
}

export interface RemoteFolderView {
  path: string;
  parent: string | null;
  entries: RemoteEntryView[];
  /** The server listed more than gpu-desk shows (10 000 entries) or took too long: "listing truncated". */
  truncated?: boolean;
}

export interface UploadTicket {
  uploadId: string;
  /** The folder on the server and the file's final path there. */
  folder: string;
  path: string;
}

/** Bytes of an upload the server has acknowledged (events while it runs). */
export interface UploadProgress {
  uploadId: string;
  bytes: number;
  total: number;
}
/** A key pair in the OS keychain, as the Keys screen lists it (never the private half). */
export interface KeyView {
  name: string;
  type: string;
  /** "SHA256:…", as ssh-keygen -l prints it. */
  fingerprint: string;
  /** The authorized_keys line. */
  publicKey: string;
  comment: string;
  source: 'generated' | 'imported';
  createdAt: string;
  /** "user@host:port" of servers gpu-desk installed it on. */
  installedOn: string[];
  /** The OpenSSH certificate attached to it (read from its file now), or null. */
  certificate: CertificateView | null;
}

export interface CertificateView {
  file: string;
  keyId: string;
  /** Empty: any principal. */
  principals: string[];
  /** ISO times; null: no bound. */
  validAfter: string | null;
  validBefore: string | null;
  /** Why it is not offered now (expired, not yet valid, unreadable), or null. */
  problem: string | null;
}

export interface KeyInstallView {
  key: string;
  /** Where it went ("user@host:port"). */
  server: string;
  /** false: the key was there already (nothing appended). */
  added: boolean;
  /** A fresh login offering only this key worked. */
  keyLoginOk: boolean;
  /** Why the key-only login failed (keyLoginOk false). */
  keyLoginError: string | null;
  /** The profile now signs in with the key (only after a key-only login worked). */
  profileSwitched: boolean;
  /** Server commands that turn password login off: shown, never run by gpu-desk. */
  passwordOffCommands: string[];
}

export interface KeyRemoveView {
  removed: string;
  /** Profiles that used the key and now sign in automatically. */
  profilesChanged: string[];
  /** Set when removal from a server's authorized_keys was asked for. */
  server: { label: string; removed: boolean } | null;
}

export interface ProfilesExportView {
  /** The file written (its base name only: the window never needs full local paths). */
  file: string;
  count: number;
}

export interface ProfilesImportView {
  file: string;
  added: string[];
  replaced: string[];
  skipped: string[];
  warnings: string[];
}

/** Menu items in the Electron main process that the window carries out (same flow as its buttons). */
export type AppCommand = 'profiles.export' | 'profiles.import' | 'keys.show';

/** What a cluster offers for a new profile's job settings (sinfo; sacctmgr where readable). */
export interface ClusterDefaultsView {
  partitions: { name: string; isDefault: boolean; gres: string[]; maxTime: string | null; up: boolean }[];
  /** null: the cluster keeps no accounting the user can read; accountsWhy says so in plain words. */
  accounts: string[] | null;
  accountsWhy: string | null;
}

/** A desktop job as the window shows it (sent again on every change as a `clusters.job` event). */
export interface ClusterJobView {
  /** The login node's connection. */
  connectionId: string;
  jobId: string;
  phase: 'pending' | 'running' | 'ended';
  /** Slurm's word: PENDING, RUNNING, CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, … */
  state: string;
  /** Why it waits (Resources, Priority, …). */
  reason: string | null;
  /** Slurm's estimated start (squeue --start), as Slurm prints it. */
  estimatedStart: string | null;
  node: string | null;
  timeLeftSec: number | null;
  timeLimitSec: number | null;
  /** For ended jobs: "time limit", "cancelled", "node failure", "out of memory", "completed", … */
  endedWhy: string | null;
  /** The job's desktop is up and can be viewed. */
  desktopUp: boolean;
  /** The last time-limit warning given: 600 (10 minutes) or 60 (1 minute) seconds before the end. */
  warning: number | null;
  at: number;
}

/** A viewer ticket for a job's desktop, with the route through the login node and why it was taken. */
export interface ClusterViewerTicket extends ViewerTicket {
  jobId: string;
  node: string;
  route: NodeAccess;
  why: string;
}


/** One GPU in the viewer's HUD (viewer.gpus): the GPU cards' figures, and heat, power and NVENC/NVDEC where nvidia-smi gives them (else null). */
export interface GpuFiguresView extends GpuView {
  temperatureC: number | null;
  powerDrawW: number | null;
  powerLimitW: number | null;
  encoderPct: number | null;
  decoderPct: number | null;
}

/** The GPUs of the machine a viewer's desktop renders on (a job's desktop: its compute node). */
export interface ViewerGpuSample {
  at: number;
  /** false: no NVIDIA GPU figures there (no nvidia-smi, or `why`). */
  available: boolean;
  /** Why no machine could be asked: a job's desktop that is not open; else null. */
  why: 'no-link' | null;
  gpus: GpuFiguresView[];
  /** The index (in `gpus`) of the GPU the desktop renders on, where the core knows it (a job's allocated GPU). */
  renderGpu?: number;
}

/** A program started in a desktop from gpu-desk ("Run in desktop…"). */
export interface DesktopRunView {
  runId: string;
  display: number;
  /** The vglrun wrapping it, or null (not asked for, or no VirtualGL on the server). */
  vglrun: string | null;
}

/** A started program now: running or its exit status, and the tail of what it printed. */
export interface DesktopRunStateView {
  running: boolean;
  exitCode: number | null;
  output: string;
  /** Only the last part of the output is shown (the log on the server has all of it). */
  truncated: boolean;
}
