import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Duplex } from 'node:stream';
import { GpuDeskError } from '../errors';

export interface ProxyProcess {
  /** The command's stdout (read) and stdin (write), for ssh2's `sock`. */
  sock: Duplex;
  /** Settles once the process has exited and its output is drained. */
  exited: Promise<{ code: number | null; signal: string | null }>;
  readonly hasExited: boolean;
  /** The last non-empty line the command wrote to stderr (for the error when it dies early). */
  readonly lastStderrLine: string;
  kill(): void;
}

/** A child's stdin/stdout as one stream; destroying it ends the child, as ssh does with its proxy. */
class ProcessStream extends Duplex {
  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    super({ allowHalfOpen: false });
    child.stdout.on('data', (d: Buffer) => {
      if (!this.push(d)) child.stdout.pause();
    });
    child.stdout.on('end', () => this.push(null));
    // A proxy that exits closes its stdin under us: that is the end of the connection, not a crash.
    child.stdin.on('error', (e) => this.destroy(e));
  }
  override _read(): void {
    this.child.stdout.resume();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, cb: (e?: Error | null) => void): void {
    this.child.stdin.write(chunk, cb);
  }
  override _final(cb: () => void): void {
    this.child.stdin.end();
    cb();
  }
  override _destroy(err: Error | null, cb: (e: Error | null) => void): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGHUP');
    cb(err);
  }
}

/**
 * Start a ProxyCommand the way ssh does: `exec` under the user's shell, so the pid is the command
 * itself and the shell handles its quoting. Its stderr is the command's own diagnostics: logged,
 * never shown to the user's terminal, and its last line explains an early exit.
 */
export function spawnProxyCommand(command: string, log: (line: string) => void): ProxyProcess {
  const shell = process.env.SHELL || '/bin/sh';
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(shell, ['-c', `exec ${command}`], { stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (e) {
    throw new GpuDeskError('PROXY_COMMAND_FAILED', `ProxyCommand could not be started with ${shell}: ${(e as Error).message}`, 'check the SHELL environment variable');
  }
  let lastLine = '';
  let done = false;
  let partial = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (d: string) => {
    const lines = (partial + d).split(/\r?\n/);
    partial = lines.pop() ?? '';
    for (const l of lines) {
      log(`ProxyCommand: ${l}`);
      if (l.trim()) lastLine = l.trim();
    }
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => {
    child.once('error', (e) => {
      lastLine = e.message;
      done = true;
      resolve({ code: null, signal: null });
    });
    child.once('close', (code, signal) => {
      if (partial.trim()) {
        log(`ProxyCommand: ${partial}`);
        lastLine = partial.trim();
      }
      done = true;
      log(`ProxyCommand exited (${signal ?? code})`);
      resolve({ code, signal });
    });
  });
  const sock = new ProcessStream(child);
  return {
    sock,
    exited,
    get hasExited() {
      return done;
    },
    get lastStderrLine() {
      return lastLine;
    },
    kill: () => sock.destroy(),
  };
}
