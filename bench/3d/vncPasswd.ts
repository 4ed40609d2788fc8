import { spawn } from 'node:child_process';

/** TigerVNC's vncpasswd -f: the password on stdin, never on a command line. */
export function vncPasswdFile(password: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const p = spawn('vncpasswd', ['-f'], { stdio: ['pipe', 'pipe', 'ignore'] });
    const out: Buffer[] = [];
    p.stdout!.on('data', (d: Buffer) => out.push(d));
    p.once('exit', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`vncpasswd -f failed (${code})`))));
    p.stdin!.end(`${password}\n`);
  });
}
