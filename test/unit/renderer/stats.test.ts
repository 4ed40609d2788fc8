import { describe, expect, it } from 'vitest';
import { SampleRing, median, tunnelRate } from '../../../src/renderer/viewer/stats';

describe('viewer figures', () => {
  it('median of odd, even and empty sets', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });

  it('keeps the last 60 samples for the HUD chart', () => {
    const r = new SampleRing<number>(60);
    for (let i = 0; i < 100; i++) r.push(i);
    expect(r.all()).toHaveLength(60);
    expect(r.all()[0]).toBe(40);
    expect(r.last()).toBe(99);
  });

  it('tunnel rates from successive byte counters', () => {
    const a = { bytesIn: 1000, bytesOut: 10, rttMs: 2, at: 1000 };
    const b = { bytesIn: 1_251_000, bytesOut: 510, rttMs: 3, at: 2000 };
    expect(tunnelRate(null, a)).toEqual({ inPerSec: 0, outPerSec: 0, rttMs: 2 });
    expect(tunnelRate(a, b)).toEqual({ inPerSec: 1_250_000, outPerSec: 500, rttMs: 3 });
  });
});
