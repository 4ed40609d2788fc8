import { connectSsh, type SshConnection } from '../../ssh/connection';
import { probeServer, remoteOptRootFrom } from '../../remote/probe';
import { formatReport } from '../../remote/reportText';
import { jsonText, writeLine, type CliIo } from '../io';
import { parseCommandArgs, UsageError } from '../parse';
import { registerCommand } from '../registry';
import { withConnection } from '../withConnection';
import { connectOptionsFromFlags, sshOptionHelp, sshOptionSpec, type SshOptionValues } from '../sshOptions';

/** Where VirtualGL/ and TurboVNC/ live on the server: the same setting the app reads (remoteOptRootFrom). */
export function remoteOptRoot(io: CliIo): string {
  return remoteOptRootFrom(io.env);
}

/** One SSH connection for a one-shot remote command (no reconnect: a drop ends the command with an error). */
export async function connectFor(destination: string, values: SshOptionValues, io: CliIo): Promise<SshConnection> {
  return connectSsh({ ...(await connectOptionsFromFlags(destination, values, io)), reconnect: { enabled: false } });
}

export function destinationOf(positionals: string[], command: string): string {
  if (positionals.length === 0) throw new UsageError('The destination is missing', command);
  return positionals[0];
}

const help = [
  'Usage: gpu-desk probe <destination> [options]',
  '',
  'Look at a server without changing anything (no root needed, a few seconds): OS, NVIDIA GPUs,',
  'VirtualGL and its back ends, the 3D X server on :0, the VNC server, running sessions and where they',
  'listen, window managers, the H.264 encoders video mode can use (each tried on one frame), the Vulkan',
  'loader, driver files (ICDs) and devices (vulkaninfo --summary) — then what',
  'is wrong, in plain words, and how to fix it.',
  '',
  '<destination> is user@host, host, a ~/.ssh/config alias or a saved profile name.',
  '',
  'Options:',
  '  --json                   one JSON object: os, gpus, virtualgl, vnc, sessions, video, vulkan, findings (and more)',
  ...sshOptionHelp,
].join('\n');

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('probe', args, { ...sshOptionSpec, json: { type: 'boolean' } });
  if (values.help) {
    writeLine(io.stdout, help);
    return 0;
  }
  const destination = destinationOf(positionals, 'probe');
  if (positionals.length > 1) throw new UsageError(`Too many arguments: ${positionals.slice(1).join(' ')}`, 'probe');
  return withConnection(await connectOptionsFromFlags(destination, values as SshOptionValues, io), async (conn) => {
    const report = await probeServer(conn, { optRoot: remoteOptRoot(io) });
    writeLine(io.stdout, values.json ? jsonText(report) : formatReport(report));
    return 0;
  });
}

registerCommand({ name: 'probe', summary: 'diagnose a GPU server: GPUs, VirtualGL, VNC, sessions, and what to fix', help, run });
