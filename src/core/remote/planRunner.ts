import { GpuDeskError, isGpuDeskError, redactSecrets, registerSecret } from '../errors';
import type { SshSession } from '../ssh/types';
import { shellCommand, shellQuote } from './shellQuote';
import type { ApplyResult, PlanProgress, PlanStep, SetupPlan, StepResult, StepStatus } from './types';

export interface ApplyOptions {
  /** The account's sudo password, asked once per run; sent on stdin to `sudo -S`, never logged or stored. */
  sudoPassword?: string;
  /** The account has NOPASSWD sudo (probe: sudo === 'passwordless'): root steps run with no password. */
  passwordlessSudo?: boolean;
  onProgress?: (p: PlanProgress) => void;
  /** Stops the run before the next step (a step already running on the server finishes there). */
  signal?: AbortSignal;
  /** Run only these step ids (the user deselected others). */
  only?: string[];
  /** Per step; package installs can be slow. Default 20 minutes. */
  stepTimeoutMs?: number;
}

const OUTPUT_TAIL = 4000;

// The script never reads stdin: whatever sudo did not consume (with NOPASSWD it reads nothing) must not
// reach a command that would read it.
function wrap(script: string): string {
  return `exec </dev/null\n${script}`;
}

/** How a step's script is launched: plainly, or through sudo with the password on stdin. */
function commandFor(script: string, asRoot: boolean, isRootAlready: boolean): string {
  if (!asRoot || isRootAlready) return shellCommand(['sh', '-c', wrap(script)]);
  // -S: password from stdin; -k: ignore cached credentials so stdin is always read (it always carries it);
  // -p '': no prompt text in the output.
  return shellCommand(['sudo', '-S', '-k', '-p', '', '--', 'sh', '-c', wrap(script)]);
}

async function whoAmI(session: SshSession): Promise<boolean> {
  const r = await session.exec('id -u');
  return r.stdout.trim() === '0';
}

/** Runs every step's check in one round trip: which steps are already done. Needs no root. */
export async function checkPlan(session: SshSession, plan: SetupPlan): Promise<Record<string, StepStatus>> {
  const lines = plan.steps.map(
    (s) => `if ${shellCommand(['sh', '-c', wrap(s.check)])} >/dev/null 2>&1; then echo ${shellQuote(`${s.id} done`)}; else echo ${shellQuote(`${s.id} pending`)}; fi`,
  );
  const r = await session.exec(shellCommand(['sh', '-c', lines.join('\n')]), { timeoutMs: 60_000 });
  const out: Record<string, StepStatus> = {};
  for (const l of r.stdout.split('\n')) {
    const [id, st] = l.trim().split(' ');
    if (id && (st === 'done' || st === 'pending')) out[id] = st;
  }
  for (const s of plan.steps) out[s.id] ??= 'pending';
  return out;
}

function tail(text: string, typed: readonly (string | undefined)[]): string {
  const t = text.length > OUTPUT_TAIL ? '…' + text.slice(-OUTPUT_TAIL) : text;
  return redactSecrets(t, typed).trimEnd();
}

/**
 * sudo -S asks again after a wrong password and, finding no second line on stdin, prints "no password
 * was provided" — which reads as if none was sent. So the password is tried once on its own (`sudo -v`),
 * before anything runs as root, and a refusal is said plainly, without sudo's retry lines.
 */
async function sudoRefusal(session: SshSession, password: string, step: PlanStep): Promise<{ code: string; message: string; fix: string } | null> {
  const r = await session.exec(shellCommand(['sudo', '-S', '-k', '-p', '', '-v']), { stdin: `${password}\n`, timeoutMs: 60_000 });
  if (r.code === 0) return null;
  if (/may not run sudo|not in the sudoers|not allowed to/i.test(r.stderr)) {
    return {
      code: 'SUDO_FAILED',
      message: `Your account may not use sudo on this server, so step "${step.title}" cannot run; nothing was run as root`,
      fix: 'Ask an administrator for sudo rights, or install into your home instead (no administrator needed)',
    };
  }
  return {
    code: 'SUDO_FAILED',
    message: `sudo refused the password (tried once, before step "${step.title}"); nothing was run as root`,
    fix: 'Check the password (it is your account password on the server) and that your account may use sudo',
  };
}

function sudoRefused(stderr: string): boolean {
  return /incorrect password attempt|a password is required|Sorry, try again|no password was provided|is not in the sudoers file|may not run sudo/i.test(stderr);
}

/**
 * Apply a reviewed plan: for each step, run its check; when it fails, run apply (as root through
 * `sudo -S` when needed), stream the output, then check again. The first failure stops the run and is
 * returned with the step's output and the fix. A server that is already configured runs no apply.
 */
