import { parseArgs, type ParseArgsConfig } from 'node:util';
import { GpuDeskError } from '../errors';

/** node:util parseArgs with errors turned into one-line usage errors that name the command's help. */
export function parseCommandArgs<T extends NonNullable<ParseArgsConfig['options']>>(
  command: string,
  args: string[],
  options: T,
): { values: Record<string, string | boolean | string[] | boolean[] | undefined>; positionals: string[] } {
  try {
    const r = parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
    return { values: r.values as Record<string, string | boolean | string[] | undefined>, positionals: r.positionals };
  } catch (e) {
    const msg = (e as Error).message.split('\n')[0].replace(/\. To specify a positional argument.*$/, '');
    throw new GpuDeskError('BAD_ARGUMENT', msg, `see "gpu-desk ${command} --help"`);
  }
}

export class UsageError extends GpuDeskError {
  constructor(message: string, command: string) {
    super('BAD_ARGUMENT', message, `see "gpu-desk ${command} --help"`);
  }
}
