import { createInterface } from 'node:readline';
import { GpuDeskError } from '../errors';
import { escapeServerText } from '../serverText';
import type { CliIo } from './io';
import { UsageError } from './parse';

/**
 * Ask one line on the terminal; hidden input for secrets (nothing echoed, nothing kept). The
 * question may come from the server (keyboard-interactive), so it is escaped like every line.
 */
export function ask(io: CliIo, question: string, opts: { hidden?: boolean } = {}): Promise<string | null> {
  return new Promise((resolve) => {
    const { stdin, stderr } = io;
    if (opts.hidden && stdin.isTTY && stdin.setRawMode) {
      // Echo off before the prompt shows, as readpassphrase(3) does: an answer typed (or sent by a
      // script) the moment the prompt appears must not be echoed by the terminal.
      stdin.setRawMode(true);
      stderr.write(escapeServerText(question));
      let buf = '';
      stdin.resume();
      const onData = (d: Buffer) => {
        for (const ch of d.toString('utf8')) {
          if (ch === '\r' || ch === '\n') return finish(buf);
          if (ch === '\u0003' || ch === '\u0004') return finish(null);
          if (ch === '\u007f' || ch === '\b') buf = buf.slice(0, -1);
          else buf += ch;
        }
      };
      const finish = (v: string | null) => {
        stdin.off('data', onData);
        stdin.setRawMode?.(false);
        stdin.pause();
        stderr.write('\n');
        resolve(v);
      };
      stdin.on('data', onData);
      return;
    }
    const rl = createInterface({ input: stdin, output: stderr, terminal: false });
    stderr.write(escapeServerText(question));
    let answered = false;
    rl.once('line', (l) => { answered = true; rl.close(); resolve(l); });
    rl.once('close', () => { if (!answered) resolve(null); });
  });
}

/** Read all of stdin (for --password-stdin); trailing newline removed. */
export async function readAllStdin(io: CliIo): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of io.stdin) chunks.push(Buffer.from(c as Buffer));
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** Hidden password from the terminal, or all of stdin with --password-stdin. */
export async function readSecret(io: CliIo, fromStdin: boolean, prompt: string, command: string): Promise<string> {
  if (fromStdin) {
    const s = await readAllStdin(io);
    if (!s) throw new UsageError('--password-stdin was given but stdin was empty', command);
    return s;
  }
  if (!io.interactive) throw new UsageError('no terminal to ask for the password; pipe it in with --password-stdin', command);
  const s = await ask(io, prompt, { hidden: true });
  if (s === null || s === '') throw new GpuDeskError('CANCELLED', 'no password given', 'run the command again');
  return s;
}
