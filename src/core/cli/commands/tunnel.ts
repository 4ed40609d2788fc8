import type { JobDesktopLink } from '../../cluster/connect';
import { runningDesktopJob } from '../../cluster/jobTunnel';
import { describeStatus, formatTimeLeft, JobWatcher } from '../../cluster/lifecycle';
import type { JobStatus } from '../../cluster/types';
import { GpuDeskError } from '../../errors';
import { connectSsh, type SshConnection } from '../../ssh/connection';
import type { ConnectionStateEvent } from '../../ssh/types';
import { displayNumber, parseForwardSpec, type ForwardSpec } from '../../tunnels/forwardSpec';
import { TunnelManager } from '../../tunnels/tunnelManager';
import { speaksHttp } from '../../tunnels/httpCheck';
import { displayEndpoint, newOneTimePassword, ownerText } from '../../remote/vncSessions';
import { openDesktopTunnel, type DesktopTunnel } from '../../tunnels/desktopTunnel';
import type { TunnelInfo } from '../../tunnels/tunnel';
import { jsonText, writeLine, type CliIo } from '../io';
import { parseCommandArgs, UsageError } from '../parse';
import { registerCommand } from '../registry';
import { resolveDestination, sshOptionHelp, sshOptionSpec, type SshOptionValues } from '../sshOptions';
import { remoteOptRoot } from '../remoteOptRoot';

const help = [
  'Usage: gpu-desk tunnel <destination> --display N [options]',
  '       gpu-desk tunnel <cluster> [--job JOBID] [options]',
  '',
  'Forward a local port on 127.0.0.1 to the VNC display :N of a server over SSH (the session\'s Unix',
  'socket when it has one, else port 5900+N on the server\'s loopback),',
  'for any VNC viewer. Keeps the tunnel up: reconnects after network drops on the same local port.',
  '',
  '<destination> is user@host, host, a ~/.ssh/config alias or a saved profile name.',
  '',
  'Options:',
  '  --display N              VNC display number on the server (0-99)',
  '  --job JOBID              the desktop of a running gpu-desk Slurm job (see gpu-desk jobs): through the',
  '                           login node to the node by SSH and the session\'s Unix socket, or by the',
  '                           login node\'s TCP forward, as the job was started; prints a one-time password.',
  '                           A cluster profile without --job: its one running desktop job',
  '  --local-port P           local port (default 5900+N when free, else any free port)',
  '  --any-listener           forward display N even when it is not one of your desktops (another',
  '                           account\'s listener there would see your keystrokes): prints whose it is',
  '  --no-password            make no one-time password: you hold one already (an invite\'s view-only',
  '                           password, which a new one would replace: TurboVNC keeps one at a time)',
  '  -L [127.0.0.1:]L:H:R     extra forward, e.g. -L 8888:localhost:8888 for Jupyter (repeatable)',
  '  --json                   one JSON object per line on stdout (listening, reconnecting, ready, closed,',
  '                           open-failed); "listening" carries the viewer\'s password',
  '',
  'A desktop gpu-desk started asks for a password: a fresh one-time password (TurboVNC) is printed',
  'beside the address; another one: gpu-desk sessions <destination> otp N.',
  ...sshOptionHelp,
  '',
  'Example:',
  '  gpu-desk tunnel me@gpu-server --display 1 -L 6006:localhost:6006',
].join('\n');

/** How long the listing waits for a forward to answer HTTP (a silent service must not hold up "Press Ctrl+C" for long). */
const HTTP_CHECK_MS = 3000;

