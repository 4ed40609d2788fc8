import { describe, expect, it } from 'vitest';
import { parseEncodeStats } from '../../../bench/viewer/xvncLog';

// Verbatim from Xvnc (TigerVNC 1.12) at -Log *:stderr:100 when a client disconnected.
const LOG = ` Connections: accepted: 127.0.0.1::54488
 EncodeManager: Framebuffer updates: 148
 EncodeManager:   Tight:
 EncodeManager:     Solid: 138 rects, 292.49 kpixels
 EncodeManager:            2.15625 KiB (1:530.623 ratio)
 EncodeManager:   Tight (JPEG):
 EncodeManager:     Full Colour: 806 rects, 1.78744 Mpixels
 EncodeManager:                  1.07826 MiB (1:6.3322 ratio)
 EncodeManager:   Total: 2.143 krects, 2.65673 Mpixels
 EncodeManager:          1.2625 MiB (1:8.04682 ratio)
 Connections: closed: 127.0.0.1::54488
 Connections: accepted: 127.0.0.1::54500
 EncodeManager: Framebuffer updates: 3
 EncodeManager:   Total: 12 rects, 921.6 kpixels
 EncodeManager:          35 KiB (1:105 ratio)
 Connections: closed: 127.0.0.1::54500
 Connections: closed: 127.0.0.1::54600
`;

describe('Xvnc per-connection statistics (bench:viewer counts both viewers with them)', () => {
  it('parses updates, pixels and bytes per closed connection, in order', () => {
    const s = parseEncodeStats(LOG);
    expect(s).toHaveLength(2);
    expect(s[0]).toEqual({ updates: 148, pixels: 2.65673e6, bytes: 1.2625 * 1024 * 1024, client: '127.0.0.1::54488' });
    expect(s[1].pixels).toBeCloseTo(921_600);
    expect(s[1].bytes).toBe(35 * 1024);
  });
});
