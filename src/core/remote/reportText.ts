import type { Finding, ServerReport, VncSessionInfo } from './types';

/** A server report as plain text for a terminal: facts first, then what is wrong and how to fix it. */

const SEVERITY_MARK: Record<Finding['severity'], string> = { error: 'error  ', warning: 'warning', info: 'info   ' };

export function sessionLine(s: VncSessionInfo): string {
  const where = s.localhostOnly === true ? (s.unixPath && s.listenAddresses.length === 0 ? 'no TCP port' : 'localhost only') : s.localhostOnly === false ? `OPEN TO THE NETWORK (${s.listenAddresses.join(', ')})` : 'listening address unknown';
  const on = s.unixPath ? `socket ${s.unixPath}` : `port ${s.port ?? '?'}`;
  return `:${s.display}  ${on}  ${s.flavor === 'turbovnc' ? 'TurboVNC' : 'TigerVNC'}  pid ${s.pid ?? '?'}  ${where}`;
}

export function formatReport(r: ServerReport): string {
  const out: string[] = [];
  const sudo = { root: 'logged in as root', passwordless: 'sudo without password', password: 'sudo with password', unknown: 'sudo rights unknown', absent: 'no sudo' }[r.sudo];
  out.push(`${r.host} — ${r.os.prettyName || 'unknown OS'} (${r.arch}), user ${r.user}, ${sudo}`);
  if (r.gpus.length) {
    out.push(`GPUs (driver ${r.nvidia.driverVersion}):`);
    for (const g of r.gpus) {
      const mem = g.memoryTotalMiB !== null ? `${Math.round(g.memoryTotalMiB / 1024)} GiB, ${g.memoryUsedMiB ?? '?'} MiB used` : 'memory unknown';
      out.push(`  ${g.index}  ${g.name}  (${mem}, ${g.utilizationPct ?? '?'}% busy)`);
    }
  } else {
    out.push(`GPUs: none found${r.nvidia.driverLoaded ? ' (driver loaded, nvidia-smi failed)' : ''}`);
  }
  const v = r.virtualgl;
  out.push(`VirtualGL: ${v.installed ? `${v.version ?? 'installed'}${v.hasEglBackend ? '' : ' (no EGL back end)'} — EGL: ${v.eglUsable ? 'yes, ' : 'no, '}${v.eglReason}` : 'not installed'}`);
  for (const d of v.eglDevices) {
    const kind = d.kind === 'software' ? 'software renderer (CPU)' : d.kind === 'gpu' ? `GPU (${d.gpuVendor === 'nvidia' ? 'NVIDIA' : d.gpuVendor === 'amd' ? 'AMD' : 'Intel'})` : 'unknown device';
    out.push(`  EGL device ${d.id}${d.driPath ? ` (${d.driPath})` : ''}: ${d.renderer ?? 'renderer unknown'} — ${kind}${d.id === v.eglDevice ? ', used for sessions' : ''}`);
  }
  const x = r.xserver;
  out.push(`3D X server :0: ${!x.running ? 'none' : x.renderer ? `${x.renderer}${x.softwareRenderer ? ' (software)' : ''}` : `running, not usable (${x.error ?? 'no access'})`}`);
  out.push(`VNC server: ${r.vnc.flavor ? `${r.vnc.flavor === 'turbovnc' ? 'TurboVNC' : 'TigerVNC'} ${r.vnc.version ?? ''}`.trim() : 'none'}`);
  out.push(`Window managers: ${r.windowManagers.length ? r.windowManagers.join(', ') : 'none'}`);
  const video = r.video;
  if (!video.ffmpeg) out.push('Video encoder: none (no ffmpeg)');
  else {
    const failed = video.encoders.filter((e) => !e.works).map((e) => `${e.name}: ${e.error ?? 'failed'}`);
    out.push(`Video encoder: ${video.best ?? 'none works'} (${video.ffmpeg.path})${failed.length ? ` — ${failed.join('; ')}` : ''}`);
  }
  const vk = r.vulkan;
  const vkType = { discrete: 'GPU', integrated: 'integrated GPU', virtual: 'virtual GPU', cpu: 'software, on the CPU', other: 'other device' } as const;
  if (!vk.loader) out.push('Vulkan: no loader (libvulkan.so.1)');
  else if (!vk.vulkaninfo) out.push(`Vulkan: loader ${vk.loader}; devices unknown (vulkaninfo is not installed)`);
  else if (vk.devices.length === 0) out.push(`Vulkan: no device (${vk.error ?? 'none listed'})`);
  else {
    out.push(`Vulkan (${vk.display ? `in display ${vk.display}` : 'no display'}):`);
    for (const d of vk.devices) {
      out.push(`  ${d.index}  ${d.name} — ${vkType[d.type]}${d.apiVersion ? `, Vulkan ${d.apiVersion}` : ''}${d.driverInfo ? `, ${d.driverName ?? 'driver'} ${d.driverInfo}` : ''}${d.gpuIndex !== null ? `, nvidia-smi GPU ${d.gpuIndex}` : ''}`);
    }
  }
  out.push(`Sessions: ${r.sessions.length ? '' : 'none'}`);
  for (const s of r.sessions) out.push(`  ${sessionLine(s)}`);
  out.push('');
  if (r.findings.length === 0) {
    out.push('No problems found: this server is ready for GPU desktops.');
  } else {
    out.push('Findings:');
    for (const f of r.findings) {
      out.push(`  ${SEVERITY_MARK[f.severity]}  ${f.message}`);
      out.push(`           Fix: ${f.fix}`);
    }
  }
  return out.join('\n');
}
