import { describe, expect, it } from 'vitest';
import { VIDEO_FPS, videoFps } from '../../../src/shared/videoFrames';

describe('videoFps: the capture rate follows the bitrate', () => {
  it('30 a second where the budget gives each frame enough bits, fewer on a thin link, never below 12', () => {
    // 1280x960 at 10 Mbit/s: ~40 KiB a frame at 30 a second, what moving 3D content needs.
    expect(videoFps(10_000, 1280, 960)).toBe(VIDEO_FPS.max);
    // 4 Mbit/s (80 % of a 5 Mbit/s link): fewer frames, each with about the same bits.
    const thin = videoFps(4000, 1280, 960);
    expect(thin).toBeGreaterThanOrEqual(12);
    expect(thin).toBeLessThanOrEqual(14);
    expect((4000 * 1000) / thin / 8 / 1024).toBeGreaterThan(36);
    expect(videoFps(250, 1920, 1080)).toBe(VIDEO_FPS.min);
    expect(videoFps(100_000, 3840, 2160)).toBe(VIDEO_FPS.max);
  });

  it('a larger screen at the same bitrate gets fewer frames', () => {
    expect(videoFps(8000, 1920, 1080)).toBeLessThan(videoFps(8000, 1280, 720));
  });
});
