import { GpuDeskError, isGpuDeskError, redactSecrets } from '../errors';
import { writeLine, type CliIo } from './io';
import type { CommandName } from './main';
import { actionsAfterDestination, getCommand, type CliCommand } from './registry';

/**
 * Each command's module, loaded only when that command runs (it registers itself then): loading them
 * all, with ssh2, zod and the profile schemas, cost more than Node's own start (issue 43).
 * scripts/build-cli.mjs keeps these import()s lazy inside the bundle.
 */
const LOAD: Record<CommandName, () => Promise<unknown>> = {
  tunnel: () => import('./commands/tunnel'),
  profiles: () => import('./commands/profiles'),
  keys: () => import('./commands/keys'),
  probe: () => import('./commands/probe'),
  sessions: () => import('./commands/sessions'),
  setup: () => import('./commands/setup'),
  jobs: () => import('./commands/jobs'),
};

async function loadCommand(name: CommandName): Promise<CliCommand> {
  await LOAD[name]();
  return getCommand(name)!;
}

/** A command's full help, for `gpu-desk help <command>`. */
export async function commandHelp(name: CommandName): Promise<string> {
  return (await loadCommand(name)).help;
}

/**
 * `gpu-desk sessions list sandbox`: the action first and the destination after it, which would only
 * fail as "unknown action". Returns the one-line error showing the order, or null.
 */
function swappedWords(cmd: CliCommand, args: string[]): string | null {
  const actions = actionsAfterDestination(cmd);
  const [first, second] = args;
  if (!first || !second || first.startsWith('-') || second.startsWith('-')) return null;
  if (!actions.includes(first) || actions.includes(second)) return null;
  return `"${first}" comes after the destination — write it as gpu-desk ${cmd.name} ${second} ${first}${args.length > 2 ? ' …' : ''}`;
}

/** A host name that did not resolve and was looked up as a profile name first: say both. */
async function explained(e: GpuDeskError): Promise<GpuDeskError> {
  if (e.code !== 'DNS_FAILED') return e;
  const { notAProfile } = await import('./sshOptions');
  const host = /in (?:\S+@)?([^\s@:]+)(?::\d+)? could not be resolved/.exec(e.message)?.[1];
  if (!host || !notAProfile(host)) return e;
  return new GpuDeskError('DNS_FAILED', `No saved profile is named "${host}", and no host of that name was found`, 'check the spelling ("gpu-desk profiles list" shows the saved ones), or add a HostName for it in ~/.ssh/config');
}

/** Runs one command: returns the exit code; errors become one line on stderr starting "error: ". */
export async function runCommand(name: CommandName, args: string[], io: CliIo): Promise<number> {
  const cmd = await loadCommand(name);
  const swapped = swappedWords(cmd, args);
  if (swapped) {
    writeLine(io.stderr, `error: ${swapped}`);
    return 2;
  }
  try {
    // Any command's <destination> may name a saved profile.
    const { setDestinationResolver } = await import('./sshOptions');
    const { profileDestinations } = await import('./profileDestinations');
    setDestinationResolver(profileDestinations);
    return await cmd.run(args, io);
  } catch (e) {
    if (isGpuDeskError(e)) {
      writeLine(io.stderr, `error: ${redactSecrets((await explained(e)).toLine())}`);
      return e.code === 'BAD_ARGUMENT' ? 2 : 1;
    }
    writeLine(io.stderr, `error: ${redactSecrets((e as Error)?.message ?? String(e)).split('\n')[0]} — this is a bug in gpu-desk; please report it`);
    return 1;
  }
}
