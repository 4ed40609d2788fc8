import { GpuDeskError, registerSecret } from '../../errors';
import { applyPlan, checkPlan } from '../../remote/planRunner';
import { probeServer } from '../../remote/probe';
import { checkMirrorUrl } from '../../remote/packageFetch';
import { buildSetupPlan, formatPlan } from '../../remote/setupPlan';
import { buildUserUninstallPlan, userInstallPackages, wantsUserInstall } from '../../remote/userInstall';
import { carryUserPackages } from '../../remote/userInstallCarry';
import { carryDistPackages, distCarrySteps, wantsDistCarry } from '../../remote/userDepsCarry';
import fs from 'node:fs';
import type { PlanProgress } from '../../remote/types';
import { escapeServerText } from '../../serverText';
import { jsonText, writeLine, type CliIo } from '../io';
import { parseCommandArgs, UsageError } from '../parse';
import { ask, readAllStdin } from '../prompts';
import { registerCommand } from '../registry';
import { remoteOptRoot } from '../remoteOptRoot';
import { destinationOf, sshOptionHelp, sshOptionSpec, type SshOptionValues } from '../sshOptions';
import { connectFor } from '../withConnection';

const help = [
  'Usage: gpu-desk setup <destination> --plan [--json]',
  '       gpu-desk setup <destination> --apply [--yes] [options]',
  '',
  'Set a server up for GPU desktops: OpenGL libraries, a light desktop, VirtualGL (EGL back end when the',
  'driver allows it, else a headless 3D X server), TurboVNC (or the distribution\'s TigerVNC) and settings',
  'that keep VNC on localhost. Ubuntu 20.04/22.04/24.04, Debian 12, RHEL/Rocky 8/9.',
  '',
  '  --plan                   show every step: why, how it is checked, every command (changes nothing)',
  '  --apply                  show the plan, ask, then run the steps that are not done yet; each step is',
  '                           checked again after it runs and the first failure stops the run',
  '',
  'Options:',
  '  --yes                    do not ask before applying (for scripts)',
  '  --only ID[,ID…]          apply only these steps (ids as shown by --plan)',
  '  --wm xfce|openbox|none   desktop to install when the server has none (default xfce; openbox in a',
  '                           user install; none: a bare desktop)',
  '  --packages-from URL|DIR  take the VirtualGL/TurboVNC packages from a mirror (a directory with the',
  '                           .deb/.rpm files under upstream\'s names and a SHA256SUMS file) instead of GitHub;',
  '                           https (a plain-http mirror proves nothing: it needs --allow-unverified).',
  '                           A directory on this computer: the packages are uploaded over SSH (user install)',
  '  --user-install           install into your home on the server, as you, with no root (chosen by itself',
  '                           when your account has no sudo): ~/.local/share/gpu-desk/<version>',
  '  --system-install         the system-wide plan (sudo) even where your account seems to have no sudo',
  '  --uninstall              with --user-install: remove the install in your home (one step, nothing else)',
  '  --carry-packages         user install: this computer downloads TurboVNC and VirtualGL and uploads them',
  '                           over SSH (chosen by itself when the server cannot reach github.com); and the',
  '                           distribution\'s lists and packages from the server\'s own mirror, for apt on the',
  '                           server to check (chosen by itself when the server cannot reach its mirror;',
  '                           Debian/Ubuntu only, not RHEL yet)',
  '  --allow-unverified       install a package that has no SHA-256 to be checked against (the plan says',
  '                           so); without it such a step stops. A mismatch always stops the step',
  '  --sudo-password-stdin    read the sudo password from stdin instead of asking on the terminal',
  '  --json                   --plan: one JSON object; --apply: one JSON object per progress event',
  ...sshOptionHelp,
  '',
  'The sudo password is asked once per run, sent only to sudo (on its stdin), never shown, logged or kept.',
].join('\n');

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('setup', args, {
    ...sshOptionSpec,
    plan: { type: 'boolean' },
    apply: { type: 'boolean' },
    yes: { type: 'boolean', short: 'y' },
    only: { type: 'string' },
    wm: { type: 'string' },
    'packages-from': { type: 'string' },
    'user-install': { type: 'boolean' },
    'system-install': { type: 'boolean' },
    uninstall: { type: 'boolean' },
    'carry-packages': { type: 'boolean' },
    'allow-unverified': { type: 'boolean' },
    'sudo-password-stdin': { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    writeLine(io.stdout, help);
    return 0;
  }
  const destination = destinationOf(positionals, 'setup');
  if (positionals.length > 1) throw new UsageError(`Too many arguments: ${positionals.slice(1).join(' ')}`, 'setup');
  if (!!values.plan === !!values.apply) throw new UsageError('Say --plan (show the steps) or --apply (run them)', 'setup');
  const wm = values.wm as string | undefined;
  if (wm !== undefined && wm !== 'xfce' && wm !== 'openbox' && wm !== 'none') throw new UsageError(`--wm ${wm}: use xfce, openbox or none`, 'setup');
  if (values['user-install'] && values['system-install']) throw new UsageError('Say --user-install or --system-install, not both', 'setup');
  if (values.uninstall && !values['user-install']) throw new UsageError('--uninstall removes the install in your home: say --user-install --uninstall', 'setup');
  // --packages-from: a mirror URL, or a directory on this computer whose packages are uploaded (user install).
  const fromArg = values['packages-from'] === undefined ? undefined : String(values['packages-from']);
  const carryFrom = fromArg !== undefined && !/^[a-z][a-z0-9+.-]*:\/\//i.test(fromArg) ? fromArg : undefined;
  if (carryFrom !== undefined && !fs.statSync(carryFrom, { throwIfNoEntry: false })?.isDirectory()) {
    throw new UsageError(`--packages-from ${carryFrom}: neither an http(s) URL nor a directory on this computer`, 'setup');
  }
  const json = !!values.json;
  const packagesFrom = fromArg === undefined || carryFrom !== undefined ? undefined : checkMirrorUrl(fromArg, !!values['allow-unverified']);
  const optRoot = remoteOptRoot(io);
  // Ask nothing we cannot ask: without a terminal, --apply needs --yes (and the password on stdin).
  if (values.apply && !values.yes && !io.interactive) {
    throw new UsageError('--apply without a terminal needs --yes (review the steps first with --plan)', 'setup');
  }

  const conn = await connectFor(destination, values as SshOptionValues, io);
  try {
    const report = await probeServer(conn, { optRoot });
    const userInstall = wantsUserInstall(report, values['user-install'] ? true : values['system-install'] ? false : undefined);
    if (carryFrom !== undefined && !userInstall) throw new UsageError('--packages-from DIR (a directory on this computer) is for the install into your home: add --user-install, or give a mirror URL', 'setup');
    const plan = values.uninstall ? buildUserUninstallPlan(report) : buildSetupPlan(report, {
      windowManager: wm as 'xfce' | 'openbox' | 'none' | undefined,
      optRoot,
      packagesFrom,
      allowUnverified: !!values['allow-unverified'],
      userInstall,
    });
    // The desk carries the packages where asked, or where the server cannot reach GitHub (and no mirror was given).
    const carry = userInstall && !values.uninstall && (carryFrom !== undefined || !!values['carry-packages'] || (report.reach?.upstream === false && !packagesFrom));
    // And the distribution's packages where asked, or where the server cannot reach its mirror.
    const carryDist = userInstall && !values.uninstall && wantsDistCarry(report, !!values['carry-packages']);
    const only = values.only ? String(values.only).split(',').map((s) => s.trim()).filter(Boolean) : undefined;
    for (const id of only ?? []) {
      if (!plan.steps.some((s) => s.id === id)) {
        throw new UsageError(`--only ${id}: no such step (steps: ${plan.steps.map((s) => s.id).join(', ')})`, 'setup');
      }
    }
    const status = await checkPlan(conn, plan);
    if (values.plan) {
      if (json) writeLine(io.stdout, jsonText({ ...plan, steps: plan.steps.map((s) => ({ ...s, status: status[s.id] })), findings: report.findings }));
      else {
        writeLine(io.stdout, formatPlan(plan, status).trimEnd());
        if (carry) writeLine(io.stdout, `Note: TurboVNC and VirtualGL come from ${carryFrom ?? 'this computer (it downloads them)'} and are uploaded over SSH, then checked again on the server.`);
        if (carryDist) writeLine(io.stdout, 'Note: the distribution\'s package lists and packages come from this computer (it downloads them from the server\'s own mirror) and are uploaded over SSH; apt on the server checks their signatures and hashes.');
      }
      return 0;
    }

    const todo = plan.steps.filter((s) => status[s.id] === 'pending' && (!only || only.includes(s.id)));
    if (!json) writeLine(io.stdout, formatPlan(plan, status).trimEnd());
    if (todo.length === 0) {
      if (json) {
        // Each step's check passed: say so per step, as a run that skips them would.
        const shown = plan.steps.filter((s) => !only || only.includes(s.id));
        shown.forEach((s, index) => writeLine(io.stdout, jsonText({ type: 'step-skip', stepId: s.id, index, total: shown.length } satisfies PlanProgress)));
        writeLine(io.stdout, jsonText({ type: 'finished', ok: true, applied: [] }));
      }
      else writeLine(io.stdout, '\nNothing to do: every step is already done.');
      return 0;
    }
    if (!values.yes) {
      const a = (await ask(io, `\nRun ${todo.length} step(s) (${todo.map((s) => s.id).join(', ')}) on ${report.host}? [y/N] `))?.trim().toLowerCase();
      if (a !== 'y' && a !== 'yes') {
        writeLine(io.stderr, 'Nothing was run.');
        return 1;
      }
    }

    let sudoPassword: string | undefined;
    const needsSudo = todo.some((s) => s.needsRoot) && report.sudo !== 'root' && report.sudo !== 'passwordless';
    if (needsSudo) {
      if (report.sudo === 'absent') {
        throw new GpuDeskError('SUDO_FAILED', `${report.user} cannot use sudo on ${report.host}, and these steps need root`, 'Ask the administrator to run the plan, or to grant sudo');
      }
      sudoPassword = values['sudo-password-stdin']
        ? await readAllStdin(io)
        : (await ask(io, `[sudo] password for ${report.user}@${report.host}: `, { hidden: true })) ?? undefined;
      if (!sudoPassword) throw new GpuDeskError('SUDO_FAILED', 'No sudo password was given', 'Run again and enter the password, or use --sudo-password-stdin');
      registerSecret(sudoPassword);
    }

    const onProgress = (e: PlanProgress) => {
      if (json) {
        writeLine(io.stdout, jsonText(e));
        return;
      }
      const title = plan.steps.find((s) => s.id === e.stepId)?.title ?? e.stepId;
      if (e.type === 'step-skip') writeLine(io.stdout, `[${e.index + 1}/${e.total}] ${title}: already done`);
      else if (e.type === 'step-start') writeLine(io.stdout, `[${e.index + 1}/${e.total}] ${title}: running…`);
      else if (e.type === 'output') io.stdout.write(escapeServerText(e.text).replace(/^(?=.)/gm, '    | '));
      else if (e.type === 'step-done') writeLine(io.stdout, `[${e.index + 1}/${e.total}] ${title}: done (${(e.ms / 1000).toFixed(1)} s)`);
    };
    const carried = todo.filter((s) => s.id === 'user-turbovnc' || s.id === 'user-virtualgl');
    if (carry && carried.length > 0) {
      const [tPkg, vPkg] = userInstallPackages(report);
      const assets = carried.map((s) => (s.id === 'user-turbovnc' ? tPkg.asset : vPkg.asset));
      await carryUserPackages(conn, report, { from: carryFrom, allowUnverified: !!values['allow-unverified'], assets, onProgress });
    }
    const distSteps = distCarrySteps(todo.map((s) => s.id));
    if (carryDist && distSteps.length > 0) await carryDistPackages(conn, report, { stepIds: distSteps, from: carryFrom, onProgress });
    const result = await applyPlan(conn, plan, {
      sudoPassword,
      passwordlessSudo: report.sudo === 'passwordless',
      only,
      onProgress,
    });
    if (json) writeLine(io.stdout, jsonText({ type: 'finished', ok: result.ok, steps: result.steps.map((s) => ({ id: s.id, status: s.status })), ...(result.error ? { error: result.error } : {}) }));
    if (!result.ok) {
      const e = result.error!;
      writeLine(io.stderr, `error: ${e.message}${e.fix ? ` — ${e.fix}` : ''}`);
      return 1;
    }
    if (!json) writeLine(io.stdout, '\nThe server is set up. Start a desktop with: gpu-desk sessions ' + destination + ' start');
    return 0;
  } finally {
    await conn.close();
  }
}

registerCommand({ name: 'setup', help, run });
