import type { CliIo } from './io';

export interface CliCommand {
  name: string;
  /** Full help text (usage and options). */
  help: string;
  run(args: string[], io: CliIo): Promise<number>;
}

const commands = new Map<string, CliCommand>();

/** Each command module registers itself when main.ts loads it (only the command being run). */
export function registerCommand(c: CliCommand): void {
  commands.set(c.name, c);
}

export function getCommand(name: string): CliCommand | undefined {
  return commands.get(name);
}

/**
 * The actions a command takes after its destination, as its help's usage line lists them
 * ("Usage: gpu-desk sessions <destination> list|start|otp|kill …" → list, start, otp, kill).
 */
export function actionsAfterDestination(c: CliCommand): string[] {
  const m = /^Usage: gpu-desk \S+ <(?:destination|cluster)> ([a-z-]+(?:\|[a-z-]+)+)/m.exec(c.help);
  return m ? m[1].split('|') : [];
}
