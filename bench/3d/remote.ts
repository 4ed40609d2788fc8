/**
 * What bench:3d runs on the server side, as the bed's user over OpenSSH straight to the bed's sshd
 * (never through the shaped link: these are the server's own programs, not desk-to-server traffic).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { SshdBed } from '../../test/bed';
import { shellCommand } from '../../src/core/remote/shellQuote';
import { opensshClientArgs } from '../tunnel/procs';

export const TURBOVNC_BIN = '/opt/TurboVNC/bin';
export const VIRTUALGL_BIN = '/opt/VirtualGL/bin';

/** `argv` run remotely as the bed's user; resolves with its output, rejects naming it when it fails. */
export function sshRun(bed: SshdBed, argv: string[], timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('ssh', [...opensshClientArgs(bed, bed.port), `${bed.user}@127.0.0.1`, shellCommand(argv)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`${argv.join(' ')} on the server failed (${code}): ${out.trim().split('\n').slice(-3).join(' | ')}`));
    });
  });
}

/**
 * A long-running remote program on a terminal (`ssh -tt`): its stdio is then line-buffered, as a
 * person at a terminal sees it, and closing the connection hangs it up. `extra` are ssh options
 * (e.g. -X), `port` the sshd port dialled (a shaped link's proxy, or the bed itself).
 */
export function sshTerminal(bed: SshdBed, port: number, argv: string[], extra: string[] = [], env: NodeJS.ProcessEnv = process.env): ChildProcess {
  return spawn('ssh', ['-tt', ...extra, ...opensshClientArgs(bed, port), `${bed.user}@127.0.0.1`, shellCommand(argv)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env,
    detached: true,
  });
}
