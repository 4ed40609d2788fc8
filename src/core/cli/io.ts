import type { Readable, Writable } from 'node:stream';

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

export function writeLine(w: Writable, line: string): void {
  w.write(line + '\n');
}
