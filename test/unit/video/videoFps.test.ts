import { describe, expect, it } from 'vitest';
import { VIDEO_FPS, videoFps } from '../../../src/shared/videoFrames';

describe('videoFps: the capture rate follows the bitrate', () => {
  it('30 a second where the budget gives each frame enough bits, fewer on a thin link, never below 12', () => {
    // 1280x960 at 8 Mbit/s: ~33 KiB a frame at 30 a second, what 3D content needs.
    expect(videoFps(8000, 1280, 960)).toBe(VIDEO_FPS.max);
    // 4 Mbit/s (80 % of a 5 Mbit/s link): half the frames, each with about the same bits.
    const thin = videoFps(4000, 1280, 960);
    expect(thin).toBeGreaterThanOrEqual(14);
    expect(thin).toBeLessThanOrEqual(16);
    expect((4000 * 1000) / thin / 8 / 1024).toBeGreaterThan(30);
    expect(videoFps(250, 1920, 1080)).toBe(VIDEO_FPS.min);
    expect(videoFps(100_000, 3840, 2160)).toBe(VIDEO_FPS.max);
  });

  it('a larger screen at the same bitrate gets fewer frames', () => {
    expect(videoFps(8000, 1920, 1080)).toBeLessThan(videoFps(8000, 1280, 720));
  });
});
