import type { TextKey } from '../../shared/models';
import type { SshSession } from '../ssh/types';
import { checkPlan } from './planRunner';
import type { PlanStep, ServerReport, SetupPlan, StepStatus } from './types';

/**
 * What the reviewer sees beside each step before anything runs: whether the server already has it
 * (the step's own check, run now, read-only) and, for a step that will run although the report shows
 * something installed, why. And whether the run will need a sudo password at all, so the app asks
 * for one only where sudo itself would.
 */

/** How the run gets root for the steps still to do: none needed, already root, sudo without a password, or sudo with one. */
export type SudoNeed = 'none' | 'root' | 'passwordless' | 'password';

/** A step's reason as a key of the app's `setup` catalogue (`reasons.<key>`), with its English for the CLI. */
export type StepReason = TextKey & { text: string };

export interface PlanReview {
  status: Record<string, StepStatus>;
  reasons: Record<string, StepReason>;
  sudo: SudoNeed;
}

export const STEP_REASON_KEYS = ['done', 'needed', 'virtualglNoEgl', 'virtualglElsewhere', 'turbovncElsewhere'] as const;
type ReasonKey = (typeof STEP_REASON_KEYS)[number];

const ENGLISH: Record<ReasonKey, (p: Record<string, string>) => string> = {
  done: () => 'Already done on the server: will be skipped.',
  needed: () => 'Not done yet: its check fails on the server.',
  virtualglNoEgl: (p) => `VirtualGL ${p.installed} is installed, but without the EGL back end (eglinfo, VirtualGL 3.0 or later): the plan installs ${p.version}.`,
  virtualglElsewhere: (p) => `VirtualGL ${p.installed} is installed in ${p.dir}, not in ${p.target}, where gpu-desk runs it: the plan installs ${p.version} there.`,
  turbovncElsewhere: (p) => `TurboVNC ${p.installed} is installed in ${p.dir}, not in ${p.target}, where gpu-desk runs it: the plan installs ${p.version} there.`,
};

function reason(key: ReasonKey, params: Record<string, string> = {}): StepReason {
  return { key, params, text: ENGLISH[key](params) };
}

const dirOf = (path: string | null) => (path ? path.replace(/\/bin\/?$/, '') : '');

/** Why each step is skipped or run, from the report and the checks' outcome. Pure: for unit tests and the CLI alike. */
export function stepReasons(plan: SetupPlan, report: ServerReport, status: Record<string, StepStatus>, optRoot = '/opt'): Record<string, StepReason> {
  const out: Record<string, StepReason> = {};
  for (const s of plan.steps) out[s.id] = status[s.id] === 'done' ? reason('done') : pendingReason(s, report, optRoot);
  return out;
}

function pendingReason(s: PlanStep, report: ServerReport, optRoot: string): StepReason {
  const version = s.text?.params.version ?? '';
  const vgl = report.virtualgl;
  if (s.id === 'virtualgl' && vgl.installed) {
    const installed = vgl.version ?? '?';
    const dir = dirOf(vgl.binDir);
    const target = `${optRoot}/VirtualGL`;
    if (!vgl.hasEglBackend) return reason('virtualglNoEgl', { installed, version });
    if (dir && dir !== target) return reason('virtualglElsewhere', { installed, version, dir, target });
  }
  const tvnc = report.vnc.turbovnc;
  if (s.id === 'vnc-server' && tvnc.installed) {
    const dir = dirOf(tvnc.binDir);
    const target = `${optRoot}/TurboVNC`;
    if (dir && dir !== target) return reason('turbovncElsewhere', { installed: tvnc.version ?? '?', version, dir, target });
  }
  return reason('needed');
}

/** Whether any step still to do needs root; when none does, no password is asked whatever sudo says. */
export function rootStillNeeded(plan: SetupPlan, status: Record<string, StepStatus>): boolean {
  return plan.steps.some((s) => s.needsRoot && status[s.id] !== 'done');
}

// `sudo -n` never prompts: it succeeds only where sudo needs no password (NOPASSWD, or root already).
const SUDO_PROBE = 'if [ "$(id -u)" = 0 ]; then echo root; elif command -v sudo >/dev/null 2>&1 && sudo -n true </dev/null >/dev/null 2>&1; then echo passwordless; else echo password; fi';

/** The checks of every step (one round trip), their reasons, and how root will be had. Changes nothing on the server. */
export async function reviewPlan(session: SshSession, plan: SetupPlan, report: ServerReport, optRoot = '/opt'): Promise<PlanReview> {
  const status = await checkPlan(session, plan);
  let sudo: SudoNeed = 'none';
  if (rootStillNeeded(plan, status)) {
    const r = await session.exec(SUDO_PROBE, { timeoutMs: 15_000 }).catch(() => null);
    const said = r?.stdout.trim();
    sudo = said === 'root' || said === 'passwordless' ? said : 'password';
  }
  return { status, reasons: stepReasons(plan, report, status, optRoot), sudo };
}