export async function applyPlan(session: SshSession, plan: SetupPlan, opts: ApplyOptions = {}): Promise<ApplyResult> {
  const emit = opts.onProgress ?? (() => {});
  registerSecret(opts.sudoPassword);
  // A short sudo password is not held globally (it would mangle unrelated log lines): it is redacted,
  // as a whole token, in this run's own output and messages.
  const typed = [opts.sudoPassword];
  const steps = opts.only ? plan.steps.filter((s) => opts.only!.includes(s.id)) : plan.steps;
  const total = steps.length;
  const results: StepResult[] = steps.map((s) => ({ id: s.id, status: 'not-run', ms: 0, output: '' }));
  let isRootAlready: boolean | null = null;
  let passwordless: boolean | null = null;
  let sudoChecked = false;

  const fail = (i: number, err: { code: string; message: string; fix?: string }): ApplyResult => {
    const step = steps[i];
    results[i].status = 'failed';
    const message = redactSecrets(err.message, typed);
    emit({ type: 'step-failed', stepId: step.id, index: i, total, message });
    return { ok: false, steps: results, error: { ...err, message, stepId: step.id } };
  };

  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    if (opts.signal?.aborted) {
      return { ok: false, steps: results, error: { code: 'CANCELLED', message: `Stopped before step "${step.title}"`, fix: 'Run the plan again to continue; finished steps are skipped', stepId: step.id } };
    }
    const started = Date.now();
    try {
      emit({ type: 'step-check', stepId: step.id, index: i, total });
      if (await runCheck(session, step)) {
        results[i] = { id: step.id, status: 'skipped', ms: Date.now() - started, output: '' };
        emit({ type: 'step-skip', stepId: step.id, index: i, total });
        continue;
      }
      isRootAlready ??= await whoAmI(session);
      if (step.needsRoot && !isRootAlready && !opts.sudoPassword && !opts.passwordlessSudo) {
        // NOPASSWD sudo needs no password: find out once rather than making every caller probe first.
        passwordless ??= (await session.exec('sudo -n true </dev/null', { timeoutMs: 15_000 }).catch(() => null))?.code === 0;
      }
      if (step.needsRoot && !isRootAlready && !opts.sudoPassword && !opts.passwordlessSudo && !passwordless) {
        return fail(i, {
          code: 'SUDO_FAILED',
          message: `Step "${step.title}" needs root and no sudo password was given`,
          fix: 'Run the plan again and enter your sudo password when asked',
        });
      }
      if (step.needsRoot && !isRootAlready && opts.sudoPassword && !sudoChecked) {
        const refused = await sudoRefusal(session, opts.sudoPassword, step);
        if (refused) return fail(i, refused);
        sudoChecked = true;
      }
      emit({ type: 'step-start', stepId: step.id, index: i, total });
      let output = '';
      const onChunk = (stream: 'stdout' | 'stderr') => (text: string) => {
        const clean = redactSecrets(text, typed);
        output += clean;
        // Only the tail is ever shown; a runaway step must not grow the process with the rest.
        if (output.length > 4 * OUTPUT_TAIL) output = output.slice(-(OUTPUT_TAIL + 1));
        emit({ type: 'output', stepId: step.id, stream, text: clean });
      };
      const useSudo = step.needsRoot && !isRootAlready;
      const res = await session.exec(commandFor(step.apply, step.needsRoot, isRootAlready), {
        stdin: useSudo && opts.sudoPassword ? `${opts.sudoPassword}\n` : undefined,
        timeoutMs: opts.stepTimeoutMs ?? 20 * 60_000,
        onStdout: onChunk('stdout'),
        onStderr: onChunk('stderr'),
      });
      results[i].output = tail(output, typed);
      results[i].ms = Date.now() - started;
      // A step that died without an exit status, or failed while the link went down, is a lost connection,
      // not a broken step: say so, so the user reconnects and re-runs instead of debugging the server.
      if ((res.code === null && res.signal === null) || (res.code !== 0 && !(await alive(session)))) {
        throw new GpuDeskError('CONNECTION_LOST', 'The connection dropped while a command was running', 'reconnect');
      }
      if (useSudo && res.code !== 0 && sudoRefused(res.stderr)) {
        return fail(i, {
          code: 'SUDO_FAILED',
          message: `sudo refused the password for step "${step.title}"`,
          fix: 'Check the password (it is your account password on the server) and that your account may use sudo',
        });
      }
      if (res.code !== 0) {
        const last = tail(output, typed).split('\n').filter(Boolean).slice(-1)[0] ?? '';
        return fail(i, {
          code: 'PLAN_STEP_FAILED',
          message: `Step "${step.title}" failed with exit status ${res.code ?? res.signal}${last ? `: ${last.slice(0, 200)}` : ''}`,
          fix: 'Read the step output above, fix the cause on the server, then run the plan again (finished steps are skipped)',
        });
      }
      if (!(await runCheck(session, step))) {
        return fail(i, {
          code: 'PLAN_STEP_FAILED',
          message: `Step "${step.title}" ran, but its check still fails`,
          fix: 'Read the step output above; the server may need a reboot or a manual fix before the plan can continue',
        });
      }
      results[i].status = 'applied';
      emit({ type: 'step-done', stepId: step.id, index: i, total, ms: results[i].ms });
    } catch (e) {
      results[i].ms = Date.now() - started;
      if (isGpuDeskError(e)) {
        const lost = e.code === 'CONNECTION_LOST' || e.code === 'NOT_CONNECTED';
        return fail(i, {
          code: e.code,
          message: lost ? `The connection dropped during step "${step.title}"; the step may not have finished` : e.message,
          fix: lost
            ? 'Reconnect and run the plan again: each step checks first, and config files are replaced atomically, so nothing is left half-written'
            : e.fix,
        });
      }
      throw e;
    }
  }
  return { ok: true, steps: results };
}

async function alive(session: SshSession): Promise<boolean> {
  if (session.state !== 'ready') return false;
  try {
    return (await session.exec('true', { timeoutMs: 5000 })).code === 0;
  } catch {
    return false;
  }
}

async function runCheck(session: SshSession, step: PlanStep): Promise<boolean> {
  const r = await session.exec(commandFor(step.check, false, false), { timeoutMs: 60_000 });
  return r.code === 0;
}

