import type { GpuInfo, ServerReport, VncSessionInfo, SetupPlan, ApplyResult, PlanProgress } from '../remote/types';
import type { GpuFigures } from '../remote/gpuFigures';
import type { GpuFiguresView, GpuView, CertificateView, KeyView, ServerReportView, SetupPlanView, SetupProgress, SetupResultView, VncSessionView } from '../../shared/models';
import { certificateProblem, readCertificateFile } from '../ssh/certificate';
import type { KeyRecord } from '../profiles/schema';
import { redactSecrets } from '../errors';

/** Core values → the renderer's view models (explicit, so a core field rename breaks the build here). */
export function gpuView(g: GpuInfo): GpuView {
  return {
    index: g.index, name: g.name, uuid: g.uuid, memoryTotalMiB: g.memoryTotalMiB, memoryUsedMiB: g.memoryUsedMiB,
    utilizationPct: g.utilizationPct, driverVersion: g.driverVersion,
  };
}

export function gpuFiguresView(g: GpuFigures): GpuFiguresView {
  return {
    index: g.index, name: g.name, uuid: g.uuid, memoryTotalMiB: g.memoryTotalMiB, memoryUsedMiB: g.memoryUsedMiB,
    utilizationPct: g.utilizationPct, driverVersion: g.driverVersion, temperatureC: g.temperatureC, powerDrawW: g.powerDrawW,
    powerLimitW: g.powerLimitW, encoderPct: g.encoderPct, decoderPct: g.decoderPct,
  };
}

export function sessionView(s: VncSessionInfo): VncSessionView {
  return { display: s.display, port: s.port, unixPath: s.unixPath, pid: s.pid, flavor: s.flavor, localhostOnly: s.localhostOnly, ...(s.renderGpu !== undefined ? { renderGpu: s.renderGpu } : {}) };
}

export function reportView(r: ServerReport): ServerReportView {
  return {
    host: r.host,
    user: r.user,
    os: { prettyName: r.os.prettyName, arch: r.arch, kernel: r.kernel, supported: r.os.distro !== null },
    sudo: r.sudo,
    nvidia: { driverVersion: r.nvidia.driverVersion, smiError: r.nvidia.smiError },
    gpus: r.gpus.map(gpuView),
    virtualgl: { installed: r.virtualgl.installed, version: r.virtualgl.version, eglUsable: r.virtualgl.eglUsable, eglReason: r.virtualgl.eglReason, eglDevice: r.virtualgl.eglDevice ?? null },
    xserver: { running: r.xserver.running, renderer: r.xserver.renderer, softwareRenderer: r.xserver.softwareRenderer },
    vnc: { flavor: r.vnc.flavor, version: r.vnc.version },
    sessions: r.sessions.map(sessionView),
    windowManagers: r.windowManagers,
    displayManager: r.displayManager,
    findings: r.findings.map((f) => ({ severity: f.severity, code: f.code, message: f.message, fix: f.fix, ...(f.text ? { text: f.text } : {}) })),
    probeMs: r.probeMs,
    video: {
      ffmpeg: r.video.ffmpeg ? { path: r.video.ffmpeg.path, version: r.video.ffmpeg.version } : null,
      encoders: r.video.encoders.map((e) => ({ name: e.name, works: e.works, error: e.error })),
      best: r.video.best,
    },
    vulkan: {
      loader: r.vulkan.loader,
      vulkaninfo: r.vulkan.vulkaninfo !== null,
      devices: r.vulkan.devices.map((d) => ({ name: d.name, type: d.type, apiVersion: d.apiVersion, driverInfo: d.driverInfo, gpuIndex: d.gpuIndex })),
      error: r.vulkan.error,
    },
  };
}

export function planView(p: SetupPlan): SetupPlanView {
  return {
    distro: p.distro,
    backend: p.backend,
    // A core step is the view's own type (PlanStep = SetupStepView): no field to translate.
    steps: p.steps,
    notes: p.notes,
    ...(p.noteTexts ? { noteTexts: p.noteTexts } : {}),
  };
}

export function progressView(runId: string, p: PlanProgress): SetupProgress {
  switch (p.type) {
    case 'step-check': return { runId, stepId: p.stepId, status: 'checking' };
    case 'step-skip': return { runId, stepId: p.stepId, status: 'skipped' };
    case 'step-start': return { runId, stepId: p.stepId, status: 'running' };
    case 'output': return { runId, stepId: p.stepId, status: 'running', output: redactSecrets(p.text) };
    case 'step-done': return { runId, stepId: p.stepId, status: 'done' };
    case 'step-failed': return { runId, stepId: p.stepId, status: 'failed', message: redactSecrets(p.message) };
  }
}

export function resultView(r: ApplyResult): SetupResultView {
  return {
    ok: r.ok,
    steps: r.steps.map((s) => ({ id: s.id, status: s.status, ms: s.ms, output: redactSecrets(s.output) })),
    ...(r.error ? { error: { code: r.error.code, message: redactSecrets(r.error.message), ...(r.error.fix ? { fix: r.error.fix } : {}), ...(r.error.stepId ? { stepId: r.error.stepId } : {}) } } : {}),
  };
}

export function keyView(k: KeyRecord): KeyView {
  return { name: k.name, type: k.type, fingerprint: k.fingerprint, publicKey: k.publicKey, comment: k.comment, source: k.source, createdAt: k.createdAt, installedOn: k.installedOn ?? [], certificate: certificateView(k) };
}

/** The key's certificate as it is on disk now (renewed ones included); its problem when unreadable or out of date. */
export function certificateView(k: KeyRecord): CertificateView | null {
  if (!k.certificateFile) return null;
  const base = { file: k.certificateFile, keyId: '', principals: [] as string[], validAfter: null, validBefore: null };
  try {
    const c = readCertificateFile(k.certificateFile);
    if (!c) return { ...base, problem: `${k.certificateFile} is gone` };
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    return { file: c.file, keyId: c.keyId, principals: c.principals, validAfter: iso(c.validAfter), validBefore: iso(c.validBefore), problem: certificateProblem(c) };
  } catch (e) {
    return { ...base, problem: (e as Error).message };
  }
}
