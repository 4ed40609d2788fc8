import { describe, expect, it } from 'vitest';
import { adaptStep, initialAdaptive, type AdaptiveState } from '../../../src/renderer/viewer/adaptive';

/**
 * A link model: full-motion frames whose size falls with quality (ratios as measured for Tight
 * JPEG on testsrc2), a decoder that tops out at 45 fps, and a link of `bytesPerSec`.
 */
const FRAME_BYTES = [14, 18, 22, 24, 30, 36, 40, 52, 70, 120].map((k) => k * 1024);
function simulate(link: (t: number) => number, seconds: number, start: AdaptiveState) {
  let s = start;
  const trace: { t: number; q: number; fps: number }[] = [];
  for (let t = 1; t <= seconds; t++) {
    const fps = Math.min(45, link(t) / FRAME_BYTES[s.quality]);
    s = adaptStep(s, { fps, bytesPerSec: fps * FRAME_BYTES[s.quality] }, t * 1000);
    trace.push({ t, q: s.quality, fps });
  }
  return { s, trace };
}

describe('adaptive quality', () => {
  it('on a 10 Mbit/s link leaves quality 9 within seconds and reaches fluid motion', () => {
    const { trace } = simulate(() => 1.25e6, 20, initialAdaptive(9, 2));
    const settled = trace.slice(-5);
    expect(trace.findIndex((x) => x.q < 9)).toBeLessThanOrEqual(1);
    for (const x of settled) expect(x.fps).toBeGreaterThanOrEqual(20);
    // It keeps as much quality as fluid motion allows, not the minimum.
    expect(Math.max(...settled.map((x) => x.q))).toBeGreaterThanOrEqual(3);
  });

  it('on a fast link stays sharp', () => {
    const { trace } = simulate(() => 100e6, 15, initialAdaptive(9, 2));
    expect(trace.every((x) => x.q === 9)).toBe(true);
  });

  it('turns sharp again when the link gets fast', () => {
    const { s } = simulate((t) => (t <= 15 ? 1.25e6 : 100e6), 45, initialAdaptive(9, 2));
    expect(s.quality).toBe(9);
  });

  it('raises quality when nothing moves, and picks zlib effort by link speed', () => {
    let s = initialAdaptive(2, 2);
    s = adaptStep(s, { fps: 0, bytesPerSec: 0 }, 10_000);
    expect(s.quality).toBe(3);
    expect(adaptStep(initialAdaptive(5, 2), { fps: 10, bytesPerSec: 1e6 }, 1000).compression).toBe(6);
    expect(adaptStep(initialAdaptive(5, 2), { fps: 40, bytesPerSec: 50e6 }, 1000).compression).toBe(1);
  });

  it('does not oscillate: after a step down it holds before stepping up', () => {
    let s = initialAdaptive(9, 2);
    s = adaptStep(s, { fps: 5, bytesPerSec: 1.2e6 }, 1000);
    const q = s.quality;
    s = adaptStep(s, { fps: 40, bytesPerSec: 0.5e6 }, 2000);
    expect(s.quality).toBe(q);
    s = adaptStep(s, { fps: 40, bytesPerSec: 0.5e6 }, 4000);
    expect(s.quality).toBe(q + 1);
  });
});
