/**
 * Auto codec: video while the screen is mostly moving and the link cannot carry JPEG tiles at the
 * target frame rate; VNC (with a lossless refresh) once motion stops. Pure: one call a second with
 * that second's figures, so the rules are tested without a browser.
 *
 * Signals, and why these:
 * - motion (VNC): screens' worth of pixels received a second. A 3D view moving at 20 fps in most of
 *   the screen is ~15; typing and scrolling text are well under 1. A slow link caps that figure
 *   itself (1 Mbit/s carries about one JPEG screen a second), exactly where video helps most; so the
 *   share of the screen each drawn frame covers counts too: a moving 3D view is most of the screen
 *   in every frame at any frame rate, a typed character or a blinking cursor a sliver of it.
 * - link-bound (VNC): the SSH round trip, measured beside the stream, rises above its floor: the
 *   link's queue is full (a slow desk or server shows low fps with a flat round trip instead, and
 *   video would not help there).
 * - motion (video): the decoded picture itself, two 32x24 thumbnails half a second apart (their mean
 *   difference, 0–255). The encoder's bytes do not say it: a still screen's intra-refresh wave is
 *   re-coded at whatever quality the budget allows (measured: a quarter of the budget and more).
 *   A turning 3D view differs by tens; a blinking text cursor or the refresh wave by well under 1.
 */
export interface AutoInput {
  mode: 'vnc' | 'video';
  /** Frames drawn this second. */
  fps: number;
  /** Screens' worth of pixels received this second (VNC mode). */
  screensPerSec: number;
  /** The SSH round trip now, and the least seen on this connection (ms). */
  rttMs: number | null;
  minRttMs: number | null;
  /** Video mode: how much the decoded picture moved this second (VideoFigures.motion). */
  videoMotion?: number | null;
}

export interface AutoState {
  /** Consecutive seconds the switch's condition has held. */
  toVideo: number;
  toVnc: number;
}

export const AUTO = {
  targetFps: 24,
  minScreensPerSec: 4,
  /** Or: each frame drawn covers at least this share of the screen (on average over the second). */
  minScreenPerFrame: 0.5,
  /** Queueing delay that says the link is the limit. */
  rttRiseMs: 30,
  secondsToVideo: 3,
  /** Below this mean thumbnail difference (0–255) the picture is still. */
  stillMotion: 1.5,
  secondsToVnc: 2,
} as const;

export function initialAuto(): AutoState {
  return { toVideo: 0, toVnc: 0 };
}

/** The next state and whether to switch now. */
export function autoStep(s: AutoState, x: AutoInput): { state: AutoState; switchTo: 'vnc' | 'video' | null } {
  if (x.mode === 'vnc') {
    const rise = x.rttMs !== null && x.minRttMs !== null ? x.rttMs - x.minRttMs : 0;
    const motion = x.screensPerSec >= AUTO.minScreensPerSec || (x.fps >= 1 && x.screensPerSec / x.fps >= AUTO.minScreenPerFrame);
    const want = motion && x.fps < AUTO.targetFps && rise >= AUTO.rttRiseMs;
    const toVideo = want ? s.toVideo + 1 : 0;
    if (toVideo >= AUTO.secondsToVideo) return { state: initialAuto(), switchTo: 'video' };
    return { state: { toVideo, toVnc: 0 }, switchTo: null };
  }
  const still = x.videoMotion !== undefined && x.videoMotion !== null && x.videoMotion < AUTO.stillMotion;
  const toVnc = still ? s.toVnc + 1 : 0;
  if (toVnc >= AUTO.secondsToVnc) return { state: initialAuto(), switchTo: 'vnc' };
  return { state: { toVideo: 0, toVnc }, switchTo: null };
}

/**
 * The video bitrate for the link (kbit/s), between the user's floor and ceiling: down by a third as
 * soon as the round trip says a queue is building, up by a quarter after a few calm seconds while the
 * encoder uses its budget, otherwise held (each change restarts the encoder: a key frame).
 */
export interface RateState {
  kbps: number;
  calm: number;
  /** Seconds since the last change. */
  since: number;
}

export const RATE = { calmSecondsToRaise: 4, minSecondsBetween: 3, raise: 1.25, lower: 0.67, busyShare: 0.7 } as const;

export function initialRate(startKbps: number, min: number, max: number): RateState {
  return { kbps: clamp(Math.round(startKbps), min, max), calm: 0, since: 0 };
}

export function rateStep(s: RateState, x: { rttMs: number | null; minRttMs: number | null; videoBytesPerSec: number; min: number; max: number }): RateState {
  const rise = x.rttMs !== null && x.minRttMs !== null ? x.rttMs - x.minRttMs : 0;
  const since = s.since + 1;
  if (rise >= AUTO.rttRiseMs) {
    if (since < RATE.minSecondsBetween) return { ...s, calm: 0, since };
    const kbps = clamp(Math.round(s.kbps * RATE.lower), x.min, x.max);
    return { kbps, calm: 0, since: kbps === s.kbps ? since : 0 };
  }
  const busy = x.videoBytesPerSec * 8 / 1000 >= s.kbps * RATE.busyShare;
  const calm = busy ? s.calm + 1 : 0;
  if (calm >= RATE.calmSecondsToRaise && since >= RATE.minSecondsBetween && s.kbps < x.max) {
    return { kbps: clamp(Math.round(s.kbps * RATE.raise), x.min, x.max), calm: 0, since: 0 };
  }
  return { ...s, calm, since };
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, v));
}
