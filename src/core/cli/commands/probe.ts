import { probeServer } from '../../remote/probe';
import { formatReport } from '../../remote/reportText';
import { jsonText, writeLine, type CliIo } from '../io';
import { parseCommandArgs, UsageError } from '../parse';
import { registerCommand } from '../registry';
import { remoteOptRoot } from '../remoteOptRoot';
import { connectOptionsFromFlags, destinationOf, sshOptionHelp, sshOptionSpec, type SshOptionValues } from '../sshOptions';
import { withConnection } from '../withConnection';

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

registerCommand({ name: 'probe', help, run });
