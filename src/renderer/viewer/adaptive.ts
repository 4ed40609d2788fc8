/**
 * Adaptive quality: each second, from the measured throughput and frame rate, decide whether the
 * link (not the decoder) is what limits the frame rate; if so, trade JPEG quality for frames, and
 * give quality back once frames come easily again. Pure, so it is tested without a browser.
 */
export interface AdaptiveSample {
  /** Server → viewer bytes per second over the last second. */
  bytesPerSec: number;
  /** Frames drawn over the last second. */
  fps: number;
}

export interface AdaptiveState {
  quality: number;
  compression: number;
  /** Best throughput seen lately (bytes/s): our estimate of what the link can carry. */
  capacity: number;
  lastChange: number;
}

export const ADAPTIVE = {
  /** Below this many fps with the link full, motion is not fluid. */
  fluidFps: 20,
  /** At or above this, frames come easily and quality can rise. */
  easyFps: 28,
  /** The link counts as full above this share of the capacity estimate. */
  fullShare: 0.7,
  /** Capacity estimate decays by this factor per second so a slower link is noticed. */
  decay: 0.97,
  /** Wait this long after a change before raising quality again (avoid oscillation). */
  holdMs: 2500,
  /** Below this the link is slow enough that zlib effort pays (compression 6), above it costs. */
  slowLinkBytesPerSec: 4_000_000,
  minQuality: 0,
  maxQuality: 9,
};

export function initialAdaptive(quality: number, compression: number): AdaptiveState {
  return { quality, compression, capacity: 0, lastChange: 0 };
}

export function adaptStep(s: AdaptiveState, x: AdaptiveSample, now: number): AdaptiveState {
  const capacity = Math.max(x.bytesPerSec, s.capacity * ADAPTIVE.decay);
  const next: AdaptiveState = { ...s, capacity };
  // No motion: nothing to learn from, and the picture may as well be sharp.
  if (x.fps < 1) {
    if (s.quality < ADAPTIVE.maxQuality && now - s.lastChange >= ADAPTIVE.holdMs) {
      next.quality = s.quality + 1;
      next.lastChange = now;
    }
    return withCompression(next);
  }
  const linkFull = x.bytesPerSec >= ADAPTIVE.fullShare * capacity;
  if (x.fps < ADAPTIVE.fluidFps && linkFull && s.quality > ADAPTIVE.minQuality) {
    // Far from fluid: larger steps so a 10 Mbit/s link reaches a usable level within seconds.
    const step = x.fps < ADAPTIVE.fluidFps / 3 ? 3 : x.fps < ADAPTIVE.fluidFps / 1.5 ? 2 : 1;
    next.quality = Math.max(ADAPTIVE.minQuality, s.quality - step);
    next.lastChange = now;
  } else if ((x.fps >= ADAPTIVE.easyFps || !linkFull) && s.quality < ADAPTIVE.maxQuality && now - s.lastChange >= ADAPTIVE.holdMs) {
    next.quality = s.quality + 1;
    next.lastChange = now;
  }
  return withCompression(next);
}

function withCompression(s: AdaptiveState): AdaptiveState {
  const slow = s.capacity > 0 && s.capacity < ADAPTIVE.slowLinkBytesPerSec;
  return { ...s, compression: slow ? 6 : 1 };
}
