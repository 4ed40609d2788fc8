/** TurboVNC 3.3 Xvnc's log: what it says about each viewer connection. */
import fs from 'node:fs';

export interface ConnectionStats {
  /** Framebuffer updates Xvnc sent to this connection. */
  updates: number;
  bytes: number;
  /** "subsampling N, QM" as Xvnc chose it for this viewer's request (same for every party or the figures are not comparable). */
  jpeg: string | null;
}

/**
 * Per-connection statistics in a TurboVNC Xvnc log, in order of the connections closing:
 * "[id] Statistics:" then "[id]   framebuffer updates N, rectangles R, bytes B" (rfbPrintStats, stats.c);
 * the JPEG settings are the last "[id] Using JPEG subsampling S, QN" before it.
 */
export function parseTurboStats(log: string): ConnectionStats[] {
  const out: ConnectionStats[] = [];
  const jpeg = new Map<string, string>();
  const inStats = new Set<string>();
  for (const line of log.split('\n')) {
    const m = /\[(\d+)\] (.*)$/.exec(line);
    if (!m) continue;
    const [, id, text] = m;
    const j = /^Using JPEG subsampling (\d+), Q(\d+)/.exec(text);
    if (j) jpeg.set(id, `subsampling ${j[1]}, Q${j[2]}`);
    if (text === 'Statistics:') inStats.add(id);
    const u = /^\s*framebuffer updates (\d+), rectangles \d+, bytes (\d+)/.exec(text);
    if (u && inStats.has(id)) {
      inStats.delete(id);
      out.push({ updates: Number(u[1]), bytes: Number(u[2]), jpeg: jpeg.get(id) ?? null });
    }
  }
  return out;
}

/**
 * Xvnc's update rates (TVNC_PROFILE=1: "[id] N updates/sec, …" per 5 s or more) logged between two
 * log offsets, less the first: it began before `from`. (The first window of a connection also spans
 * the idle time since the previous connection's last one, so it never counts.)
 */
export function profiledRates(logPath: string, from: number, to: number): number[] {
  const text = fs.readFileSync(logPath).subarray(from, to).toString('utf8');
  return [...text.matchAll(/\[\d+\] ([\d.]+) updates\/sec/g)].map((m) => Number(m[1])).slice(1);
}

/** The statistics of connections that closed after `offset` bytes of the log, waiting (Xvnc notices a closed viewer on its next read). */
export async function statsSince(logPath: string, offset: number, timeoutMs = 15_000): Promise<ConnectionStats> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = parseTurboStats(fs.readFileSync(logPath, 'utf8').slice(offset));
    if (s.length > 0) return s[s.length - 1];
    if (Date.now() > deadline) throw new Error(`no per-connection statistics in ${logPath} within ${timeoutMs} ms of the viewer leaving`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const logSize = (logPath: string) => fs.statSync(logPath).size;
