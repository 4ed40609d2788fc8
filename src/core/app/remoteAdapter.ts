import { parseNvidiaSmiCsv } from '../remote/parsers';
import { applyPlan, buildSetupPlan, killSession, listSessions, newOneTimePassword, probeServer, sessionEndpoint, shellCommand, startSession } from '../remote';
import type { RemoteOps } from './remoteOps';

const GPU_QUERY = ['nvidia-smi', '--query-gpu=index,name,uuid,memory.total,memory.used,utilization.gpu,driver_version', '--format=csv,noheader,nounits'];

export interface RemoteAdapterOptions {
  /** Install prefix of VirtualGL/TurboVNC (default /opt). */
  optRoot?: string;
}

/** src/core/remote behind the app's RemoteOps seam. */
export function remoteOps(opts: RemoteAdapterOptions = {}): RemoteOps {
  const optRoot = opts.optRoot;
  return {
    probe: (s) => probeServer(s, { optRoot }),
    // One cheap nvidia-smi call: the GPU cards poll it about once a second over the open connection.
    gpus: async (s) => {
      const r = await s.exec(`command -v nvidia-smi >/dev/null 2>&1 && ${shellCommand(GPU_QUERY)}`, { timeoutMs: 10_000 });
      return r.code === 0 ? parseNvidiaSmiCsv(r.stdout) : [];
    },
    listSessions: (s) => listSessions(s, { optRoot }),
    startSession: (s, o) => startSession(s, { ...o, optRoot }),
    killSession: (s, display) => killSession(s, display, { optRoot }),
    oneTimePassword: (s, display) => newOneTimePassword(s, display, { optRoot }),
    endpoint: (s, display) => sessionEndpoint(s, display, { optRoot }),
    plan: async (s, o) => buildSetupPlan(await probeServer(s, { optRoot }), { optRoot, ...o }),
    apply: (s, plan, o) => applyPlan(s, plan, { sudoPassword: o.sudoPassword ?? undefined, onProgress: o.onProgress }),
  };
}
