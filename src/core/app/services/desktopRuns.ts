import { randomBytes } from 'node:crypto';
import { GpuDeskError } from '../../errors';
import { desktopRunState, runInDesktop, stopDesktopRun, type DesktopRun, type RunShell } from '../../remote/desktopRun';
import type { HandlersOf } from '../../../shared/contract';
import type { ConnectionScope } from '../connectionScope';

export interface DesktopRunsDeps {
  /** The server's live connection (throws NOT_CONNECTED when it is not). */
  shell(connectionId: string): RunShell;
  /** The connection's scope: the window can no longer ask about its runs once it closed. */
  scope(connectionId: string): ConnectionScope;
  log(line: string): void;
}

interface Run extends DesktopRun {
  connectionId: string;
  display: number;
}

/**
 * runs.*: programs started in a server's desktops ("Run in desktop…"). The window knows a run by its
 * id only: the pid and log path it stands for never come from the window, so nothing it sends can name
 * another process or file on the server. The command line is not logged (it may carry a token).
 */
export class DesktopRuns {
  private readonly runs = new Map<string, Run>();

  constructor(private readonly deps: DesktopRunsDeps) {}

  handlers(): HandlersOf<'runs'> {
    return {
      'runs.start': async ({ connectionId, display, command, virtualgl }) => {
        const r = await runInDesktop(this.deps.shell(connectionId), display, command, virtualgl);
        const runId = `run-${randomBytes(8).toString('hex')}`;
        this.runs.set(runId, { ...r, connectionId, display });
        // The program goes on on the server; only what the window may ask about it goes.
        this.deps.scope(connectionId).add(() => void this.runs.delete(runId));
        this.deps.log(`run in desktop :${display}: started, pid ${r.pid}${r.vglrun ? ' under vglrun' : ''}`);
        return { runId, display, vglrun: r.vglrun };
      },
      'runs.output': async ({ runId }) => {
        const r = this.run(runId);
        return desktopRunState(this.deps.shell(r.connectionId), r);
      },
      'runs.stop': async ({ runId }) => {
        const r = this.run(runId);
        await stopDesktopRun(this.deps.shell(r.connectionId), r);
        this.deps.log(`run in desktop :${r.display}: stopped, pid ${r.pid}`);
      },
    };
  }

  private run(runId: string): Run {
    const r = this.runs.get(runId);
    if (!r) throw new GpuDeskError('BAD_ARGUMENT', 'That program is not one this window started (or its server was disconnected)', 'start it again from the desktop list');
    return r;
  }
}
