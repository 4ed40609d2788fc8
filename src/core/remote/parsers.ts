/**
 * Pure parsers for the exact text the server's tools print. No I/O: each takes a string and returns
 * data, so fixtures in test/fixtures/remote pin the formats.
 */
import type { ClipboardTools, DistroKey, GlxInfo, GpuInfo, GpuVendor, OsInfo, PackageFamily, VideoEncoderInfo, VideoEncoderName, VideoInfo, VncFlavor, VulkanDevice, VulkanDeviceType, VulkanIcd, VulkanInfo } from './types';

// ---------------------------------------------------------------- /etc/os-release

function unquoteOsValue(v: string): string {
  const t = v.trim();
  if ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'"))) {
    return t.slice(1, -1).replace(/\\(["$`\\])/g, '$1');
  }
  return t;
}

export function parseOsRelease(text: string): OsInfo {
  const kv: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (m) kv[m[1]] = unquoteOsValue(m[2]);
  }
  const id = (kv.ID ?? '').toLowerCase();
  const idLike = (kv.ID_LIKE ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const versionId = kv.VERSION_ID ?? '';
  const all = [id, ...idLike];
  let family: PackageFamily = 'unknown';
  if (all.some((x) => x === 'debian' || x === 'ubuntu')) family = 'deb';
  else if (all.some((x) => ['rhel', 'centos', 'fedora', 'rocky', 'almalinux'].includes(x))) family = 'rpm';
  return {
    id,
    idLike,
    versionId,
    prettyName: kv.PRETTY_NAME ?? ([kv.NAME, kv.VERSION].filter(Boolean).join(' ') || id || 'unknown'),
    family,
    distro: distroKey(id, idLike, versionId),
  };
}

function distroKey(id: string, idLike: string[], versionId: string): DistroKey | null {
  const major = versionId.split('.')[0];
  if (id === 'ubuntu' && ['20.04', '22.04', '24.04'].includes(versionId)) return `ubuntu-${versionId}` as DistroKey;
  if (id === 'debian' && major === '12') return 'debian-12';
  const rhelLike = ['rhel', 'rocky', 'almalinux', 'centos', 'ol'].includes(id) || (idLike.includes('rhel') && id !== 'fedora');
  if (rhelLike && (major === '8' || major === '9')) return `rhel-${major}` as DistroKey;
  return null;
}

// ---------------------------------------------------------------- nvidia-smi

/** A number from nvidia-smi CSV with nounits; "[N/A]", "[Not Supported]" and friends become null. */
export function smiNumber(v: string | undefined): number | null {
  if (v === undefined) return null;
  const t = v.trim();
  if (!/^-?\d+(\.\d+)?$/.test(t)) return null;
  return Number(t);
}

/** "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.12  Wed Sep …" → "535.104.12". */
export function parseNvidiaProcVersion(text: string): string | null {
  const m = /Kernel Module(?:\s+for\s+\S+)?\s+(\d+\.\d+(?:\.\d+)?)/.exec(text);
  return m ? m[1] : null;
}

/**
 * nvidia-smi's "00000000:3B:00.0" (hex domain:bus:device.function) → Xorg's "PCI:59:0:0" (decimal bus:device:function),
 * the form nvidia-xconfig --busid expects.
 */
export function toXorgBusId(pciBusId: string): string | null {
  const m = /^(?:[0-9A-Fa-f]+:)?([0-9A-Fa-f]+):([0-9A-Fa-f]+)\.([0-9A-Fa-f]+)$/.exec(pciBusId.trim());
  if (!m) return null;
  return `PCI:${parseInt(m[1], 16)}:${parseInt(m[2], 16)}:${parseInt(m[3], 16)}`;
}

export function driverMajor(version: string | null | undefined): number | null {
  const m = /^(\d+)/.exec(version ?? '');
  return m ? Number(m[1]) : null;
}

// ---------------------------------------------------------------- glxinfo

const SOFTWARE_RENDERERS = /llvmpipe|softpipe|swrast|software rasterizer|Mesa X11|GDI Generic/i;

export function isSoftwareRenderer(renderer: string | null): boolean {
  return renderer !== null && SOFTWARE_RENDERERS.test(renderer);
}

/** Works for Mesa's `glxinfo -B` and VirtualGL's `/opt/VirtualGL/bin/glxinfo -c` (same header lines). */
export function parseGlxinfo(text: string): GlxInfo {
  const line = (re: RegExp) => {
    const m = re.exec(text);
    return m ? m[1].trim() : null;
  };
  const renderer = line(/^OpenGL renderer string:\s*(.+)$/m);
  const direct = line(/^direct rendering:\s*(\w+)/m);
  const err = line(/^((?:Error: )?unable to open display.*|Error: couldn't find RGB GLX visual.*|X Error of failed request:.*|No protocol specified.*|Authorization required.*)$/m);
  return {
    renderer,
    vendor: line(/^OpenGL vendor string:\s*(.+)$/m),
    glVersion: line(/^OpenGL (?:core profile )?version string:\s*(.+)$/m),
    directRendering: direct === null ? null : /^yes$/i.test(direct),
    softwareRenderer: isSoftwareRenderer(renderer),
    error: renderer ? null : err ?? (text.trim() ? text.trim().split('\n')[0].slice(0, 200) : null),
  };
}

// ---------------------------------------------------------------- vncserver -list

export interface ListedSession {
  display: number;
  port: number | null;
  pid: number | null;
  unixPath: string | null;
}

/**
 * TigerVNC `vncserver -list`. Two real layouts:
 *  1.11+ (Debian wrapper): "X DISPLAY #\tRFB PORT #\tRFB UNIX PATH\tPROCESS ID #\tSERVER" then "55        \t5955      \t             \t10233       \tXtigervnc"
 *  ≤1.10 (Ubuntu 20.04):   "X DISPLAY #\tPROCESS ID" then ":1\t\t12345"
 */
export function parseTigerVncList(text: string): ListedSession[] {
  const lines = text.split('\n');
  const header = lines.findIndex((l) => /^X DISPLAY #/.test(l));
  if (header < 0) return [];
  const cols = lines[header].split('\t').map((c) => c.trim());
  const out: ListedSession[] = [];
  for (const raw of lines.slice(header + 1)) {
    if (!raw.trim()) continue;
    const cells = raw.split('\t').map((c) => c.trim());
    if (cols.length >= 4) {
      // Column-aligned: one tab between columns, cells padded with spaces; the unix-path cell may be blank.
      const get = (name: RegExp) => {
        const i = cols.findIndex((c) => name.test(c));
        return i >= 0 ? cells[i] ?? '' : '';
      };
      const display = Number(get(/^X DISPLAY/).replace(/^:/, ''));
      if (!Number.isInteger(display)) continue;
      const port = get(/^RFB PORT/);
      // "12345 (stale)": the wrapper found a pid file whose server is gone; not a running session.
      const pidCell = get(/^PROCESS ID/);
      if (/stale/.test(pidCell)) continue;
      const pid = /^\d+/.exec(pidCell)?.[0] ?? '';
      out.push({
        display,
        port: /^\d+$/.test(port) ? Number(port) : null,
        pid: /^\d+$/.test(pid) ? Number(pid) : null,
        unixPath: get(/^RFB UNIX PATH/) || null,
      });
    } else {
      const parts = raw.trim().split(/\s+/);
      const m = /^:?(\d+)$/.exec(parts[0] ?? '');
      if (!m) continue;
      const display = Number(m[1]);
      const pid = parts[parts.length - 1];
      out.push({ display, port: null, pid: parts.length > 1 && /^\d+$/.test(pid) ? Number(pid) : null, unixPath: null });
    }
  }
  return out;
}

/**
 * TurboVNC `vncserver -list`. Cells are separated by two tabs and an empty cell stays empty, so the
 * columns are found by splitting on tab pairs, not on whitespace:
 *  3.x:  "X DISPLAY #\tPROCESS ID\tNOVNC PID\tUDS PATH" then ":1\t\t12345\t\t[noVNC pid]\t\t[socket path]"
 *  2.2:  "X DISPLAY #\tPROCESS ID" then ":1\t\t12345"
 */
export function parseTurboVncList(text: string): ListedSession[] {
  const lines = text.split('\n');
  const header = lines.findIndex((l) => /^X DISPLAY #/.test(l));
  if (header < 0) return [];
  const out: ListedSession[] = [];
  for (const raw of lines.slice(header + 1)) {
    const cells = raw.replace(/\s+$/, '').split('\t\t').map((c) => c.trim());
    const m = /^:(\d+)$/.exec(cells[0] ?? '');
    if (!m || !/^\d+$/.test(cells[1] ?? '')) continue;
    const uds = cells[3] ?? '';
    out.push({ display: Number(m[1]), port: null, pid: Number(cells[1]), unixPath: uds.startsWith('/') ? uds : null });
  }
  return out;
}

/**
 * The probe's "vncproc" section: "<pid> <executable>" for each of the account's processes whose
 * executable looks like an X VNC server (from /proc/<pid>/exe). Both flavours' `-list` commands report
 * every session whose pid file sits in the shared ~/.vnc, so the executable is what tells them apart.
 */
export function parseVncProcesses(text: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const raw of text.split('\n')) {
    const m = /^(\d+)\s+(\/\S.*)$/.exec(raw.trim());
    if (m) out.set(Number(m[1]), m[2].replace(/ \(deleted\)$/, ''));
  }
  return out;
}

// ---------------------------------------------------------------- VirtualGL eglinfo

export interface EglDeviceListed {
  /** VirtualGL's EGL device ID ("egl0"), what `vglrun -d` and VGL_DISPLAY take. */
  id: string;
  /** The DRI device behind it, when the EGL implementation reports one. */
  driPath: string | null;
}

/** `eglinfo -e` (VirtualGL ≥ 3.1): "EGL device ID: egl0 or egl, DRI device path: /dev/dri/card1" per usable device. */
export function parseEglDeviceList(text: string): EglDeviceListed[] {
  const out: EglDeviceListed[] = [];
  for (const raw of text.split('\n')) {
    const m = /^EGL device ID:\s*(egl\d+)(?: or egl)?(?:,\s*DRI device path:\s*(\S+))?\s*$/.exec(raw.trim());
    if (m) out.push({ id: m[1], driPath: m[2] ?? null });
  }
  return out;
}

export interface EglDeviceProbed extends EglDeviceListed {
  vendor: string | null;
  renderer: string | null;
}

/**
 * The probe's "egl" section: "@@listed" when `eglinfo -e` ran, its list, then "@@dev <id>" and that
 * device's `eglinfo <id> -B` header lines ("OpenGL vendor string: …", "OpenGL renderer string: …").
 * null when VirtualGL's eglinfo could not list devices (not installed, or older than 3.1).
 */
export function parseEglProbe(text: string): EglDeviceProbed[] | null {
  if (!text.includes('@@listed')) return null;
  const [list, ...blocks] = text.replace('@@listed', '').split(/^@@dev /m);
  const details = new Map<string, string>();
  for (const b of blocks) {
    const nl = b.indexOf('\n');
    details.set((nl < 0 ? b : b.slice(0, nl)).trim(), nl < 0 ? '' : b.slice(nl + 1));
  }
  return parseEglDeviceList(list).map((d) => {
    const g = parseGlxinfo(details.get(d.id) ?? '');
    return { ...d, vendor: g.vendor, renderer: g.renderer };
  });
}

// ---------------------------------------------------------------- listeners

export interface Listener {
  address: string;
  port: number;
  pid: number | null;
  process: string | null;
}

/** `ss -ltnp` (with or without header, -H). Process info appears only for the account's own sockets. */
export function parseSsListeners(text: string): Listener[] {
  const out: Listener[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('LISTEN')) continue;
    const parts = line.split(/\s+/);
    const local = parts[3];
    if (!local) continue;
    const idx = local.lastIndexOf(':');
    const port = Number(local.slice(idx + 1));
    let address = local.slice(0, idx);
    if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1);
    address = address.replace(/%.*$/, '');
    const proc = /users:\(\("([^"]*)",pid=(\d+)/.exec(line);
    if (!Number.isInteger(port)) continue;
    out.push({ address, port, pid: proc ? Number(proc[2]) : null, process: proc ? proc[1] : null });
  }
  return out;
}

function hexToIpv4(hex: string): string {
  // /proc/net/tcp stores the address as a little-endian 32-bit word.
  const b = hex.match(/../g)!.map((h) => parseInt(h, 16)).reverse();
  return b.join('.');
}

function hexToIpv6(hex: string): string {
  const words: string[] = [];
  for (let i = 0; i < 32; i += 8) {
    const le = hex.slice(i, i + 8).match(/../g)!.reverse().join('');
    words.push(le.slice(0, 4), le.slice(4, 8));
  }
  const full = words.map((w) => parseInt(w, 16).toString(16)).join(':');
  if (full === '0:0:0:0:0:0:0:0') return '::';
  if (full === '0:0:0:0:0:0:0:1') return '::1';
  const v4mapped = /^0:0:0:0:0:ffff:([0-9a-f]+):([0-9a-f]+)$/.exec(full);
  if (v4mapped) {
    const a = parseInt(v4mapped[1], 16);
    const b = parseInt(v4mapped[2], 16);
    return `::ffff:${a >> 8}.${a & 255}.${b >> 8}.${b & 255}`;
  }
  return full;
}

/** /proc/net/tcp or /proc/net/tcp6: listening sockets (state 0A). Fallback when `ss` is not installed. */
export function parseProcNetTcp(text: string): Listener[] {
  const out: Listener[] = [];
  for (const raw of text.split('\n')) {
    const f = raw.trim().split(/\s+/);
    if (f.length < 4 || !/^\d+:$/.test(f[0]) || f[3] !== '0A') continue;
    const [addrHex, portHex] = f[1].split(':');
    const address = addrHex.length === 8 ? hexToIpv4(addrHex) : hexToIpv6(addrHex);
    out.push({ address, port: parseInt(portHex, 16), pid: null, process: null });
  }
  return out;
}

/**
 * /proc/net/unix: the paths of listening Unix sockets ("Num RefCount Protocol Flags Type St Inode Path";
 * flag __SO_ACCEPTCON, 0x10000, marks a listener). Abstract sockets ("@…") are left out.
 */
export function parseProcNetUnixListening(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const f = raw.trim().split(/\s+/);
    if (f.length < 8 || !/^[0-9a-f]+:$/i.test(f[0])) continue;
    if ((parseInt(f[3], 16) & 0x10000) === 0) continue;
    const p = f.slice(7).join(' ');
    if (p.startsWith('/')) out.push(p);
  }
  return out;
}

export function isLoopbackAddress(address: string): boolean {
  const a = address.toLowerCase();
  return a.startsWith('127.') || a === '::1' || a === 'localhost' || a.startsWith('::ffff:127.');
}

// ---------------------------------------------------------------- VNC versions and start/OTP output

/**
 * `Xvnc -version`: "Xvnc TigerVNC 1.12.0 - built …" or "TurboVNC Server (Xvnc) 64-bit v3.1.1 (build 20240127)".
 */
export function parseXvncVersion(text: string): { flavor: VncFlavor; version: string } | null {
  const turbo = /TurboVNC Server \(Xvnc\)\s+\d+-bit\s+v(\d+(?:\.\d+)*)/.exec(text);
  if (turbo) return { flavor: 'turbovnc', version: turbo[1] };
  const tiger = /TigerVNC(?: Server)?\s+(?:version\s+)?v?(\d+\.\d+(?:\.\d+)?)/.exec(text);
  if (tiger) return { flavor: 'tigervnc', version: tiger[1] };
  return null;
}

/** TurboVNC `vncpasswd -o` (stderr): "Full control one-time password: 12345678". */
export function parseOtp(text: string): string | null {
  const m = /Full control one-time password:\s*(\S+)/.exec(text);
  return m ? m[1] : null;
}

/**
 * The display a `vncserver` start reports.
 * TigerVNC: "New Xtigervnc server 'host:55 (user)' on port 5955 for display :55."
 * TigerVNC ≤1.10: "New 'host:1 (user)' desktop at :1 on machine host"
 * TurboVNC: "Desktop 'TurboVNC: host:1 (user)' started on display host:1"
 */
export function parseStartedDisplay(text: string): { display: number; port: number | null } | null {
  let m = /on port (\d+) for display :(\d+)/.exec(text);
  if (m) return { display: Number(m[2]), port: Number(m[1]) };
  m = /started on display [^\s:]*:(\d+)/.exec(text);
  if (m) return { display: Number(m[1]), port: null };
  m = /desktop (?:is|at) [^\s:]*:(\d+)/.exec(text);
  if (m) return { display: Number(m[1]), port: null };
  return null;
}

// ---------------------------------------------------------------- ffmpeg's H.264 encoders (video mode)

/** The H.264 encoders video mode can use, best first: NVIDIA's NVENC, VA-API (Intel/AMD), x264 on the CPU. */
export const VIDEO_ENCODERS: readonly VideoEncoderName[] = ['h264_nvenc', 'h264_vaapi', 'libx264'];

/**
 * The encoder video mode should use on a server (a report or its app view): the first that encoded its
 * test frame, in VIDEO_ENCODERS order; null when none did.
 */
export function bestVideoEncoder(report: { video: { encoders: readonly { name: VideoEncoderName; works: boolean }[] } }): VideoEncoderName | null {
  for (const name of VIDEO_ENCODERS) if (report.video.encoders.some((e) => e.name === name && e.works)) return name;
  return null;
}

const ERROR_MAX = 200;

/** A line of the server's text made safe to show: control characters escaped, at most 200 characters. */
export function cleanErrorLine(line: string): string {
  // eslint-disable-next-line no-control-regex
  const t = line.trim().replace(/[\u0000-\u001f\u007f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return t.length > ERROR_MAX ? `${t.slice(0, ERROR_MAX - 1)}…` : t;
}

/**
 * ffmpeg's closing lines after any failure, which name no cause: "Error initializing output stream 0:0 --
 * Error while opening encoder … maybe incorrect parameters" (5.x), "[vost#0:0/h264_nvenc @ 0x…] Error
 * while opening encoder …" (6.x, 7.x), "Device creation failed: -22.", "Error parsing global options".
 */
const GENERIC_FFMPEG_LINE = new RegExp(
  [
    'Error initializing output stream', 'Error while opening encoder', 'maybe incorrect parameters', 'Error parsing global options',
    '^Device creation failed', "^Failed to set value '", 'Error opening output file', 'Error opening output files',
    'Could not open encoder before EOF', 'Terminating thread with return code', 'Task finished with error code',
    'Error sending frames to consumers', 'Nothing was written into output file', '^Conversion failed',
  ].join('|'),
);

/**
 * The line of a failed test encode's output that says why: a library that could not be loaded, else the
 * last line that is not one of ffmpeg's generic closing lines; without its "[component @ 0x…] " prefix (e.g. "Cannot load libcuda.so.1",
 * "No VA display found for device /dev/dri/renderD128.", "Unknown encoder 'h264_nvenc'"); the last
 * line when every line is generic; null for no output.
 */
export function ffmpegErrorLine(output: string): string | null {
  const lines = output.split('\n').map((l) => l.trim()).filter(Boolean);
  if (lines.length === 0) return null;
  // (The findings quote it inside their own sentence: no closing full stop of its own.)
  const strip = (l: string) => l.replace(/^\[[^\]]* @ (?:0x)?[0-9a-f]+\]\s*/i, '').replace(/\.$/, '');
  const telling = lines.map(strip).filter((l) => !GENERIC_FFMPEG_LINE.test(l));
  // A library that cannot be loaded is the cause; NVENC follows it with a driver-version hint that is not.
  return cleanErrorLine(telling.find((l) => /^Cannot load /.test(l)) ?? telling.at(-1) ?? strip(lines.at(-1)!));
}

const PCI_VENDORS: Record<string, GpuVendor> = { '0x10de': 'nvidia', '0x1002': 'amd', '0x8086': 'intel' };

/**
 * The probe's "video" section (probeScript.ts VIDEO_SECTION_SCRIPT): ffmpeg's path and version, the
 * render node and its driver, the display-class PCI devices, and each encoder's test encode: its exit
 * status (or "skip") and the last lines of its output.
 */
export function parseVideoSection(text: string, testSeconds: number): VideoInfo {
  let path: string | null = null;
  let version = '';
  let renderNode: VideoInfo['renderNode'] = null;
  const pciGpus: GpuVendor[] = [];
  const runs = new Map<string, { status: string; out: string[] }>();
  let current: { status: string; out: string[] } | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    let m: RegExpExecArray | null;
    if ((m = /^@@enc (\S+) (\S+)\s*$/.exec(line))) {
      current = { status: m[2], out: [] };
      runs.set(m[1], current);
    } else if (line.startsWith('> ') || line === '>') {
      current?.out.push(line.slice(2));
    } else if ((m = /^path (\/.*)$/.exec(line))) {
      path = m[1].trim();
    } else if ((m = /^version ?(.*)$/.exec(line))) {
      version = cleanErrorLine(m[1]);
    } else if ((m = /^render (\/dev\/dri\/\S+) ?(\S*)/.exec(line))) {
      renderNode = { path: m[1], driver: m[2] || null };
    } else if ((m = /^pci (0x[0-9a-f]{4})/i.exec(line))) {
      const v = PCI_VENDORS[m[1].toLowerCase()];
      if (v && !pciGpus.includes(v)) pciGpus.push(v);
    }
  }
  const encoders = VIDEO_ENCODERS.map((name): VideoEncoderInfo => {
    if (!path) return { name, works: false, error: 'ffmpeg is not installed' };
    const run = runs.get(name);
    if (!run) return { name, works: false, error: 'the test encode did not run' };
    if (run.status === 'skip') return { name, works: false, error: 'no /dev/dri/renderD* device' };
    if (run.status === '0') return { name, works: true, error: null };
    if (run.status === '124') return { name, works: false, error: `the test encode did not finish in ${testSeconds} s` };
    return { name, works: false, error: ffmpegErrorLine(run.out.join('\n')) ?? `ffmpeg exited with status ${run.status}` };
  });
  return {
    ffmpeg: path ? { path, version } : null,
    encoders,
    best: bestVideoEncoder({ video: { encoders } }),
    renderNode,
    pciGpus,
  };
}

// ---------------------------------------------------------------- probe script sections

export const SECTION_MARK = '@@GD:';

/** Splits the probe's output at "@@GD:<name>" lines into name → text. */
export function splitSections(output: string): Record<string, string> {
  const out: Record<string, string> = {};
  let name: string | null = null;
  let buf: string[] = [];
  for (const line of output.split('\n')) {
    if (line.startsWith(SECTION_MARK)) {
      if (name) out[name] = buf.join('\n').replace(/\n+$/, '');
      name = line.slice(SECTION_MARK.length).trim();
      buf = [];
    } else if (name) {
      buf.push(line);
    }
  }
  if (name) out[name] = buf.join('\n').replace(/\n+$/, '');
  return out;
}

// ---------------------------------------------------------------- Vulkan (vulkaninfo --summary, ICD manifests)

const VULKAN_DEVICE_TYPES: Record<string, VulkanDeviceType> = {
  PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: 'discrete',
  PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: 'integrated',
  PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: 'virtual',
  PHYSICAL_DEVICE_TYPE_CPU: 'cpu',
  PHYSICAL_DEVICE_TYPE_OTHER: 'other',
};

/**
 * A version as vulkaninfo prints it: "1.3.242" (1.3.2xx and later) or "4206834 (1.3.242)" (older
 * releases print the packed number first), and NVIDIA's driverVersion "535.104.12.0".
 */
function vulkanVersion(v: string | undefined): string | null {
  if (!v) return null;
  const m = /\((\d+\.\d+\.\d+(?:\.\d+)?)\)/.exec(v) ?? /^(\d+\.\d+\.\d+(?:\.\d+)?)$/.exec(v.trim());
  return m ? m[1] : v.trim() || null;
}

export interface VulkaninfoSummary {
  instanceVersion: string | null;
  devices: Omit<VulkanDevice, 'gpuIndex'>[];
}

/**
 * `vulkaninfo --summary`: "Vulkan Instance Version: 1.3.239", then under "Devices:" one block per
 * device, "GPU0:" followed by tab-indented "key = value" lines (apiVersion, driverVersion, vendorID,
 * deviceID, deviceType, deviceName, driverID, driverName, driverInfo, conformanceVersion, deviceUUID,
 * driverUUID). Lines before "Devices:" (extensions, layers, loader complaints) are ignored.
 */
export function parseVulkaninfoSummary(text: string): VulkaninfoSummary {
  const instanceVersion = /^Vulkan Instance Version:\s*(\S+)/m.exec(text)?.[1] ?? null;
  const devices: VulkaninfoSummary['devices'] = [];
  const at = text.search(/^Devices:\s*$/m);
  if (at < 0) return { instanceVersion, devices };
  let cur: Record<string, string> | null = null;
  let index = 0;
  const flush = () => {
    if (!cur) return;
    devices.push({
      index,
      name: cur.deviceName ?? '',
      type: VULKAN_DEVICE_TYPES[cur.deviceType ?? ''] ?? 'other',
      apiVersion: vulkanVersion(cur.apiVersion),
      driverVersion: vulkanVersion(cur.driverVersion),
      driverName: cur.driverName ?? null,
      driverInfo: cur.driverInfo ?? null,
      vendorId: cur.vendorID?.toLowerCase() ?? null,
      deviceUuid: cur.deviceUUID?.toLowerCase() ?? null,
    });
  };
  for (const raw of text.slice(at).split('\n')) {
    const line = raw.replace(/\r$/, '');
    const g = /^GPU(\d+):\s*$/.exec(line);
    if (g) {
      flush();
      cur = {};
      index = Number(g[1]);
      continue;
    }
    const kv = /^\s+(\w+)\s*=\s*(.*)$/.exec(line);
    if (kv && cur) cur[kv[1]] = kv[2].trim();
  }
  flush();
  return { instanceVersion, devices };
}

/** The line of a failed vulkaninfo's output that says why ("ERROR_INCOMPATIBLE_DRIVER", "Cannot create Vulkan instance."). */
export function vulkaninfoErrorLine(text: string): string | null {
  const lines = text.split('\n').map((l) => l.trim()).filter(Boolean).filter((l) => !/XDG_RUNTIME_DIR|^'DISPLAY' environment variable not set/.test(l));
  // The loader's own message says what is missing ("Found no drivers!"); the ERROR_… code after it does not.
  const telling = lines.find((l) => /\[Loader Message\]/.test(l)) ?? lines.find((l) => /ERROR_[A-Z_]+/.test(l)) ?? lines.find((l) => /error|cannot|failed/i.test(l)) ?? lines.at(-1);
  return telling ? cleanErrorLine(telling) : null;
}

/** nvidia-smi's "GPU-3f1c2a7e-…" and vulkaninfo's "3f1c2a7e-…" name the same GPU. */
function bareUuid(uuid: string): string {
  return uuid.trim().toLowerCase().replace(/^gpu-/, '');
}

/** A driver version in a library's file name: "/usr/lib/x86_64-linux-gnu/libGLX_nvidia.so.535.104.12" → "535.104.12". */
function libraryVersionOf(path: string | null): string | null {
  return path ? /\.so\.(\d+\.\d+(?:\.\d+)?)$/.exec(path)?.[1] ?? null : null;
}

/** The probe's "vulkan" section (probeScript.ts VULKAN_SECTION_SCRIPT) → VulkanInfo, its devices matched to nvidia-smi's GPUs. */
export function parseVulkanSection(text: string, gpus: readonly GpuInfo[], testSeconds: number): VulkanInfo {
  let loader: string | null = null;
  let icdEnv: string | null = null;
  const icds: VulkanIcd[] = [];
  const seen = new Set<string>();
  let vulkaninfo: string | null = null;
  let display: string | null = null;
  let rc: string | null = null;
  const viOut: string[] = [];
  interface IcdBlock { path: string; missing: boolean; lib: string | null | undefined; json: string[] }
  let block: IcdBlock | null = null;
  let inVi = false;
  const blocks: IcdBlock[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    let m: RegExpExecArray | null;
    if ((m = /^@@icd (.+)$/.exec(line))) {
      block = { path: m[1].trim(), missing: false, lib: undefined, json: [] };
      blocks.push(block);
      inVi = false;
    } else if ((m = /^@@vi (.+)$/.exec(line))) {
      block = null;
      inVi = true;
      const f = m[1].trim().split(/\s+/);
      if (f[0] !== 'absent') {
        vulkaninfo = f[0];
        display = f[1] && f[1] !== '-' ? f[1] : null;
        rc = f[2] ?? null;
      }
    } else if (line.startsWith('> ') || line === '>') {
      if (inVi) viOut.push(line.slice(2));
      else block?.json.push(line.slice(2));
    } else if (block && line === 'missing') {
      block.missing = true;
    } else if (block && (m = /^lib (.+)$/.exec(line))) {
      block.lib = m[1].trim() === '-' ? null : m[1].trim();
    } else if (!block && !inVi && (m = /^loader (\/.+)$/.exec(line))) {
      loader = m[1].trim();
    } else if (!block && !inVi && (m = /^icdenv (.+)$/.exec(line))) {
      icdEnv = m[1].trim();
    }
  }
  for (const b of blocks) {
    if (seen.has(b.path)) continue;
    seen.add(b.path);
    if (b.missing) {
      icds.push({ path: b.path, libraryPath: null, library: null, apiVersion: null, nvidia: false, libraryVersion: null, error: 'no such file' });
      continue;
    }
    let libraryPath: string | null = null;
    let apiVersion: string | null = null;
    let error: string | null = null;
    try {
      const j = JSON.parse(b.json.join('\n')) as { ICD?: { library_path?: unknown; api_version?: unknown } };
      libraryPath = typeof j.ICD?.library_path === 'string' ? j.ICD.library_path : null;
      apiVersion = typeof j.ICD?.api_version === 'string' ? j.ICD.api_version : null;
      if (!libraryPath) error = 'it names no library_path';
    } catch {
      error = 'it is not valid JSON';
    }
    const library = b.lib ?? null;
    const nvidia = /libGLX_nvidia|libnvidia-vulkan/i.test(libraryPath ?? '') || /libGLX_nvidia|libnvidia-vulkan/i.test(library ?? '');
    icds.push({ path: b.path, libraryPath, library, apiVersion, nvidia, libraryVersion: nvidia ? libraryVersionOf(library) : null, error });
  }
  const out = viOut.join('\n');
  const summary = parseVulkaninfoSummary(out);
  const byUuid = new Map(gpus.map((g) => [bareUuid(g.uuid), g.index]));
  const devices = summary.devices.map((d) => ({ ...d, gpuIndex: d.deviceUuid ? byUuid.get(bareUuid(d.deviceUuid)) ?? null : null }));
  let error: string | null = null;
  if (vulkaninfo && devices.length === 0) {
    error = rc === '124' ? `vulkaninfo did not finish in ${testSeconds} s` : vulkaninfoErrorLine(out) ?? `vulkaninfo exited with status ${rc ?? '?'}`;
  }
  return { loader, icdEnv, icds, vulkaninfo, display, instanceVersion: summary.instanceVersion, devices, error };
}

// ---------------------------------------------------------------- X clipboard tools (image copy and paste)

/** The probe's "clip" section: one line per tool found on PATH, of xclip and xsel. */
export function parseClipboardTools(section: string): ClipboardTools {
  const found = new Set(section.split('\n').map((l) => l.trim()));
  return { xclip: found.has('xclip'), xsel: found.has('xsel') };
}
