import { GpuDeskError, isGpuDeskError, redactSecrets } from '../errors';
import { processIo, writeLine, type CliIo } from './io';
import { profileDestinations } from './profileDestinations';
import { actionsAfterDestination, getCommand, listCommands, type CliCommand } from './registry';
import { notAProfile } from './sshOptions';
import { setDestinationResolver } from './sshOptions';
import './commands/tunnel';
import './commands/profiles';
import './commands/keys';
import './commands/probe';
import './commands/sessions';
import './commands/setup';
import './commands/jobs';

const VERSION = '0.1.0';

function usage(): string {
  const cmds = listCommands();
  const w = Math.max(...cmds.map((c) => c.name.length));
  return [
    'gpu-desk — use a headless GPU server as if its screen were on your desk',
    '',
    'Usage: gpu-desk <command> [options]',
    '',
    'Commands:',
    ...cmds.map((c) => `  ${c.name.padEnd(w)}  ${c.summary}`),
    '',
    'Run "gpu-desk <command> --help" for a command\'s options.',
  ].join('\n');
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
function explained(e: GpuDeskError): GpuDeskError {
  if (e.code !== 'DNS_FAILED') return e;
  const host = /in (?:\S+@)?([^\s@:]+)(?::\d+)? could not be resolved/.exec(e.message)?.[1];
  if (!host || !notAProfile(host)) return e;
  return new GpuDeskError('DNS_FAILED', `No saved profile is named "${host}", and no host of that name was found`, 'check the spelling ("gpu-desk profiles list" shows the saved ones), or add a HostName for it in ~/.ssh/config');
}

/** The whole CLI: returns the exit code; errors become one line on stderr starting "error: ". */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  // Any command's <destination> may name a saved profile.
  setDestinationResolver(profileDestinations);
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    if (name === 'help' && rest[0] && getCommand(rest[0])) {
      writeLine(io.stdout, getCommand(rest[0])!.help);
      return 0;
    }
    writeLine(io.stdout, usage());
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-V') {
    writeLine(io.stdout, VERSION);
    return 0;
  }
  const cmd = getCommand(name);
  if (!cmd) {
    writeLine(io.stderr, `error: unknown command "${name}" — run "gpu-desk --help" for the list`);
    return 2;
  }
  const swapped = swappedWords(cmd, rest);
  if (swapped) {
    writeLine(io.stderr, `error: ${swapped}`);
    return 2;
  }
  try {
    return await cmd.run(rest, io);
  } catch (e) {
    if (isGpuDeskError(e)) {
      writeLine(io.stderr, `error: ${redactSecrets(explained(e).toLine())}`);
      return e.code === 'BAD_ARGUMENT' ? 2 : 1;
    }
    writeLine(io.stderr, `error: ${redactSecrets((e as Error)?.message ?? String(e)).split('\n')[0]} — this is a bug in gpu-desk; please report it`);
    return 1;
  }
}
