import { describe, expect, it } from 'vitest';
import { MAX_DESKTOP, encodeSetDesktopSize, layoutFromMonitors, sameLayout, sideBySide } from '../../../src/renderer/viewer/screenLayout';

describe('screen layout from the desk\'s monitors', () => {
  it('two monitors side by side, the left one at a negative x (a primary on the right): the origin moves to the top-left corner', () => {
    const l = layoutFromMonitors([{ x: 0, y: 0, width: 1920, height: 1080 }, { x: -1280, y: 200, width: 1280, height: 1024 }]);
    expect(l).toEqual({
      width: 3200,
      height: 1224,
      screens: [
        { id: 1, flags: 0, x: 1280, y: 0, width: 1920, height: 1080 },
        { id: 2, flags: 0, x: 0, y: 200, width: 1280, height: 1024 },
      ],
    });
  });

  it('a desk wider than the server allows is scaled down evenly; monitors that touched still touch', () => {
    const l = layoutFromMonitors([{ x: 0, y: 0, width: 3000, height: 1000 }, { x: 3000, y: 0, width: 3001, height: 1000 }], { width: 4000, height: 4000 });
    expect(l.width).toBeLessThanOrEqual(4000);
    expect(l.screens[0].x + l.screens[0].width).toBe(l.screens[1].x);
    expect(l.screens[1].x + l.screens[1].width).toBe(l.width);
    expect(l.screens[0].height).toBe(Math.floor(1000 * (4000 / 6001)));
  });

  it('clamps to X\'s largest screen by default, and refuses a list with no usable monitor (naming the fix)', () => {
    const l = layoutFromMonitors([{ x: 0, y: 0, width: 40000, height: 1000 }]);
    expect(l.width).toBeLessThanOrEqual(MAX_DESKTOP.width);
    expect(() => layoutFromMonitors([{ x: 0, y: 0, width: 0, height: 10 }])).toThrow(/Screens: 1 or 2 side by side/);
  });

  it('side by side splits the viewer\'s area; an odd pixel goes to the last screen', () => {
    expect(sideBySide(2, 1001.7, 600.2)).toEqual({
      width: 1001, height: 600,
      screens: [{ id: 1, flags: 0, x: 0, y: 0, width: 500, height: 600 }, { id: 2, flags: 0, x: 500, y: 0, width: 501, height: 600 }],
    });
    expect(sideBySide(2, 100000, 100000).width).toBe(MAX_DESKTOP.width);
  });

  it('sameLayout ignores ids, not places', () => {
    const a = sideBySide(2, 1000, 600);
    expect(sameLayout(a, { ...a, screens: a.screens.map((s) => ({ ...s, id: s.id + 7 })) })).toBe(true);
    expect(sameLayout(a, sideBySide(2, 1002, 600))).toBe(false);
  });
});

describe('SetDesktopSize encoding (rfbproto: ExtendedDesktopSize, client message 251)', () => {
  it('header then 16 bytes per screen, big-endian', () => {
    const bytes = encodeSetDesktopSize({
      width: 3200, height: 1224,
      screens: [{ id: 0x01020304, flags: 0, x: 1280, y: 0, width: 1920, height: 1080 }, { id: 2, flags: 0xa0b0c0d0, x: 0, y: 200, width: 1280, height: 1024 }],
    });
    expect(Buffer.from(bytes).toString('hex')).toBe([
      'fb', '00', '0c80', '04c8', '02', '00', // type, padding, width 3200, height 1224, 2 screens, padding
      '01020304', '0500', '0000', '0780', '0438', '00000000', // id, x 1280, y 0, 1920 x 1080, flags
      '00000002', '0000', '00c8', '0500', '0400', 'a0b0c0d0', // id 2, x 0, y 200, 1280 x 1024, flags
    ].join(''));
  });

  it('refuses what RFB cannot carry, saying which value', () => {
    expect(() => encodeSetDesktopSize({ width: 70000, height: 10, screens: [{ id: 0, flags: 0, x: 0, y: 0, width: 10, height: 10 }] })).toThrow(/desktop width 70000/);
    expect(() => encodeSetDesktopSize({ width: 10, height: 10, screens: [] })).toThrow(/1 to 255 screens/);
  });
});
