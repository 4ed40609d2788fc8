import net from 'node:net';

/**
 * "Does this forward speak HTTP?", asked the one way the app and the CLI both use: a real request to
 * the forward's local port (listener → SSH channel → the service), so a forward whose far end is down
 * says no, and a web service on any port (Jupyter, TensorBoard, a dev server) says yes.
 */
export function speaksHttp(localPort: number, timeoutMs = 10_000): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    let buf = '';
    const sock = net.connect({ host: '127.0.0.1', port: localPort });
    const done = (v: boolean) => {
      clearTimeout(timer);
      sock.destroy();
      resolve(v);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    sock.on('connect', () => sock.write(`HEAD / HTTP/1.0\r\nHost: 127.0.0.1:${localPort}\r\n\r\n`));
    sock.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      if (buf.length >= 12) done(/^HTTP\/\d(\.\d)? \d{3}/.test(buf));
    });
    sock.on('error', () => done(false));
    sock.on('close', () => done(/^HTTP\/\d(\.\d)? \d{3}/.test(buf)));
  });
}
