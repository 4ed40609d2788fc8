import { describe, expect, it } from 'vitest';
import { AUTO, autoStep, initialAuto, initialRate, rateStep, RATE } from '../../../src/renderer/viewer/video/autoCodec';
import { VideoFrameReader, avcCodecString, MAX_MESSAGE_BYTES } from '../../../src/renderer/viewer/video/videoFrameReader';
import { VIDEO_FRAME, videoFrameHeader } from '../../../src/shared/videoFrames';

const moving = { mode: 'vnc' as const, fps: 12, screensPerSec: 10, rttMs: 400, minRttMs: 20 };

describe('Auto codec', () => {
  it('switches to video only after seconds of motion on a link whose queue is full', () => {
    let s = initialAuto();
    for (let i = 1; i < AUTO.secondsToVideo; i++) {
      const r = autoStep(s, moving);
      expect(r.switchTo).toBeNull();
      s = r.state;
    }
    expect(autoStep(s, moving).switchTo).toBe('video');
  });

  it('stays on VNC when the link is not the limit (flat round trip), when little moves, or when frames keep up', () => {
    for (const x of [{ ...moving, rttMs: 22 }, { ...moving, screensPerSec: 0.5 }, { ...moving, fps: 30 }]) {
      let s = initialAuto();
      for (let i = 0; i < 10; i++) {
        const r = autoStep(s, x);
        expect(r.switchTo).toBeNull();
        s = r.state;
      }
    }
  });

  it('on a link too slow to carry 4 screens a second, whole-screen frames still count as motion; a sliver per frame does not', () => {
    // 1 Mbit/s: about one JPEG screen a second, each frame the whole screen.
    const slow = { ...moving, fps: 1, screensPerSec: 1 };
    let s = initialAuto();
    for (let i = 1; i < AUTO.secondsToVideo; i++) s = autoStep(s, slow).state;
    expect(autoStep(s, slow).switchTo).toBe('video');
    // Typing over the same link: a few frames, each a character's worth of the screen.
    for (const x of [{ ...slow, fps: 3, screensPerSec: 0.02 }, { ...slow, fps: 0, screensPerSec: 0 }, { ...slow, rttMs: 22 }]) {
      let t = initialAuto();
      for (let i = 0; i < 10; i++) {
        const r = autoStep(t, x);
        expect(r.switchTo).toBeNull();
        t = r.state;
      }
    }
  });

  it('one calm second resets the count', () => {
    let s = autoStep(autoStep(initialAuto(), moving).state, moving).state;
    s = autoStep(s, { ...moving, rttMs: 20 }).state;
    expect(autoStep(s, moving).switchTo).toBeNull();
  });

  it('goes back to VNC when the decoded picture has been still for two seconds, not before, not without a measure', () => {
    const still = { mode: 'video' as const, fps: 30, screensPerSec: 0, rttMs: 20, minRttMs: 20, videoMotion: 0.4 };
    const moving = { ...still, videoMotion: 12 };
    expect(autoStep(autoStep(initialAuto(), moving).state, moving).switchTo).toBeNull();
    expect(autoStep(initialAuto(), still).switchTo).toBeNull();
    expect(autoStep(autoStep(initialAuto(), still).state, still).switchTo).toBe('vnc');
    const unknown = { ...still, videoMotion: null };
    expect(autoStep(autoStep(initialAuto(), unknown).state, unknown).switchTo).toBeNull();
  });
});

describe('video bitrate', () => {
  it('falls by a third when a queue builds, at most every few seconds, never under the floor', () => {
    let s = initialRate(8000, 1000, 20_000);
    s = { ...s, since: RATE.minSecondsBetween };
    s = rateStep(s, { rttMs: 300, minRttMs: 20, videoBytesPerSec: 1e6, min: 1000, max: 20_000 });
    expect(s.kbps).toBe(Math.round(8000 * RATE.lower));
    const again = rateStep(s, { rttMs: 300, minRttMs: 20, videoBytesPerSec: 1e6, min: 1000, max: 20_000 });
    expect(again.kbps).toBe(s.kbps);
    let low = initialRate(1100, 1000, 20_000);
    for (let i = 0; i < 20; i++) low = rateStep(low, { rttMs: 300, minRttMs: 20, videoBytesPerSec: 1e5, min: 1000, max: 20_000 });
    expect(low.kbps).toBe(1000);
  });

  it('rises after calm seconds in which the encoder used its budget, up to the ceiling', () => {
    let s = initialRate(4000, 1000, 5000);
    for (let i = 0; i < 30; i++) s = rateStep(s, { rttMs: 21, minRttMs: 20, videoBytesPerSec: (s.kbps * 1000) / 8, min: 1000, max: 5000 });
    expect(s.kbps).toBe(5000);
    let idle = initialRate(4000, 1000, 50_000);
    for (let i = 0; i < 30; i++) idle = rateStep(idle, { rttMs: 21, minRttMs: 20, videoBytesPerSec: 1000, min: 1000, max: 50_000 });
    expect(idle.kbps).toBe(4000);
  });
});

const msg = (type: number, payload: Uint8Array, flags = 0) => {
  const m = new Uint8Array(VIDEO_FRAME.headerBytes + payload.length);
  m.set(videoFrameHeader(type, payload.length, flags));
  m.set(payload, VIDEO_FRAME.headerBytes);
  return m;
};

describe('the viewer\'s reading of the video channel', () => {
  it('reads messages cut and joined anywhere', () => {
    const a = msg(VIDEO_FRAME.info, new TextEncoder().encode('{"encoder":"libx264"}'));
    const b = msg(VIDEO_FRAME.accessUnit, new Uint8Array([0, 0, 0, 1, 9, 0xf0]), VIDEO_FRAME.keyFlag);
    const all = new Uint8Array([...a, ...b, ...a]);
    for (let cut = 1; cut < all.length; cut++) {
      const r = new VideoFrameReader();
      const got = [...r.push(all.subarray(0, cut)), ...r.push(all.subarray(cut))];
      expect(got.map((m) => m.type)).toEqual([VIDEO_FRAME.info, VIDEO_FRAME.accessUnit, VIDEO_FRAME.info]);
      expect(got[1].flags).toBe(VIDEO_FRAME.keyFlag);
    }
  });

  it('ends on a hostile header: an unknown type, a non-zero reserved byte, a frame over the limit', () => {
    const bad = (h: Uint8Array) => () => new VideoFrameReader().push(h);
    expect(bad(videoFrameHeader(7, 0))).toThrow(/unknown type 7/);
    const h = videoFrameHeader(VIDEO_FRAME.accessUnit, 4);
    h[6] = 1;
    expect(bad(h)).toThrow(/malformed/);
    expect(bad(videoFrameHeader(VIDEO_FRAME.accessUnit, MAX_MESSAGE_BYTES + 1))).toThrow(/limit/);
  });

  it('names the stream\'s H.264 profile and level from its SPS, as WebCodecs wants it', () => {
    expect(avcCodecString(new Uint8Array([0, 0, 0, 1, 9, 0x10, 0, 0, 0, 1, 0x67, 0x42, 0xc0, 0x1e, 0xb6]))).toBe('avc1.42C01E');
    expect(avcCodecString(new Uint8Array([0, 0, 0, 1, 9, 0x10]))).toBeNull();
  });
});
