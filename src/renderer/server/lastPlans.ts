import type { SetupPlanView, SetupResultView, SetupStepStatus } from '../../shared/models';

/**
 * The set-up wizard's page of each connection, kept while the window lives: coming back to a server
 * page (Back from the viewer, Close tunnel) shows the plan under review, or the last run's result with
 * its Retry, instead of the empty first page. The sudo password is never kept.
 */
export interface KeptWizard {
  phase: 'review' | 'result';
  plan: SetupPlanView & { planId: string };
  consent: boolean;
  options: { desktop: 'xfce' | 'openbox'; mirror: string; allowUnverified: boolean; where: 'auto' | 'home' | 'system' };
  result?: SetupResultView;
  status?: Record<string, SetupStepStatus>;
}

const kept = new Map<string, KeptWizard>();

export function lastWizard(connectionId: string): KeptWizard | null {
  return kept.get(connectionId) ?? null;
}

export function keepWizard(connectionId: string, w: KeptWizard | null): void {
  if (w) kept.set(connectionId, w);
  else kept.delete(connectionId);
}
