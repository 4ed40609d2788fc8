import type { Readable, Writable } from 'node:stream';
import { escapeServerText, UNSAFE_TEXT } from '../serverText';

/** Where a command reads and writes; tests pass their own streams. */
export interface CliIo {
  stdout: Writable;
  stderr: Writable;
  stdin: Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => void };
  /** Whether a person can be asked questions (stdin and stderr are terminals). */
  interactive: boolean;
  env: NodeJS.ProcessEnv;
}

export function processIo(): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    interactive: !!process.stdin.isTTY && !!process.stderr.isTTY,
    env: process.env,
  };
}

/**
 * Every line the CLI prints passes here, so text a server chose (a banner, a prompt, a reason in an
 * error, probe findings, command output) reaches the terminal with its control characters escaped.
 */
export function writeLine(w: Writable, line: string): void {
  w.write(escapeServerText(line) + '\n');
}

/** JSON for a terminal: the same value, with the characters writeLine would escape written as \uXXXX. */
export function jsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(UNSAFE_TEXT, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
