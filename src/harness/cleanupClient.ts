import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

/** The demo's side of cleanupSupervisor.ts: what to end and remove, handed over as soon as it exists. */
export interface CleanupSupervisor {
  /** "GPU_DESK_DEMO=…": every process whose environment holds it is ended at the demo's end. */
  marker: string;
  /** Removed at the end (recursively). */
  removeDir(dir: string): void;
  /** Its X lock file and socket are removed at the end, if its server has gone. */
  releaseDisplay(n: number): void;
  /** Ends everything now and resolves once done (or once the supervisor has gone). */
  stop(): Promise<void>;
}

/**
 * Starts the supervisor in a session of its own (detached): a signal to the demo's process group, or
 * the demo's death, leaves it running with our pipe closed, which is its cue to clean up.
 */
export async function startCleanupSupervisor(): Promise<CleanupSupervisor> {
  const marker = `GPU_DESK_DEMO=${randomBytes(16).toString('hex')}`;
  const env = { ...process.env };
  delete env.GPU_DESK_DEMO;
  // The same Node, with the same loader flags (tsx's) this process runs with.
  const child = spawn(process.execPath, [...process.execArgv, path.join(__dirname, 'cleanupSupervisor.ts')], {
    detached: true,
    stdio: ['pipe', 'pipe', 'inherit'],
    env,
  });
  child.stdin!.on('error', () => {});
  let out = '';
  const lines = new Set<(text: string) => void>();
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => {
    out += d;
    for (const f of lines) f(out);
  });
  const waitFor = (word: string) =>
    new Promise<void>((resolve, reject) => {
      const check = (text: string) => {
        if (text.split('\n').includes(word)) {
          lines.delete(check);
          resolve();
        }
      };
      lines.add(check);
      check(out);
      child.once('exit', (code) => (word === 'done' ? resolve() : reject(new Error(`the clean-up supervisor exited (${code}) before it was ready`))));
    });
  await waitFor('ready');
  const send = (o: object) => child.stdin!.write(JSON.stringify(o) + '\n');
  send({ marker });
  return {
    marker,
    removeDir: (dir) => send({ dir }),
    releaseDisplay: (display) => send({ display }),
    stop: () => {
      const done = waitFor('done');
      send({ stop: true });
      return done;
    },
  };
}
