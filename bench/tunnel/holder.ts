/**
 * The process holding our tunnel, as the app's would: connectSsh + TunnelManager, nothing else,
 * so the bench measures the product's code path and this process's memory alone.
 * argv[2]: JSON HolderConfig. Reports { port } over IPC when the tunnel listens; 'gc' → collect.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectSsh } from '../../src/core/ssh/connection';
import { TunnelManager } from '../../src/core/tunnels/tunnelManager';

export interface HolderConfig {
  sshPort: number;
  user: string;
  keyPath: string;
  /** known_hosts naming [127.0.0.1]:sshPort: the host key is checked as the app checks it. */
  knownHostsFile: string;
  targetPort: number;
}

async function main(): Promise<void> {
  const cfg = JSON.parse(process.argv[2]) as HolderConfig;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-holder-'));
  const conn = await connectSsh({
    destination: `${cfg.user}@127.0.0.1`,
    port: cfg.sshPort,
    identityFiles: [cfg.keyPath],
    sshConfigPath: null,
    userKnownHostsFiles: [cfg.knownHostsFile],
    appKnownHostsFile: path.join(dir, 'known_hosts'),
    agent: false,
    reconnect: { enabled: false },
    callbacks: {},
  });
  const tunnels = new TunnelManager(conn);
  const info = await tunnels.openForward({ localPort: 0, remoteHost: '127.0.0.1', remotePort: cfg.targetPort });
  process.on('message', (m: { cmd?: string }) => {
    if (m.cmd === 'gc') {
      (globalThis as { gc?: () => void }).gc?.();
      process.send?.({ gc: true });
    }
  });
  process.on('disconnect', () => {
    void tunnels.closeAll().then(() => conn.close()).finally(() => {
      fs.rmSync(dir, { recursive: true, force: true });
      process.exit(0);
    });
  });
  process.send?.({ port: info.localPort });
}

main().catch((e: Error) => {
  process.send?.({ error: e.message });
  process.exit(1);
});
