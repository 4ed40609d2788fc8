import type { ByteCounters } from '../../shared/models';

/** One second of viewer figures, as the HUD and the adaptive controller see them. */
export interface ViewerSample {
  at: number;
  fps: number;
  bytesInPerSec: number;
  bytesOutPerSec: number;
  /** Mean bytes per drawn frame over this second (null without frames). */
  bytesPerFrame: number | null;
  /** Median input → next frame drawn, ms, over this second (null without input). */
  latencyMs: number | null;
  /** Encoding of most rectangles this second. */
  encoding: string | null;
  quality: number;
  compression: number;
}

export function median(xs: number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Keeps the last `size` samples (the HUD chart shows 60 s). */
export class SampleRing<T> {
  private items: T[] = [];
  constructor(private readonly size: number) {}
  push(x: T): void {
    this.items.push(x);
    if (this.items.length > this.size) this.items.splice(0, this.items.length - this.size);
  }
  all(): T[] {
    return [...this.items];
  }
  last(): T | undefined {
    return this.items[this.items.length - 1];
  }
}

export interface TunnelRate {
  inPerSec: number;
  outPerSec: number;
  rttMs: number | null;
}

export function tunnelRate(prev: ByteCounters | null, cur: ByteCounters): TunnelRate {
  const dt = prev ? (cur.at - prev.at) / 1000 : 0;
  return {
    inPerSec: prev && dt > 0 ? (cur.bytesIn - prev.bytesIn) / dt : 0,
    outPerSec: prev && dt > 0 ? (cur.bytesOut - prev.bytesOut) / dt : 0,
    rttMs: cur.rttMs,
  };
}

