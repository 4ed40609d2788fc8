import { describe, expect, it } from 'vitest';
import { VIDEO_CLAIM_MS, VideoStreams, type VideoEncoderChoice, type VideoTarget } from '../../../../src/core/app/services/videoStreams';
import type { ChannelOpenOptions } from '../../../../src/core/vnc/channelHub';
import type { ChannelHub } from '../../../../src/core/vnc/channelHub';

/** A hub that records tickets (the real one is tested in test/unit/vnc and over sshd). */
function fakeHub() {
  const live = new Set<string>();
  const opened: ChannelOpenOptions[] = [];
  let n = 0;
  const hub = {
    register: (_open: unknown, opts: ChannelOpenOptions) => {
      const id = `t${++n}`;
      live.add(id);
      opened.push(opts);
      return { id, path: `/vnc/${id}?token=x`, counters: { bytesIn: 0, bytesOut: 0, open: false } };
    },
    revoke: (id: string) => { live.delete(id); },
  } as unknown as ChannelHub;
  return { hub, live, opened };
}

function service(target: (id: string) => VideoTarget, choice: () => Promise<VideoEncoderChoice>) {
  const { hub, live, opened } = fakeHub();
  let asked = 0;
  const s = new VideoStreams({ hub, channelBase: () => 'ws://127.0.0.1:1', target, encoders: () => { asked++; return choice(); }, log: () => {} });
  return { s, live, opened, asked: () => asked, h: s.handlers() };
}

const server: VideoTarget = { session: { execStream: async () => { throw new Error('not used: tickets open lazily in this test'); } }, display: 3, machine: 'c1' };
const spec = { viewerId: 'v1', width: 1281, height: 720, fps: 30, bitrateKbps: 4000 };

describe('the video streams service', () => {
  it('a new start runs beside the stream it replaces (the viewer closes that one), a third ends the oldest, stop ends all; the size is made even', async () => {
    const { live, opened, h } = service(() => server, async () => ({ best: 'libx264' }));
    const a = await h['viewer.videoStart'](spec);
    // The encoder starts at once, and ends if the viewer does not claim its stream soon.
    expect(opened[0]).toEqual({ eager: true, claimWithinMs: VIDEO_CLAIM_MS });
    expect(a).toMatchObject({ encoder: 'libx264', width: 1280, height: 720, fps: 30, bitrateKbps: 4000 });
    expect(a.url).toMatch(/^ws:\/\/127\.0\.0\.1:1\/vnc\/t1\?token=/);
    await h['viewer.videoStart']({ ...spec, bitrateKbps: 2000 });
    expect([...live]).toEqual(['t1', 't2']);
    await h['viewer.videoStart']({ ...spec, bitrateKbps: 1000 });
    expect([...live]).toEqual(['t2', 't3']);
    await h['viewer.videoStop']({ viewerId: 'v1' });
    expect(live.size).toBe(0);
  });

  it('asks a machine for its encoders once, and again after it is forgotten (its connection closed)', async () => {
    const x = service(() => server, async () => ({ best: 'libx264' }));
    await x.h['viewer.videoStart'](spec);
    await x.h['viewer.videoStart']({ ...spec, viewerId: 'v2' });
    expect(x.asked()).toBe(1);
    x.s.forgetMachine('c1');
    await x.h['viewer.videoStart'](spec);
    expect(x.asked()).toBe(2);
  });

  it('refuses with the reason when no encoder works, or when the desktop has no shell on its machine', async () => {
    const none = service(() => server, async () => ({ best: null, why: 'ffmpeg is not installed' }));
    await expect(none.h['viewer.videoStart'](spec)).rejects.toMatchObject({ code: 'VIDEO_UNAVAILABLE', message: expect.stringContaining('ffmpeg is not installed') });
    const fwd = service(() => ({ session: null, display: 1, machine: 'job:7', whyNot: 'reached through a login-node forward' }), async () => ({ best: 'libx264' }));
    await expect(fwd.h['viewer.videoStart'](spec)).rejects.toMatchObject({ code: 'VIDEO_UNAVAILABLE', message: expect.stringContaining('login-node forward') });
    expect(fwd.asked()).toBe(0);
    expect(fwd.live.size).toBe(0);
  });

  it('a failed encoder look-up is asked again next time', async () => {
    let fail = true;
    const x = service(() => server, async () => { if (fail) throw new Error('dropped'); return { best: 'libx264' }; });
    await expect(x.h['viewer.videoStart'](spec)).rejects.toThrow('dropped');
    fail = false;
    await expect(x.h['viewer.videoStart'](spec)).resolves.toMatchObject({ encoder: 'libx264' });
  });
});
