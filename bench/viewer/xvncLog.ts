/**
 * Xvnc (TigerVNC) logs per-connection encoder statistics when a client disconnects, at log level
 * 100 (`-Log *:stderr:100`), e.g.
 *   EncodeManager: Framebuffer updates: 148
 *   EncodeManager:   Total: 2.143 krects, 2.65673 Mpixels
 *   EncodeManager:          1.2625 MiB (1:8.04682 ratio)
 *   Connections: closed: 127.0.0.1::54488
 * Counting both viewers from the server's side counts them the same way.
 */
export interface EncodeStats {
  updates: number;
  pixels: number;
  bytes: number;
  client: string;
}

const SI: Record<string, number> = { '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
const BIN: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4 };

export function parseEncodeStats(log: string): EncodeStats[] {
  const out: EncodeStats[] = [];
  let cur: Partial<EncodeStats> = {};
  let afterTotal = false;
  for (const line of log.split('\n')) {
    let m = /EncodeManager: Framebuffer updates: (\d+)/.exec(line);
    if (m) {
      cur = { updates: Number(m[1]) };
      afterTotal = false;
      continue;
    }
    m = /EncodeManager:\s+Total: [\d.]+ [kMG]?rects, ([\d.]+) ([kMGT]?)pixels/.exec(line);
    if (m) {
      cur.pixels = Number(m[1]) * SI[m[2]];
      afterTotal = true;
      continue;
    }
    if (afterTotal) {
      m = /EncodeManager:\s+([\d.]+) (B|KiB|MiB|GiB|TiB) \(/.exec(line);
      if (m) {
        cur.bytes = Number(m[1]) * BIN[m[2]];
        afterTotal = false;
        continue;
      }
    }
    m = /Connections: closed: (\S+)/.exec(line);
    if (m && cur.updates !== undefined && cur.pixels !== undefined) {
      out.push({ updates: cur.updates, pixels: cur.pixels, bytes: cur.bytes ?? 0, client: m[1] });
      cur = {};
    }
  }
  return out;
}
