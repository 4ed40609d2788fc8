import { processIo, writeLine, type CliIo } from './io';

/**
 * The commands, in the order --help lists them. This file holds only what --help, --version and an
 * unknown command need: runCommand.ts, and the command it loads, come in only when a command runs,
 * and scripts/build-cli.mjs puts runCommand.ts in a file of its own, so that `gpu-desk --help` reads
 * and parses a few kilobytes, not the whole CLI (issue 43: on a busy machine every start took seconds).
 */
export const COMMANDS = [
  { name: 'tunnel', summary: 'forward a local port to a server\'s VNC display over SSH (tunnel-only mode)' },
  { name: 'profiles', summary: 'saved servers: list, add, remove, import from ~/.ssh/config, export/import' },
  { name: 'keys', summary: 'SSH keys in the OS keychain: generate, import, list, install on a server, remove' },
  { name: 'probe', summary: 'diagnose a GPU server: GPUs, VirtualGL, VNC, sessions, and what to fix' },
  { name: 'sessions', summary: 'list, start (on localhost, with a one-time password) or kill VNC sessions' },
  { name: 'setup', summary: 'review and apply the server set-up plan (VirtualGL, TurboVNC, desktop)' },
  { name: 'jobs', summary: 'a GPU desktop as a Slurm job: start (sbatch), list, cancel, one-time passwords' },
] as const;

export type CommandName = (typeof COMMANDS)[number]['name'];

const isCommand = (name: string | undefined): name is CommandName => COMMANDS.some((c) => c.name === name);

const VERSION = '0.1.0';

function usage(): string {
  const w = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'gpu-desk — use a headless GPU server as if its screen were on your desk',
    '',
    'Usage: gpu-desk <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(w)}  ${c.summary}`),
    '',
    'Run "gpu-desk <command> --help" for a command\'s options.',
  ].join('\n');
}

/** The whole CLI: returns the exit code; errors become one line on stderr starting "error: ". */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    if (name === 'help' && isCommand(rest[0])) {
      writeLine(io.stdout, await (await import('./runCommand')).commandHelp(rest[0]));
      return 0;
    }
    writeLine(io.stdout, usage());
    return name ? 0 : 2;
  }
  if (name === '--version' || name === '-V') {
    writeLine(io.stdout, VERSION);
    return 0;
  }
  if (!isCommand(name)) {
    writeLine(io.stderr, `error: unknown command "${name}" — run "gpu-desk --help" for the list`);
    return 2;
  }
  return (await import('./runCommand')).runCommand(name, rest, io);
}
