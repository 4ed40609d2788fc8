import { GpuDeskError, registerSecret } from '../../errors';
import { sessionLine } from '../../remote/reportText';
import { killSession, listSessions, newOneTimePassword, startSession } from '../../remote/vncSessions';
import { displayNumber } from '../../tunnels/forwardSpec';
import { jsonText, writeLine, type CliIo } from '../io';
import { parseCommandArgs, UsageError } from '../parse';
import { registerCommand } from '../registry';
import { remoteOptRoot } from '../remoteOptRoot';
import { destinationOf, sshOptionHelp, sshOptionSpec, type SshOptionValues } from '../sshOptions';
import { connectFor } from '../withConnection';

const help = [
  'Usage: gpu-desk sessions <destination> list|start|otp|kill [N] [options]',
  '',
  'VNC sessions of your account on the server (TurboVNC or TigerVNC).',
  '',
  '  list                     running sessions: display, port or Unix socket, pid, and whether only',
  '                           localhost can reach it',
  '  start [N]                a new session on display N (default: the next free one), always bound to',
  '                           localhost; prints its password for this connection (TurboVNC: a one-time',
  '                           password; TigerVNC: a random password for this session only)',
  '  otp N                    a fresh one-time password for TurboVNC session :N (one connection), for a',
  '                           viewer through gpu-desk tunnel',
  '  kill N                   stop session :N',
  '',
  'Options:',
  '  --geometry WxH           desktop size for start (default 1920x1080)',
  '  --wm COMMAND             window manager/desktop for start (default: the first one installed)',
  '  --no-virtualgl           do not run the window manager under VirtualGL',
  '  --flavor NAME            turbovnc or tigervnc: which VNC server start uses (default: TurboVNC when installed)',
  '  --tcp                    TurboVNC: listen on 127.0.0.1:5900+N instead of a Unix socket in ~/.vnc',
  '                           (the default: no TCP port at all; TigerVNC sessions always use TCP)',
  '  --json                   list: a JSON array; start: one JSON object {display, port, pid, password, …}',
  ...sshOptionHelp,
].join('\n');

function displayArg(v: string | undefined): number | undefined {
  return v === undefined ? undefined : displayNumber(v);
}

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('sessions', args, {
    ...sshOptionSpec,
    geometry: { type: 'string' },
    wm: { type: 'string' },
    'no-virtualgl': { type: 'boolean' },
    tcp: { type: 'boolean' },
    flavor: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    writeLine(io.stdout, help);
    return 0;
  }
  const destination = destinationOf(positionals, 'sessions');
  const action = positionals[1] ?? 'list';
  if (!['list', 'start', 'otp', 'kill'].includes(action)) throw new UsageError(`Unknown action "${action}": use list, start, otp or kill`, 'sessions');
  if (positionals.length > 3) throw new UsageError(`Too many arguments: ${positionals.slice(3).join(' ')}`, 'sessions');
  const n = displayArg(positionals[2]);
  if ((action === 'kill' || action === 'otp') && n === undefined) throw new UsageError(`${action} needs the display number, e.g. "${action} 1"`, 'sessions');
  if (action === 'list' && n !== undefined) throw new UsageError('list takes no display number', 'sessions');
  const json = !!values.json;
  const optRoot = remoteOptRoot(io);
  const flavor = values.flavor as string | undefined;
  if (flavor !== undefined && flavor !== 'turbovnc' && flavor !== 'tigervnc') throw new UsageError(`--flavor ${flavor}: use turbovnc or tigervnc`, 'sessions');

  const conn = await connectFor(destination, values as SshOptionValues, io);
  try {
    if (action === 'list') {
      const list = await listSessions(conn, { optRoot });
      if (json) writeLine(io.stdout, jsonText(list));
      else if (list.length === 0) writeLine(io.stdout, 'No VNC sessions are running for this account.');
      else for (const s of list) writeLine(io.stdout, sessionLine(s));
      return 0;
    }
    if (action === 'otp') {
      const found = (await listSessions(conn, { optRoot })).find((x) => x.display === n);
      if (!found) throw new GpuDeskError('VNC_SESSION_FAILED', `No VNC session :${n} is running for this account`, `list them with gpu-desk sessions ${destination} list`);
      if (found.flavor !== 'turbovnc') throw new GpuDeskError('VNC_SESSION_FAILED', `Session :${n} is a TigerVNC desktop, which has no one-time passwords`, 'give the password it was started with (gpu-desk sessions start printed it)');
      const otp = await newOneTimePassword(conn, n!, { optRoot });
      // Printed for the person on purpose; kept out of any error line meanwhile.
      const release = registerSecret(otp);
      try {
        if (json) writeLine(io.stdout, jsonText({ display: n, password: otp, passwordKind: 'otp' }));
        else writeLine(io.stdout, `One-time password for :${n} (valid for one connection): ${otp}`);
      } finally {
        release();
      }
      return 0;
    }
    if (action === 'kill') {
      await killSession(conn, n!, { optRoot });
      if (json) writeLine(io.stdout, jsonText({ display: n, killed: true }));
      else writeLine(io.stdout, `Session :${n} stopped.`);
      return 0;
    }
    const s = await startSession(conn, {
      optRoot,
      display: n,
      geometry: values.geometry as string | undefined,
      windowManager: values.wm as string | undefined,
      virtualgl: values['no-virtualgl'] ? 'off' : 'auto',
      transport: values.tcp ? 'tcp' : undefined,
      flavor,
    });
    if (json) {
      writeLine(io.stdout, jsonText(s));
    } else {
      writeLine(io.stdout, `Started ${sessionLine(s)}`);
      if (s.password) {
        writeLine(io.stdout, s.passwordKind === 'otp'
          ? `One-time password (valid for one connection): ${s.password}`
          : `Password for this session: ${s.password}`);
      }
      writeLine(io.stdout, `Connect: gpu-desk tunnel ${destination} --display ${s.display}`);
    }
    return 0;
  } finally {
    await conn.close();
  }
}

registerCommand({ name: 'sessions', help, run });
