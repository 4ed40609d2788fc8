import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTurboStats, profiledRates } from '../../../bench/3d/turboLog';

// From TurboVNC 3.3 Xvnc logs (TVNC_PROFILE=1): a connection dropped at once, then a viewer (its raw-equivalent line from another log).
const LOG = `01/12/2026 19:42:15 [1] Got connection from 127.0.0.1 on port 47718
01/12/2026 19:42:15 [1] Client gone
01/12/2026 19:42:15 [1] Statistics:
01/12/2026 19:42:15 [1]   framebuffer updates 0, rectangles 0, bytes 0
01/12/2026 19:42:15 Number of connected clients: 0
01/12/2026 19:43:12 [2] Got connection from 127.0.0.1 on port 46412
01/12/2026 19:43:12 [2] Using JPEG subsampling 0, Q79
01/12/2026 19:43:12 [2] Continuous updates enabled
01/12/2026 19:43:18 [2] 0.86 updates/sec,  0.98 Mpixels/sec,  0.873 Mbits/sec
01/12/2026 19:43:18 [2] Time/update:  Encode = 39.085 ms,  Other = 1117.844 ms
01/12/2026 19:43:24 [2] 0.84 updates/sec,  0.93 Mpixels/sec,  0.831 Mbits/sec
01/12/2026 19:43:24 [2] Time/update:  Encode = 20.059 ms,  Other = 1174.898 ms
01/12/2026 19:43:30 [2] 2.50 updates/sec,  2.93 Mpixels/sec,  2.831 Mbits/sec
01/12/2026 19:43:31 [2] Client gone
01/12/2026 19:43:31 [2] Statistics:
01/12/2026 19:43:31 [2]   framebuffer updates 61, rectangles 5016, bytes 7676972
01/12/2026 19:43:31 [2]     LastRect markers 61, bytes 732
01/12/2026 19:43:31 [2]     Tight rectangles 4954, bytes 7676228
01/12/2026 19:43:31 [2]   raw equivalent 170.708836 Mbytes, compression ratio 32.924109
01/12/2026 19:43:31 Number of connected clients: 0
`;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gd-turbolog-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('TurboVNC Xvnc log (bench:3d and bench:viewer count both viewers with it)', () => {
  it('gives each closed connection its update count, bytes, pixels (raw equivalent / 4) and JPEG settings, in order', () => {
    expect(parseTurboStats(LOG)).toEqual([
      { updates: 0, bytes: 0, pixels: null, jpeg: null },
      { updates: 61, bytes: 7676972, pixels: 170.708836e6 / 4, jpeg: 'subsampling 0, Q79' },
    ]);
  });

  it('takes the 5-second update rates logged between two offsets, less the first (it began before)', () => {
    const f = path.join(dir, 'vm:1.log');
    fs.writeFileSync(f, LOG);
    const from = LOG.indexOf('01/12/2026 19:43:12 [2] Continuous');
    expect(profiledRates(f, from, LOG.length)).toEqual([0.84, 2.5]);
    expect(profiledRates(f, from, LOG.indexOf('19:43:30'))).toEqual([0.84]);
    expect(profiledRates(f, LOG.indexOf('19:43:24'), LOG.length)).toEqual([2.5]);
  });
});
