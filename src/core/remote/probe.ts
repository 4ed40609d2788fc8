import { GpuDeskError } from '../errors';
import type { SshSession } from '../ssh/types';
import { computeFindings } from './findings';
import {
  driverMajor,
  isLoopbackAddress,
  parseGlxinfo,
  parseNvidiaProcVersion,
  parseOsRelease,
  parseProcNetTcp,
  parseEglProbe,
  parseSsListeners,
  parseVideoSection,
  parseVulkanSection,
  parseXvncVersion,
  splitSections,
  isSoftwareRenderer,
  type EglDeviceProbed,
  parseClipboardTools,
} from './parsers';
import { parseGpuInfoCsv } from './gpuFigures';
import { buildProbeCommand, buildVideoProbeCommand, VIDEO_TEST_SECONDS, VULKANINFO_SECONDS } from './probeScript';
import { sessionsFromSections } from './sessionTable';
import type {
  DeviceNode,
  DriDevice,
  ReachInfo,
  UserInstallInfo,
  EglDevice,
  GpuVendor,
  ServerReport,
  SudoState,
  VirtualGLInfo,
  VncFlavor,
  VideoInfo,
  VncInfo,
  XServerInfo,
} from './types';

export interface ProbeOptions {
  /** Install prefix holding VirtualGL/ and TurboVNC/ (default /opt). */
  optRoot?: string;
  timeoutMs?: number;
}

export { bestVideoEncoder } from './parsers';

/** Probe a server over an open connection: one remote script, no root, a few seconds at most. */
export async function probeServer(session: SshSession, opts: ProbeOptions = {}): Promise<ServerReport> {
  const started = Date.now();
  const res = await session.exec(buildProbeCommand(opts.optRoot ?? '/opt'), { timeoutMs: opts.timeoutMs ?? 30_000 });
  const sections = splitSections(res.stdout);
  if (!('end' in sections)) {
    const why = (res.stderr || res.stdout).trim().split('\n')[0]?.slice(0, 200) || `exit status ${res.code}`;
    throw new GpuDeskError(
      'REMOTE_COMMAND_FAILED',
      `The server probe did not finish (${why})`,
      'Check that the account has a POSIX shell (sh) and try again',
    );
  }
  return buildReport(sections, session.endpoint.host, Date.now() - started);
}

/** Just the probe's video section: which H.264 encoders encode a frame on this machine (video mode's start). */
export async function probeVideo(session: SshSession): Promise<VideoInfo> {
  const res = await session.exec(buildVideoProbeCommand(), { timeoutMs: 30_000 });
  const sections = splitSections(res.stdout);
  if (!('end' in sections)) throw new GpuDeskError('REMOTE_COMMAND_FAILED', 'The video encoder check did not finish', 'Check that the account has a POSIX shell (sh) and try again');
  return parseVideoSection(sections.video ?? '', VIDEO_TEST_SECONDS);
}

/** Where VirtualGL/ and TurboVNC/ live on the server (default /opt, where their packages install; tests point it elsewhere to stand for a server without them). */
export function remoteOptRootFrom(env: Record<string, string | undefined>): string {
  return env.GPU_DESK_REMOTE_OPT_ROOT || '/opt';
}

