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

/**
 * `sh -c '<script>'`: a multi-line POSIX script. It runs whatever the account's login shell (bash, dash,
 * zsh, fish, csh, tcsh) and whatever the server's command-length limit, because the session exec never
 * puts it on the command line: it travels on stdin (commandOnStdin below).
 */
export function shScript(script: string, args: readonly string[] = []): string {
  return shellCommand(['sh', '-c', script, 'gpu-desk', ...args]);
}

/**
 * Marks the end of a command sent on stdin: a connection that drops part-way leaves a text without it,
 * and a partial command is never run.
 */
const END_MARK = '@gpu-desk-command-end@';

/** The short line the server's login shell is given, and what is written to the channel's stdin first. */
export interface StdinCommand {
  line: string;
  stdinPrefix: Buffer;
}

/**
 * How the session exec runs any command line (THE place commands become an SSH exec request).
 *
 * sshd hands the exec string to the account's login shell (`$SHELL -c '<string>'`), so the string itself
 * must survive that shell and the server's limits: tcsh and csh reject a newline inside single quotes
 * ("Unmatched '''"), and Dropbear ends the connection over a command longer than 9000 bytes ("String too
 * long"). So the line is a fixed, short, single-line `sh -c '…'` with no newline, backslash, `!` or double
 * quote outside the single quotes, which bash, dash, zsh, ksh, fish, csh and tcsh all read the same; the
 * command itself follows on stdin.
 *
 * `more`: the caller writes its own stdin after the command (a sudo password, a PNG, a stream). The
 * bootstrap then reads exactly the command's bytes (`dd bs=1`: one byte per read, so nothing past them is
 * consumed; head -c and sh's buffered reads may take more) and the rest of stdin is the command's. With
 * nothing after it, `cat` reads the whole (faster) and the command's stdin is at its end, as before.
 */
export function commandOnStdin(command: string, more: boolean): StdinCommand {
  if (command.includes('\0')) {
    throw new GpuDeskError('BAD_ARGUMENT', 'A remote command contains a NUL byte', 'Remove the NUL character from the value');
  }
  const stdinPrefix = Buffer.from(command + END_MARK, 'utf8');
  const read = more ? `dd bs=1 count=${stdinPrefix.length} 2>/dev/null` : 'cat';
  // The mark is checked, then cut off; command substitution keeps every byte but trailing newlines, which the mark protects.
  const script = `c=$(${read}) && case $c in *${END_MARK}) eval "\${c%${END_MARK}}";; *) echo "gpu-desk: the command did not arrive whole" >&2; exit 126;; esac`;
  return { line: `sh -c ${shellQuote(script)}`, stdinPrefix };
}
