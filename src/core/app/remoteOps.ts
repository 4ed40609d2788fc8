import type { SFTPWrapper } from 'ssh2';
import type { SshSession } from '../ssh/types';
import { queryGpus } from '../remote/gpuFigures';
import { applyPlan, checkPlan } from '../remote/planRunner';
import { reviewPlan, type PlanReview } from '../remote/planReview';
import { probeServer, remoteOptRootFrom } from '../remote/probe';
import { buildSetupPlan } from '../remote/setupPlan';
import { userInstallPackages, wantsUserInstall } from '../remote/userInstall';
import { carryUserPackages, type CarryTransfer } from '../remote/userInstallCarry';
import { carryDistPackages, distCarrySteps, wantsDistCarry } from '../remote/userDepsCarry';
import { displayEndpoint, killSession, listSessions, newOneTimePassword, startSession, type SessionEndpoint } from '../remote/vncSessions';
import type { ApplyResult, PlanProgress, ServerReport, SetupPlan, StartedSession, VncSessionInfo, GpuInfo } from '../remote/types';

/** The plan's choices made in the app's set-up step (a package mirror, unverified packages allowed). */
export interface SetupOptions {
  packagesFrom?: string;
  allowUnverified?: boolean;
  /** Desktop to install when the server has none. */
  windowManager?: 'xfce' | 'openbox';
  /** Install into the account's home with no root (src/core/remote/userInstall.ts); undefined: chosen by itself where the account has no sudo (wantsUserInstall, as the CLI). */
  userInstall?: boolean;
}

/**
 * A plan as the app keeps it between review and apply: where the server cannot reach GitHub (the probe's
 * `reach`) and no mirror was given, `carry` holds what carryUserPackages needs, so apply brings the
 * packages from the desk first, as `gpu-desk setup` does.
 */
export type AppSetupPlan = SetupPlan & {
  carry?: Pick<ServerReport, 'arch' | 'os'> & { allowUnverified: boolean };
  /** Where the server cannot reach its distribution's mirror: the desk carries those packages too (userDepsCarry.ts). */
  carryDist?: Pick<ServerReport, 'os'>;
  /** Each step's check when the plan was made, why it runs, and whether a sudo password will be needed. */
  review?: PlanReview;
};

/** A session that also opens SFTP (the app's SshConnection): the carried packages go over it. */
export type SftpSession = SshSession & { sftp(): Promise<SFTPWrapper> };

/**
 * What the app needs from src/core/remote (issue 3's probe, plan and sessions), as one seam so the
 * app's services stay thin and the harness and Electron share them.
 */
export interface RemoteOps {
  probe(s: SshSession): Promise<ServerReport>;
  gpus(s: SshSession): Promise<GpuInfo[]>;
  listSessions(s: SshSession): Promise<VncSessionInfo[]>;
  startSession(s: SshSession, opts: { display?: number; geometry?: string; windowManager?: string; transport?: 'unix' | 'tcp'; gpu?: number }): Promise<StartedSession>;
  killSession(s: SshSession, display: number): Promise<void>;
  /** TurboVNC: a fresh one-time password for a running session (each works for one connection). */
  oneTimePassword(s: SshSession, display: number): Promise<string>;
  /** Where display :n is reached on the server: the session's Unix socket, else its TCP port. */
  endpoint(s: SshSession, display: number): Promise<SessionEndpoint>;
  plan(s: SshSession, opts?: SetupOptions): Promise<AppSetupPlan>;
  /** fromStepId: a retry after a failure runs from that step on (the steps before it finished). */
  apply(s: SftpSession, plan: AppSetupPlan, opts: { sudoPassword: string | null; fromStepId?: string; onProgress(p: PlanProgress): void; onTransfer?(t: CarryTransfer): void }): Promise<ApplyResult>;
}

export interface RemoteOpsOptions {
  /** Install prefix of VirtualGL/TurboVNC on the server (default: GPU_DESK_REMOTE_OPT_ROOT, else /opt, as the CLI reads it). */
  optRoot?: string;
}

/** src/core/remote behind the app's seam: the same functions, and the same opt root, as the CLI's commands. */
export function remoteOps(opts: RemoteOpsOptions = {}): RemoteOps {
  const optRoot = opts.optRoot ?? remoteOptRootFrom(process.env);
  return {
    probe: (s) => probeServer(s, { optRoot }),
    // One cheap nvidia-smi call: the GPU cards poll it about once a second over the open connection.
    gpus: (s) => queryGpus(s),
    listSessions: (s) => listSessions(s, { optRoot }),
    startSession: (s, o) => startSession(s, { ...o, optRoot }),
    killSession: (s, display) => killSession(s, display, { optRoot }),
    oneTimePassword: (s, display) => newOneTimePassword(s, display, { optRoot }),
    endpoint: (s, display) => displayEndpoint(s, display, { optRoot }),
    plan: async (s, o = {}) => {
      const report = await probeServer(s, { optRoot });
      const userInstall = wantsUserInstall(report, o.userInstall);
      const built = buildSetupPlan(report, { optRoot, ...o, userInstall });
      const plan: AppSetupPlan = { ...built, review: await reviewPlan(s, built, report, optRoot) };
      const withDist: AppSetupPlan = userInstall && wantsDistCarry(report, false) ? { ...plan, carryDist: { os: report.os } } : plan;
      return userInstall && report.reach?.upstream === false && !o.packagesFrom ? { ...withDist, carry: { arch: report.arch, os: report.os, allowUnverified: o.allowUnverified ?? false } } : withDist;
    },
    apply: async (s, plan, o) => {
      if (plan.carry) {
        // Only the packages of steps still to do: a second apply uploads nothing the home already has.
        const status = await checkPlan(s, plan);
        const [tPkg, vPkg] = userInstallPackages(plan.carry);
        const assets = plan.steps.filter((st) => status[st.id] === 'pending' && (st.id === 'user-turbovnc' || st.id === 'user-virtualgl'))
          .map((st) => (st.id === 'user-turbovnc' ? tPkg.asset : vPkg.asset));
        if (assets.length > 0) await carryUserPackages(s, plan.carry, { assets, allowUnverified: plan.carry.allowUnverified, onProgress: o.onProgress, onTransfer: o.onTransfer });
      }
      if (plan.carryDist) {
        const status = await checkPlan(s, plan);
        const steps = distCarrySteps(plan.steps.filter((st) => status[st.id] === 'pending').map((st) => st.id));
        if (steps.length > 0) await carryDistPackages(s, plan.carryDist, { stepIds: steps, onProgress: o.onProgress });
      }
      const from = o.fromStepId ? plan.steps.findIndex((st) => st.id === o.fromStepId) : -1;
      const only = from >= 0 ? plan.steps.slice(from).map((st) => st.id) : undefined;
      return applyPlan(s, plan, { sudoPassword: o.sudoPassword ?? undefined, onProgress: o.onProgress, ...(only ? { only } : {}) });
    },
  };
}
