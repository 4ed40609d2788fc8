import net from 'node:net';
import type { SshSession } from '../ssh/types';

/** Ready-made commands for the native viewers (each accepts host::port for a raw TCP port). */
export function viewerCommands(host: string, port: number): { turbovnc: string; tigervnc: string; realvnc: string } {
  const target = `${host}::${port}`;
  return {
    turbovnc: `/opt/TurboVNC/bin/vncviewer ${target}`,
    tigervnc: `vncviewer ${target}`,
    realvnc: `vncviewer ${target}`,
  };
}

/**
 * Does the forwarded service speak HTTP? Asked once through the tunnel itself (HEAD /), so the UI
 * offers "open in browser" only for web services such as Jupyter or TensorBoard.
 */
export async function probeHttp(s: Pick<SshSession, 'forwardOut'>, host: string, port: number, timeoutMs = 1500): Promise<boolean> {
  let stream;
  try {
    stream = await s.forwardOut(host, port);
  } catch {
    return false;
  }
  return new Promise<boolean>((resolve) => {
    let buf = '';
    const done = (v: boolean) => {
      clearTimeout(timer);
      stream.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    stream.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      if (buf.length >= 12) done(/^HTTP\/\d(\.\d)? \d{3}/.test(buf));
    });
    stream.on('error', () => done(false));
    stream.on('close', () => done(/^HTTP\/\d(\.\d)? \d{3}/.test(buf)));
    stream.write('HEAD / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n');
  });
}

/**
 * Does anything answer HTTP at a forward's local address? A real request through the whole path
 * (listener → SSH channel → the service), so a forward whose far end is down says so.
 */
export function probeLocalHttp(port: number, timeoutMs = 10_000): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    let buf = '';
    const sock = net.connect({ host: '127.0.0.1', port });
    const done = (v: boolean) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    sock.on('connect', () => sock.write(`HEAD / HTTP/1.0\r\nHost: 127.0.0.1:${port}\r\n\r\n`));
    sock.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      if (buf.length >= 12) done(/^HTTP\/\d(\.\d)? \d{3}/.test(buf));
    });
    sock.on('error', () => done(false));
    sock.on('close', () => done(/^HTTP\/\d(\.\d)? \d{3}/.test(buf)));
  });
}
