/** TurboVNC 3.3 Xvnc's log: what it says about each viewer connection. */
import fs from 'node:fs';

export interface ConnectionStats {
  /** Framebuffer updates Xvnc sent to this connection. */
  updates: number;
  bytes: number;
  /**
   * Pixels of the rectangles it sent, from "raw equivalent M Mbytes" (4 bytes a pixel at the 32-bit
   * format both viewers ask for, plus a 12-byte header per update rectangle: under 0.1 % for the
   * motion workload's large rectangles); null until that line is in the log.
   */
  pixels: number | null;
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
  const open = new Map<string, ConnectionStats>();
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
      const st: ConnectionStats = { updates: Number(u[1]), bytes: Number(u[2]), pixels: null, jpeg: jpeg.get(id) ?? null };
      out.push(st);
      open.set(id, st);
    }
    const raw = /^\s*raw equivalent ([\d.]+) Mbytes/.exec(text);
    const st = open.get(id);
    if (raw && st) {
      st.pixels = (Number(raw[1]) * 1e6) / 4;
      open.delete(id);
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
export async function statsSince(logPath: string, offset: number, timeoutMs = 15_000, withPixels = false): Promise<ConnectionStats> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = parseTurboStats(fs.readFileSync(logPath, 'utf8').slice(offset));
    // The statistics are several log lines: with `withPixels`, wait for the raw-equivalent one too.
    if (s.length > 0 && (!withPixels || s[s.length - 1].pixels !== null)) return s[s.length - 1];
    if (Date.now() > deadline) throw new Error(`no per-connection statistics in ${logPath} within ${timeoutMs} ms of the viewer leaving`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const logSize = (logPath: string) => fs.statSync(logPath).size;
