import type { SshSession } from '../ssh/types';
import type { SessionEndpoint } from '../remote/vncSessions';
import type { ApplyResult, PlanProgress, ServerReport, SetupPlan, StartedSession, VncSessionInfo, GpuInfo } from '../remote/types';

/** The plan's choices made in the app's set-up step (a package mirror, unverified packages allowed). */
export interface SetupOptions {
  packagesFrom?: string;
  allowUnverified?: boolean;
  /** Desktop to install when the server has none. */
  windowManager?: 'xfce' | 'openbox';
}

/**
 * What the app needs from src/core/remote (issue 3's probe, plan and sessions), as one seam so the
 * app's services stay thin and the harness and Electron share them.
 */
export interface RemoteOps {
  probe(s: SshSession): Promise<ServerReport>;
  gpus(s: SshSession): Promise<GpuInfo[]>;
  listSessions(s: SshSession): Promise<VncSessionInfo[]>;
  startSession(s: SshSession, opts: { display?: number; geometry?: string; windowManager?: string; transport?: 'unix' | 'tcp' }): Promise<StartedSession>;
  killSession(s: SshSession, display: number): Promise<void>;
  /** TurboVNC: a fresh one-time password for a running session (each works for one connection). */
  oneTimePassword(s: SshSession, display: number): Promise<string>;
  /** Where display :n is reached on the server: the session's Unix socket, else its TCP port. */
  endpoint(s: SshSession, display: number): Promise<SessionEndpoint>;
  plan(s: SshSession, opts?: SetupOptions): Promise<SetupPlan>;
  apply(s: SshSession, plan: SetupPlan, opts: { sudoPassword: string | null; onProgress(p: PlanProgress): void }): Promise<ApplyResult>;
}
