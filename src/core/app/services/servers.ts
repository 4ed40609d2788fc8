import { inviteToWatch } from '../invites';
import { ShownOnce } from '../shownOnce';
import { registerSecret } from '../../errors';
import type { Emit, HandlersOf, ParsedInput } from '../../../shared/contract';
import type { DesktopEndpoints } from '../desktopEndpoints';
import type { AppSetupPlan, RemoteOps } from '../remoteOps';
import { gpuView, planView, progressView, reportView, resultView, sessionView } from '../views';
import type { LiveConnection } from './connections';

export interface ServersDeps {
  remote: RemoteOps;
  emit: Emit;
  ready(connectionId: string): LiveConnection;
  /** Where each desktop is and its password: told what this service starts, lists and kills. */
  desktops: DesktopEndpoints;
  /** Killing a session closes its viewers. */
  closeDisplay(connectionId: string, display: number): void;
}

/** server.*, sessions.*, setup.*: the probe and GPU samples, VNC desktops, and the set-up plan. */
export class Servers {
  /** Set-up plans shown to the window, by id (setup.apply runs only one of these). */
  private readonly plans = new ShownOnce<AppSetupPlan>('set-up plan');

  constructor(private readonly deps: ServersDeps) {}

  handlers(): HandlersOf<'server' | 'sessions' | 'setup'> {
    return {
      'server.probe': async ({ connectionId }) => {
        const c = this.deps.ready(connectionId);
        const r = await this.deps.remote.probe(c.conn);
        this.deps.desktops.listed(connectionId, r.sessions, r.vnc.flavor);
        return reportView(r);
      },
      'server.gpus': async ({ connectionId }) => ({ at: Date.now(), gpus: (await this.deps.remote.gpus(this.deps.ready(connectionId).conn)).map(gpuView) }),
      'sessions.list': async ({ connectionId }) => {
        const c = this.deps.ready(connectionId);
        const sessions = await this.deps.remote.listSessions(c.conn);
        this.deps.desktops.listed(connectionId, sessions);
        return sessions.map(sessionView);
      },
      'sessions.start': async ({ connectionId, display, geometry, windowManager, transport, gpu }) => {
        const c = this.deps.ready(connectionId);
        const host = { connectionId, profileId: c.profile.id };
        this.deps.desktops.changing(host);
        const s = await this.deps.remote.startSession(c.conn, { display, geometry, windowManager, transport, ...(gpu === undefined ? {} : { gpu }) });
        this.deps.desktops.started(host, s);
        return sessionView(s);
      },
      'sessions.invite': ({ connectionId, display }) => inviteToWatch(this.deps.ready(connectionId), display),
      'sessions.kill': async ({ connectionId, display }) => {
        const c = this.deps.ready(connectionId);
        this.deps.closeDisplay(connectionId, display);
        const host = { connectionId, profileId: c.profile.id };
        this.deps.desktops.changing(host, display);
        await this.deps.remote.killSession(c.conn, display);
        this.deps.desktops.killed(host, display);
      },
      'setup.plan': async ({ connectionId, options }) => {
        const c = this.deps.ready(connectionId);
        const plan = await this.deps.remote.plan(c.conn, options);
        // A plan is for the connection it was made on: it goes with it.
        c.scope.once('setup plans', () => this.plans.forget(connectionId));
        return { ...planView(plan), ...(plan.carry ? { carried: true } : {}), ...(plan.review ? { review: plan.review } : {}), planId: this.plans.keep(connectionId, plan) };
      },
      'setup.apply': (i) => this.apply(i),
    };
  }

  private async apply({ connectionId, runId, sudoPassword, planId, fromStepId }: ParsedInput<'setup.apply'>) {
    const c = this.deps.ready(connectionId);
    registerSecret(sudoPassword);
    // Exactly the plan the window showed, as core made it: the window sends only its id. Each step
    // still checks the server before it runs, so a step done meanwhile is skipped.
    const plan = this.plans.take(planId, connectionId);
    const result = await this.deps.remote.apply(c.conn, plan, {
      sudoPassword,
      ...(fromStepId ? { fromStepId } : {}),
      onProgress: (p) => this.deps.emit('setup.progress', progressView(runId, p)),
      // Packages the desk carries (no route to GitHub from the server): the wizard's progress bar.
      onTransfer: (t) => this.deps.emit('setup.progress', { runId, stepId: t.stepId, status: 'running', transfer: { bytes: t.bytes, total: t.total } }),
    });
    // A failed run's plan is shown again for Retry: the same reviewed commands, from the step that failed.
    return result.ok ? resultView(result) : { ...resultView(result), retryPlanId: this.plans.keep(connectionId, plan) };
  }
}
