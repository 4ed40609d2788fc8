/**
 * What video mode (videoMode.ts) needs of a stream's player, apart from the player itself
 * (videoPlayer.ts: WebSocket and WebCodecs): the seam where unit tests put a fake. Plain types only,
 * no DOM, so they type-check beside Node code too.
 */

/** Why video mode ended, in one line for the viewer (it falls back to VNC and shows this). */
export type VideoEnd = { reason: string; from: 'server' | 'decoder' | 'channel' | 'protocol' | 'closed' };

export interface VideoFigures {
  frames: number;
  bytes: number;
  /** Mean time from a frame's arrival to its picture, ms, since the last read. */
  decodeMs: number | null;
  decodeQueue: number;
  /** Sizes of the access units since the last read. */
  sizes: number[];
  /**
   * How much the picture moved since the last read: the largest mean difference (0–255) between two
   * 32x24 thumbnails of decoded frames half a second apart; null before two were taken. Bytes do not
   * say it: an encoder re-codes a still screen's intra-refresh wave at whatever its budget allows.
   */
  motion: number | null;
  hardware: boolean | null;
}

/** One stream being played: figures, whether it has drawn and still runs, and a silent stop. */
export interface StreamPlayer {
  /** The figures since the last call. */
  take(): VideoFigures;
  /** It drew its first frame and has not ended. */
  readonly drawing: boolean;
  /** Stops without a reason (onEnd does not fire). */
  close(): void;
}

/** How video mode opens a stream's player. */
export interface StreamPlayerSpec {
  url: string;
  /** Whether this stream's decoded frames go on the screen now (only the stream drawing's do). */
  onScreen(): boolean;
  onFirstFrame(): void;
  /** The stream ended by itself, with the reason (not after close()). */
  onEnd(e: VideoEnd): void;
}
