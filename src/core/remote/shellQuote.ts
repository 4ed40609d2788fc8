import { GpuDeskError } from '../errors';

/**
 * THE quoting function for every argument that reaches a remote shell.
 *
 * POSIX single quotes turn off every expansion ($, `, \, globbing, ~, newlines are literal); the only
 * character that cannot appear inside them is the quote itself, which is closed, escaped and reopened.
 * Words made only of characters that no shell treats specially are left bare so commands stay readable
 * in the plan the user reviews. A bare `NAME=value` word is still quoted: in command position it is an assignment.
 */
const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

export function shellQuote(arg: string): string {
  if (typeof arg !== 'string') {
    throw new GpuDeskError('BAD_ARGUMENT', `A remote command argument is a ${typeof arg}, not text`, 'Pass strings only to shellQuote');
  }
  // A NUL byte would silently truncate the argument in the remote exec(); refuse instead of guessing.
  if (arg.includes('\0')) {
    throw new GpuDeskError('BAD_ARGUMENT', 'A remote command argument contains a NUL byte', 'Remove the NUL character from the value');
  }
  if (arg !== '' && SAFE_WORD.test(arg) && !ASSIGNMENT.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** A whole command line from argv: each word quoted, joined by spaces. */
export function shellCommand(argv: readonly string[]): string {
  if (!Array.isArray(argv) || argv.length === 0) {
    throw new GpuDeskError('BAD_ARGUMENT', 'An empty remote command was requested', 'Give at least the program name');
  }
  return argv.map(shellQuote).join(' ');
}

/** `sh -c '<script>'`: runs a multi-line POSIX script whatever the account's login shell (bash, zsh, dash). */
export function shScript(script: string, args: readonly string[] = []): string {
  return shellCommand(['sh', '-c', script, 'gpu-desk', ...args]);
}