/** Pure: the probe script's sections → a ServerReport with findings. Exported for fixture tests. */
export function buildReport(s: Record<string, string>, host: string, probeMs = 0): ServerReport {
  const lines = (name: string) => (s[name] ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  const [arch = '', kernel = '', nodeName = ''] = lines('uname');
  const [user = '', uidText = '', groupText = ''] = lines('id');
  const groups = groupText.split(/\s+/).filter(Boolean);
  const sudoLine = lines('sudo')[0];
  const sudo: SudoState = (['root', 'passwordless', 'password', 'unknown', 'absent'] as const).find((x) => x === sudoLine) ?? 'absent';

  const smiText = s.nvsmi ?? '';
  const smiInstalled = !smiText.includes('@@absent');
  const smiRc = /@@rc=(\d+)/.exec(smiText);
  const smiOk = smiInstalled && smiRc?.[1] === '0';
  const gpus = smiOk ? parseGpuInfoCsv(smiText.replace(/@@rc=\d+/, '')) : [];
  const procVersion = parseNvidiaProcVersion(s.nvproc ?? '');
  const smiError = smiInstalled && !smiOk
    ? smiText.replace(/@@rc=\d+/, '').trim().split('\n')[0]?.slice(0, 300) || `nvidia-smi exited with status ${smiRc?.[1] ?? '?'}`
    : null;
  const nvidia = {
    smiInstalled,
    driverLoaded: procVersion !== null || gpus.length > 0,
    driverVersion: gpus[0]?.driverVersion ?? procVersion,
    smiError,
  };

  const dri: DriDevice[] = lines('dri').map((l) => {
    const [path, access, group, pci] = l.split(/\s+/);
    return {
      path, kind: path.includes('renderD') ? 'render' : 'card', group: group && group !== '-' ? group : null, accessible: access === 'rw',
      pciAddress: pci && /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$/i.test(pci) ? pci.toLowerCase() : null,
    };
  });

  const virtualgl = vglInfo(lines('vgl'), parseEglProbe(s.egl ?? ''), groups, user, nvidia.driverLoaded, nvidia.driverVersion, dri);
  const xserver = xInfo(s.x0 ?? '');
  const vnc = vncInfo(s.turbo ?? '', s.tiger ?? '');
  const listeners = (s.listen ?? '').includes('@@proc') ? parseProcNetTcp(s.listen ?? '') : parseSsListeners(s.listen ?? '');
  const sessions = sessionsFromSections(s, vnc.turbovnc.binDir);

  const ownPorts = new Set(sessions.map((x) => x.port));
  const exposed = new Map<number, Set<string>>();
  for (const l of listeners) {
    if (l.port < 5900 || l.port > 5999 || ownPorts.has(l.port) || isLoopbackAddress(l.address)) continue;
    exposed.set(l.port, (exposed.get(l.port) ?? new Set()).add(l.address));
  }
  const exposedVncPorts = [...exposed].sort((a, b) => a[0] - b[0]).map(([port, a]) => ({ port, display: port - 5900, addresses: [...a] }));

  const partial: Omit<ServerReport, 'findings'> = {
    host: nodeName || host,
    user,
    uid: /^\d+$/.test(uidText) ? Number(uidText) : null,
    groups,
    os: parseOsRelease(s.os ?? ''),
    arch,
    kernel,
    sudo,
    nvidia,
    gpus,
    dri,
    virtualgl,
    xserver,
    vnc,
    sessions,
    exposedVncPorts,
    windowManagers: lines('wm'),
    displayManager: lines('dm')[0] ?? null,
    ...('clip' in s ? { clipboardTools: parseClipboardTools(s.clip) } : {}),
    probeMs,
    video: parseVideoSection(s.video ?? '', VIDEO_TEST_SECONDS),
    vulkan: parseVulkanSection(s.vulkan ?? '', gpus, VULKANINFO_SECONDS),
    ...('userinstall' in s ? { userInstall: userInstallInfo(lines('userinstall'), vnc.turbovnc.binDir, virtualgl.binDir) } : {}),
    ...('devnodes' in s ? { deviceNodes: lines('devnodes').map(deviceNode) } : {}),
    ...('reach' in s ? { reach: reachInfo(lines('reach')) } : {}),
  };
  return { ...partial, findings: computeFindings(partial) };
}

function userInstallInfo(l: string[], turboBin: string | null, vglBin: string | null): UserInstallInfo {
  const val = (k: string) => l.find((x) => x.startsWith(`${k} `))?.slice(k.length + 1).trim() ?? null;
  const current = val('current');
  const systemTurbovnc = val('system-turbovnc');
  const systemVirtualgl = val('system-virtualgl');
  // Whatever is not under the install in the home (/opt, or a vglrun found on PATH) is the system's.
  const from = (bin: string | null): 'system' | 'user' | null => (!bin ? null : current && bin.startsWith(`${current}/`) ? 'user' : 'system');
  return {
    base: val('base'),
    current,
    installs: l.filter((x) => x.startsWith('install ')).map((x) => x.slice(8).trim()),
    systemTurbovnc,
    systemVirtualgl,
    sessionsUse: { turbovnc: from(turboBin), virtualgl: from(vglBin) },
  };
}

function deviceNode(l: string): DeviceNode {
  const [path, access, group] = l.split(/\s+/);
  return { path, accessible: access === 'rw', group: group && group !== '-' ? group : null };
}

/** curl/wget exit status 0: the host answered; 127 or "none": nothing to ask with. */
function reachInfo(l: string[]): ReachInfo {
  const ok = (rc: string | undefined) => (rc === undefined || rc === 'none' || rc === '127' ? null : rc === '0');
  const up = l.find((x) => x.startsWith('upstream '))?.split(/\s+/)[1];
  const m = l.find((x) => x.startsWith('mirror '))?.split(/\s+/);
  return { upstream: ok(up), mirror: m?.[1] ?? null, mirrorReachable: m ? ok(m[2]) : null };
}

function classifyEglDevice(d: EglDeviceProbed): EglDevice {
  const both = `${d.vendor ?? ''} ${d.renderer ?? ''}`;
  const gpuVendor: GpuVendor | null = /nvidia/i.test(both) ? 'nvidia' : /\bamd\b|radeon|ati technologies/i.test(both) ? 'amd' : /intel/i.test(both) ? 'intel' : null;
  const kind = isSoftwareRenderer(d.renderer) ? 'software' : gpuVendor ? 'gpu' : 'unknown';
  return { ...d, kind, gpuVendor: kind === 'software' ? null : gpuVendor };
}

function vglInfo(
  l: string[],
  probed: EglDeviceProbed[] | null,
  groups: string[],
  user: string,
  driverLoaded: boolean,
  driverVersion: string | null,
  dri: DriDevice[],
): VirtualGLInfo {
  const bin = l.find((x) => x.startsWith('bin '))?.slice(4) ?? null;
  const version = l.find((x) => x.startsWith('version '))?.slice(8).replace(/^\d+:/, '').replace(/[-~].*$/, '') ?? null;
  const hasEglBackend = l.includes('eglinfo') || (driverMajor(version) ?? 0) >= 3;
  const vglusersGroup = l.includes('group');
  const userInVglusers = groups.includes('vglusers');
  const eglDevices = bin && hasEglBackend && probed ? probed.map(classifyEglDevice) : [];
  // A GPU first; a device of unknown make before the CPU rasteriser.
  const chosen = eglDevices.find((d) => d.kind === 'gpu') ?? eglDevices.find((d) => d.kind === 'unknown') ?? eglDevices[0] ?? null;
  const cards = dri.filter((d) => d.kind === 'card');
  let eglReason: string;
  let eglUsable = false;
  if (!bin) eglReason = 'VirtualGL is not installed';
  else if (!hasEglBackend) eglReason = 'this VirtualGL is older than 3.0 and has no EGL back end';
  else if (chosen) {
    eglUsable = true;
    const what = chosen.renderer ? ` (${chosen.renderer})` : '';
    eglReason = chosen.kind === 'software'
      ? `renders on ${chosen.id}${what}, a software renderer: on the CPU, not a GPU`
      : `renders on ${chosen.id}${what}${chosen.driPath ? ` through ${chosen.driPath}` : ''}`;
  } else if (!driverLoaded) eglReason = 'no GPU driver offers an EGL device (no NVIDIA driver is loaded)';
  else if ((driverMajor(driverVersion) ?? 0) < 450) eglReason = `NVIDIA driver ${driverVersion ?? '?'} is too old for EGL device rendering (450 or newer)`;
  else if (cards.length === 0) eglReason = 'no /dev/dri/card* device (the nvidia-drm kernel module is not loaded)';
  else if (!cards.some((c) => c.accessible)) eglReason = `${user || 'this account'} cannot open ${cards[0].path} (add it to the vglusers group)`;
  else if (probed) eglReason = 'VirtualGL\'s eglinfo -e lists no EGL device for this account';
  else {
    // An eglinfo without -e (VirtualGL 3.0): judge by the NVIDIA driver and its card, as VirtualGL documents.
    eglUsable = true;
    eglReason = `renders through ${cards.find((c) => c.accessible)!.path}`;
  }
  const eglDevice = chosen?.id ?? (eglUsable ? 'egl' : null);
  return { installed: bin !== null, version, binDir: bin, hasEglBackend, vglusersGroup, userInVglusers, eglDevices, eglDevice, eglUsable, eglReason };
}

function xInfo(text: string): XServerInfo {
  const running = text.includes('@@running');
  if (!running) {
    return { running: false, accessible: false, renderer: null, vendor: null, glVersion: null, directRendering: null, softwareRenderer: false, error: null };
  }
  if (text.includes('@@noglxinfo')) {
    return { running, accessible: false, renderer: null, vendor: null, glVersion: null, directRendering: null, softwareRenderer: false, error: 'glxinfo is not installed' };
  }
  const g = parseGlxinfo(text.replace('@@running', ''));
  return { running, accessible: g.renderer !== null, ...g };
}

function vncInfo(turboText: string, tigerText: string): VncInfo {
  const turboBin = /^bin (.+)$/m.exec(turboText)?.[1]?.trim() ?? null;
  const turboVer = parseXvncVersion(turboText);
  const tigerVer = parseXvncVersion(tigerText);
  const tigerInstalled = tigerVer?.flavor === 'tigervnc';
  const turbovnc = { installed: turboBin !== null, version: turboVer?.flavor === 'turbovnc' ? turboVer.version : null, binDir: turboBin };
  const tigervnc = { installed: tigerInstalled, version: tigerInstalled ? tigerVer!.version : null };
  let flavor: VncFlavor | null = null;
  if (turbovnc.installed) flavor = 'turbovnc';
  else if (tigervnc.installed) flavor = 'tigervnc';
  return {
    flavor,
    version: flavor === 'turbovnc' ? turbovnc.version : flavor === 'tigervnc' ? tigervnc.version : null,
    vncserverPath: flavor === 'turbovnc' ? `${turboBin}/vncserver` : flavor === 'tigervnc' ? 'vncserver' : null,
    turbovnc,
    tigervnc,
  };
}