async function run(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('tunnel', args, {
    ...sshOptionSpec,
    display: { type: 'string', short: 'd' },
    job: { type: 'string' },
    'local-port': { type: 'string' },
    'any-listener': { type: 'boolean' },
    'no-password': { type: 'boolean' },
    L: { type: 'string', short: 'L', multiple: true },
    json: { type: 'boolean' },
  });
  if (values.help) {
    writeLine(io.stdout, help);
    return 0;
  }
  if (positionals.length !== 1) throw new UsageError(positionals.length ? `Too many arguments: ${positionals.slice(1).join(' ')}` : 'The destination is missing', 'tunnel');
  const destination = positionals[0];
  const json = !!values.json;
  const forwards: ForwardSpec[] = ((values.L as string[] | undefined) ?? []).map(parseForwardSpec);
  const { options: opts, defaults } = await resolveDestination(destination, values as SshOptionValues, io);
  // A saved profile supplies its display and forwards when the command line does not.
  if (values.display === undefined && defaults.display !== undefined) values.display = String(defaults.display);
  if (!forwards.length && defaults.forwards?.length) forwards.push(...defaults.forwards);
  // A cluster profile's desktop is a job's: without --job, the one that runs (found once connected).
  const pickJob = values.job === undefined && values.display === undefined && !forwards.length && defaults.job !== undefined;

  let display: number | undefined;
  if (values.job !== undefined || pickJob) {
    if (values.display !== undefined || forwards.length) throw new UsageError('--job takes neither --display nor -L: the job says where its desktop is', 'tunnel');
  } else if (values.display !== undefined) {
    display = displayNumber(String(values.display)); // checked before any network work
  } else if (!forwards.length) {
    throw new UsageError('--display N is required (or at least one -L forward, or a profile with a saved display)', 'tunnel');
  }
  let localPort: number | undefined;
  if (values['local-port'] !== undefined) {
    const p = String(values['local-port']);
    localPort = Number(p);
    if (!/^\d+$/.test(p) || localPort < 1 || localPort > 65535) {
      throw new GpuDeskError('BAD_ARGUMENT', `--local-port ${p} is not a port number`, 'use a number between 1 and 65535');
    }
  }

  const emit = (obj: Record<string, unknown>) => { if (json) writeLine(io.stdout, jsonText(obj)); };
  const human = (line: string) => { if (!json) writeLine(io.stdout, line); };

  opts.reconnect = { enabled: true, ...(opts.reconnect ?? {}) };
  if (io.env.GPU_DESK_RECONNECT_INITIAL_MS) opts.reconnect.initialDelayMs = Number(io.env.GPU_DESK_RECONNECT_INITIAL_MS);
  const conn: SshConnection = await connectSsh(opts);
  let link: JobDesktopLink | null = null;
  let desk: DesktopTunnel | null = null;
  let watcher: JobWatcher | null = null;
  let tm = new TunnelManager(conn);
  const closeAll = async () => {
    desk?.release();
    watcher?.stop();
    await tm.closeAll();
    await link?.close();
    await conn.close();
  };
  let main: TunnelInfo | undefined;
  const extra: TunnelInfo[] = [];
  try {
    const optRoot = remoteOptRoot(io);
    const jobId = values.job !== undefined ? String(values.job) : pickJob ? (await runningDesktopJob(conn, destination)).jobId : undefined;
    if (jobId !== undefined || display !== undefined) {
      desk = await openDesktopTunnel(conn, tm, jobId !== undefined ? { jobId } : { display: display! }, {
        localPort, destination, loginOptions: opts, anyListener: !!values['any-listener'], noPassword: !!values['no-password'],
        remote: { endpoint: (s, d) => displayEndpoint(s, d, { optRoot }), oneTimePassword: (s, d) => newOneTimePassword(s, d, { optRoot }) },
      });
      ({ link, tunnels: tm, info: main } = desk);
      if (jobId !== undefined) watcher = new JobWatcher(conn, jobId);
    }
    for (const f of forwards) extra.push(await tm.openForward(f));
  } catch (e) {
    await closeAll();
    throw e;
  }
  // A viewer whose forward the server would not open is closed at once (Tunnel does): say why, as ssh -L does.
  tm.on('forward-error', ({ error }: { error: Error }) => {
    const fix = error instanceof GpuDeskError && error.fix ? error.fix : null;
    emit({ event: 'open-failed', reason: error.message, ...(fix ? { fix } : {}) });
    if (!json) writeLine(io.stderr, `channel: open failed: ${error.message}${fix ? ` — ${fix}` : ''}`);
  });
  const otp = desk?.password ?? null;

  const announce = async () => {
    const fwd = extra.map((t) => ({ local: `127.0.0.1:${t.localPort}`, remote: `${t.remoteHost}:${t.remotePort}` }));
    if (main && link) {
      emit({ event: 'listening', local: `127.0.0.1:${main.localPort}`, job: link.info.jobId, node: link.info.node, display: main.display, mode: link.mode, why: link.why, otp });
    } else if (main) {
      const remote = main.remoteSocket ? { remote: main.remoteSocket, remoteSocket: main.remoteSocket } : { remote: `${main.remoteHost}:${main.remotePort}` };
      const owner = desk?.owner && desk.owner.kind !== 'mine' ? { owner: ownerText(desk.owner) } : {};
      emit({ event: 'listening', local: `127.0.0.1:${main.localPort}`, ...remote, display: main.display, password: otp, passwordKind: desk?.passwordKind ?? null, ...owner, ...(fwd.length ? { forwards: fwd } : {}) });
    } else {
      emit({ event: 'listening', forwards: fwd });
    }
    human(`Connected to ${conn.label}.`);
    if (main && link) {
      human(`Job ${link.info.jobId}'s desktop :${main.display} on ${link.info.node} is on 127.0.0.1:${main.localPort}, through ${link.mode === 'ssh' ? 'SSH to the node' : 'the login node\'s TCP forward'}: ${link.why}.`);
      human(`  vncviewer 127.0.0.1::${main.localPort}    one-time password (one connection): ${otp}`);
      human(`  Another password: gpu-desk jobs ${destination} otp ${link.info.jobId}`);
    } else if (main) {
      const via = main.remoteSocket ? ` (the session's socket ${main.remoteSocket} on the server)` : '';
      if (desk?.owner && desk.owner.kind !== 'mine') human(`Display :${main.display} is not one of your desktops: ${ownerText(desk.owner)} listens there.`);
      human(`Display :${main.display} is on 127.0.0.1:${main.localPort}${via}. Point a VNC viewer at it:`);
      human(`  vncviewer 127.0.0.1::${main.localPort}        (TigerVNC / TurboVNC; RealVNC: 127.0.0.1:${main.localPort})`);
      if (otp && desk?.passwordKind === 'otp') {
        human(`  One-time password (one connection): ${otp}    another: gpu-desk sessions ${destination} otp ${main.display}`);
      } else if (otp) {
        human(`  Password for this desktop: ${otp}`);
      } else if (desk?.passwordNote && desk.owner?.kind === 'mine') {
        human(`  No password given: ${desk.passwordNote}`);
      }
    }
    // Asked through each forward, as the app asks: a web service on any port gets its address.
    const web = json ? extra.map(() => false) : await Promise.all(extra.map((t) => speaksHttp(t.localPort, HTTP_CHECK_MS)));
    for (const [i, t] of extra.entries()) {
      const url = web[i] ? `   http://127.0.0.1:${t.localPort}/` : '';
      human(`Forward 127.0.0.1:${t.localPort} → ${t.remoteHost}:${t.remotePort} on the server${url}`);
    }
    human('Press Ctrl+C to close the tunnel.');
  };

  return new Promise<number>((resolve) => {
    let finished = false;
    const finish = async (code: number, reason: string, err?: string) => {
      if (finished) return;
      finished = true;
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await closeAll().catch(() => {});
      emit({ event: 'closed', reason });
      if (err) writeLine(io.stderr, `error: ${err}`);
      else human('Tunnel closed.');
      resolve(code);
    };
    const onSignal = (sig: NodeJS.Signals) => void finish(0, sig === 'SIGINT' ? 'interrupted' : 'terminated');
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    conn.on('state', (e: ConnectionStateEvent) => {
      if (finished) return;
      if (e.state === 'reconnecting') {
        emit({ event: 'reconnecting', attempt: e.attempt, delayMs: e.delayMs });
        if (!json) writeLine(io.stderr, `Connection lost; reconnecting (attempt ${e.attempt}) in ${((e.delayMs ?? 0) / 1000).toFixed(1)} s…`);
      } else if (e.state === 'ready') {
        emit({ event: 'ready', local: main ? `127.0.0.1:${main.localPort}` : undefined });
        if (!json) writeLine(io.stderr, 'Reconnected; the tunnel is up again on the same port.');
      } else if (e.state === 'closed') {
        void finish(1, e.reason ?? 'connection closed', e.reason);
      }
    });
    watcher?.on('warning', (w: { secondsLeft: number; threshold: number }) => {
      emit({ event: 'warning', secondsLeft: w.secondsLeft });
      if (!json) writeLine(io.stderr, `The job reaches its time limit in ${formatTimeLeft(w.secondsLeft)}: save your work.`);
    });
    watcher?.on('ended', (st: JobStatus) => {
      if (!json) writeLine(io.stderr, describeStatus(st));
      void finish(0, `job ended: ${st.endedWhy ?? st.state}`);
    });
    // Only now say "ready": a script that reacts to it with SIGTERM must find the handler installed.
    void announce();
    watcher?.start();
  });
}

registerCommand({ name: 'tunnel', help, run });
